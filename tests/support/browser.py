"""Headless Chromium driven over the DevTools protocol on a pipe: load a page, run script in it,
press its buttons, resize it.

Chromium's ``--remote-debugging-pipe`` reads protocol messages from file descriptor 3 and writes
them to descriptor 4, each a JSON object followed by a NUL byte: no websocket, no port, no
library. Debian's ``chromium`` is installed by scripts/setup-browser; screenshots go to
test-artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# Headless, and nothing of its own on the network or in the profile: every test's Chromium.
HEADLESS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Far beyond what loading a local page or a few timer ticks takes on a loaded machine.
TIMEOUT_S = 60.0
# What the browser says when the page an expression ran in went away (a navigation)
NAVIGATED = ("Inspected target navigated or closed", "Execution context was destroyed")


def _above_4(fd: int) -> int:
    """``fd`` moved to a number above 4 (the old one closed)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class BrowserError(AssertionError):
    """The browser or the page did not do what a test asked."""


class Browser:
    """One headless Chromium and one page in it; use as a context manager."""

    def __init__(self, profile: Path, width: int = 1400, height: int = 1000) -> None:
        if not CHROMIUM.exists():
            pytest.fail(f"{CHROMIUM} is missing: run scripts/setup-browser")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser's ends above 4, so that placing them at 3 and 4 overwrites neither.
        to_browser_r, from_browser_w = (_above_4(fd) for fd in (to_browser_r, from_browser_w))
        # The browser's fds 3 and 4, placed by the shell that execs it (no preexec_fn, which
        # is unsafe with threads).
        place = f'exec 3<&{to_browser_r} 4>&{from_browser_w}; exec "$@"'
        self._proc = subprocess.Popen(
            [
                "/bin/bash",  # dash takes no fd number above 9
                "-c",
                place,
                "sh",
                str(CHROMIUM),
                *HEADLESS,
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(to_browser_r, from_browser_w),
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        target = self._call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        self.call("Page.enable")
        self.resize(width, height)

    # --- the protocol ---

    def _send(self, method: str, params: dict[str, Any], session: str | None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise BrowserError("chromium closed its debugging pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def _call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        ident = self._send(method, params, session)
        while True:
            message = self._read()
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """A protocol command to the page."""
        return self._call(method, self._session, **params)

    # --- what tests do ---

    def resize(self, width: int, height: int) -> None:
        """Make the page's viewport ``width`` x ``height`` CSS pixels, as a phone's would be."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=width < 600,
        )

    def load(self, url: str) -> None:
        """Open ``url`` and wait for its load event (its inline script has run by then)."""
        self.call("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete' && document.body !== null")

    def js(self, expression: str) -> Any:
        """The value of ``expression`` in the page (awaited if it is a promise)."""
        result = self.call(
            "Runtime.evaluate",
            expression=expression,
            returnByValue=True,
            awaitPromise=True,
            timeout=TIMEOUT_S * 1000,
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"{expression}: {text}")
        return result["result"].get("value")

    def wait_for(self, condition: str, timeout: float = TIMEOUT_S) -> None:
        """Wait, inside the page, until ``condition`` is true; fail after ``timeout`` s.

        A navigation (a link just clicked) destroys the page the wait runs in: the wait starts
        again in the new page, within the same deadline."""
        deadline = time.monotonic() + timeout
        while True:
            left = max(0.0, deadline - time.monotonic())
            try:
                done = self.js(
                    "new Promise(resolve => { const t0 = Date.now(); (function check() {"
                    f" let ok = false; try {{ ok = !!({condition}); }} catch (e) {{}}"
                    f" if (ok) resolve(true); else if (Date.now() - t0 > {left * 1000})"
                    " resolve(false); else setTimeout(check, 20); })(); })"
                )
            except BrowserError as exc:
                if not any(m in str(exc) for m in NAVIGATED) or time.monotonic() > deadline:
                    raise
                continue
            if not done:
                raise BrowserError(f"not true after {timeout:g} s: {condition}")
            return

    def click(self, selector: str) -> None:
        """Press the element ``selector`` as a pointer would, at its centre."""
        box = self.js(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, name: str) -> Path:
        """The page as a PNG in test-artifacts/."""
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / name
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        shot.write_bytes(base64.b64decode(data["data"]))
        return shot

    def close(self) -> None:
        """End the browser: our own process, by its id."""
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._proc.terminate()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
