"""``ginref live`` end to end: a real tournament of the Python sample bots (one of them says a
name that is markup) run by ``ginref tournament`` in a process of its own, watched by ``ginref
live`` in another, read over HTTP while it plays and in headless Chromium."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import Browser
from tests.support.named_bot import NAME, VERSION

pytestmark = pytest.mark.slow  # real bot processes, two ginref processes and a browser

ROOT = Path(__file__).resolve().parents[2]
NAMED = ROOT / "tests" / "support" / "named_bot.py"
# Each of its decisions waits this long: a match lasts several seconds on any machine, long
# enough to be seen in progress by a page that looks every 0.2 s.
PAUSE_S = 0.05
# Far beyond what the tournament (two matches) takes on a loaded machine.
DEADLINE_S = 300.0


def until(condition: Callable[[], Any], what: str) -> Any:
    end = time.monotonic() + DEADLINE_S
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            pytest.fail(f"not true after {DEADLINE_S:g} s: {what}")
        time.sleep(0.05)


def ginref(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ginref", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "api/state", timeout=DEADLINE_S) as answer:
        data: dict[str, Any] = json.load(answer)
    return data


def public_cards(log: Path, hand: int) -> set[str]:
    """The upcard and the discards of ``hand`` in the log as it is now."""
    cards: set[str] = set()
    for line in log.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("hand") != hand:
            continue
        if record["type"] == "deal" and record["upcard"]:
            cards.add(record["upcard"])
        if record["type"] == "decision" and record["action"]["kind"] == "discard":
            cards.add(record["action"]["card"])
    return cards


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with Browser(tmp_path / "profile") as b:
        yield b


def test_a_tournament_watched_live(tmp_path: Path, browser: Browser) -> None:
    out = tmp_path / "out"
    file = tmp_path / "t.toml"
    file.write_text(
        'name = "watched"\nseed = 3\nmatches = 2\n[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n'
        '[[bots]]\nname = "greedy"\ncommand = "{python} -m sample_bots.greedy_bot"\n'
        f'[[bots]]\nname = "named"\ncommand = "{{python}} {NAMED} {PAUSE_S}"\n'
    )
    tournament = ginref("tournament", str(file), "--out", str(out), "-j", "2", "-q")
    live: subprocess.Popen[str] | None = None
    try:
        until(lambda: (out / "journal.sqlite").exists(), "the tournament's journal")
        live = ginref("live", str(out), "--port", "0", "--interval", "0.2")
        assert live.stdout is not None
        first = live.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)", first)
        assert found, first
        url = found.group(1)

        # A match in progress, its table in the state, nothing hidden in it.
        def playing() -> dict[str, Any] | None:
            for entry in state(url)["live"]:
                view = entry["view"]
                if view and view["tables"] and len(view["tables"][0]["events"]) > 3:
                    return entry
            return None

        entry = until(playing, "a match in progress with its table")
        view = entry["view"]
        assert entry["embargo"] is None  # two deals, one match each: nothing to hide
        named = next(s for s in view["seats"] if s["label"] == "named")
        assert named["name"] == NAME and named["version"] == VERSION
        (table,) = view["tables"]
        log = next(out.glob(f"logs/**/{entry['match_id']}.jsonl"))
        shown = set(table["pile"]) | {c for known in table["known"] for c in known}
        shown |= {e["card"] for e in table["events"] if e["card"]}
        assert table["result"] is not None or shown <= public_cards(log, table["hand"])
        assert '"seed"' not in json.dumps(entry) and '"deck"' not in json.dumps(entry)

        # The page: standings, a match (in progress or over), and the markup name as text.
        browser.load(url)
        browser.wait_for("document.querySelectorAll('#standings tbody tr').length === 2")
        browser.wait_for(
            "document.querySelector('.match') !== null || "
            "document.querySelectorAll('#recent tbody tr').length > 0"
        )
        names: list[str] = browser.js(
            "[...document.querySelectorAll('.hello')].map(e => e.textContent)"
        )
        if names:  # a match was still in progress when the page drew it
            assert f"({NAME} {VERSION})" in names
        assert browser.js("document.scripts.length") == 1
        assert browser.js("document.images.length") == 0
        assert browser.js("window.pwned === undefined && document.title !== 'pwned'")
        browser.screenshot("live-page.png")

        # The tournament ends: the page says so, and the results are there.
        assert tournament.wait(timeout=DEADLINE_S) == 0, tournament.stderr

        def over() -> dict[str, Any] | None:
            now = state(url)
            standings = now["standings"]
            return now if now["done"] == 2 and not now["live"] and standings["done"] == 2 else None

        final = until(over, "the end of the tournament in the state")
        assert [b["matches"] for b in final["standings"]["bots"]] == [2, 2]
        assert {r["key"] for r in final["recent"]} == {"greedy.named.001", "greedy.named.002"}
        browser.wait_for("document.querySelectorAll('#recent tbody tr').length === 2")
        browser.wait_for("document.getElementById('progress').textContent === '2 of 2 matches'")
        browser.wait_for("document.getElementById('standings-title').textContent === 'Standings'")
        assert browser.js("window.pwned === undefined && document.title !== 'pwned'")

        # Ctrl-C: it stops cleanly.
        live.send_signal(signal.SIGINT)
        rest, errors = live.communicate(timeout=DEADLINE_S)
        assert live.returncode == 0 and "Stopped." in rest and errors == ""
    finally:
        for process in (tournament, live):
            if process is not None and process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
