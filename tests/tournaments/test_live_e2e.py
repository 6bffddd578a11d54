"""``ginref live`` end to end: a real tournament of the Python sample bots (one of them says a
name that is markup) run by ``ginref tournament`` in a process of its own, watched by ``ginref
live`` in another, read over HTTP while it plays and in headless Chromium.

The named bot holds each of its matches in progress until the test lets it go on (at its
:data:`HOLD`-th decision, tests/support/named_bot.py): what a spectator sees of a hand in play
is checked against the log on every machine, however fast it plays."""

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

from replays.spectate import spectator_view
from tests.support.browser import Browser
from tests.support.named_bot import NAME, OPEN, VERSION

pytestmark = pytest.mark.slow  # real bot processes, two ginref processes and a browser

ROOT = Path(__file__).resolve().parents[2]
NAMED = ROOT / "tests" / "support" / "named_bot.py"
# The named bot's decision (of each match) it waits at until the test opens the gate: in its
# first hand, after stock draws whose cards a spectator must not see.
HOLD = 6
# Far beyond what the tournament (two matches) takes on a loaded machine.
DEADLINE_S = 300.0
SUITS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
PAGE_CARD = re.compile("(?:10|[2-9AJQK])[" + "".join(SUITS.values()) + "]")


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


def fetch(url: str, path: str) -> Any:
    with urllib.request.urlopen(url + path, timeout=DEADLINE_S) as answer:
        return json.load(answer)


def state(url: str) -> dict[str, Any]:
    data: dict[str, Any] = fetch(url, "api/state")
    return data


def records(log: Path) -> list[dict[str, Any]]:
    """The log's whole lines as they are now (a line being written is left out)."""
    text = log.read_text(encoding="utf-8")
    return [json.loads(line) for line in text[: text.rfind("\n") + 1].splitlines()]


def public_cards(log: Path, hand: int) -> set[str]:
    """The upcard and the discards of ``hand`` in the log as it is now."""
    cards: set[str] = set()
    for record in records(log):
        if record.get("hand") != hand:
            continue
        if record["type"] == "deal" and record["upcard"]:
            cards.add(record["upcard"])
        if record["type"] == "decision" and record["action"]["kind"] == "discard":
            cards.add(record["action"]["card"])
    return cards


def page_text(code: str) -> str:
    """A card as the page writes it: ``TH`` is 10 and the hearts' sign."""
    return ("10" if code[0] == "T" else code[0]) + SUITS[code[1]]


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with Browser(tmp_path / "profile") as b:
        yield b


def test_a_tournament_watched_live(tmp_path: Path, browser: Browser) -> None:
    out = tmp_path / "out"
    gate = tmp_path / "gate"  # the named bot's own directory, read only in its sandbox
    gate.mkdir(mode=0o755)
    file = tmp_path / "t.toml"
    file.write_text(
        'name = "watched"\nseed = 3\nmatches = 2\n[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n'
        # A held decision waits for the test, not for a clock: time enough for all it checks.
        f"[time]\nmove_time = {DEADLINE_S}\nbank = {DEADLINE_S}\n"
        '[[bots]]\nname = "greedy"\ncommand = "{python} -m sample_bots.greedy_bot"\n'
        f'[[bots]]\nname = "named"\ncommand = "{{python}} {NAMED} {HOLD} {gate}"\n'
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

        # Both matches held, the named bot to act in a hand in play, and the state showing
        # each of them as its log stands: nothing changes until the gate opens.
        def held() -> list[tuple[dict[str, Any], Path]] | None:
            entries = state(url)["live"]
            if len(entries) != 2 or not all(e["view"] and e["view"]["tables"] for e in entries):
                return None
            holding = []
            for entry in entries:
                view = entry["view"]
                log = next(out.glob(f"logs/**/{entry['match_id']}.jsonl"))
                written = records(log)
                named = next(s["seat"] for s in view["seats"] if s["label"] == "named")
                asked = sum(r["type"] == "decision" and r["seat"] == named for r in written)
                (table,) = view["tables"]
                if asked != HOLD - 1 or table["to_act"] != named:
                    return None
                if view != spectator_view(written):
                    return None
                holding.append((entry, log))
            return holding

        playing = until(held, "both matches held in progress, as their logs stand")
        for entry, log in playing:
            view = entry["view"]
            assert entry["embargo"] is None  # two deals, one match each: nothing to hide
            named = next(s for s in view["seats"] if s["label"] == "named")
            assert named["name"] == NAME and named["version"] == VERSION
            (table,) = view["tables"]
            assert table["result"] is None  # the named bot is to act: the hand is in play
            assert any(e["kind"] == "draw_stock" for e in table["events"])  # a card to hide
            shown = set(table["pile"]) | {c for known in table["known"] for c in known}
            shown |= {e["card"] for e in table["events"] if e["card"]}
            assert shown <= public_cards(log, table["hand"])
            assert '"seed"' not in json.dumps(entry) and '"deck"' not in json.dumps(entry)

        # The page: standings, both matches held, the markup name as text, and no card face
        # up that the log has not made public.
        browser.load(url)
        browser.wait_for("document.querySelectorAll('#standings tbody tr').length === 2")
        browser.wait_for("document.querySelectorAll('.match .felt').length === 2")
        names: list[str] = browser.js(
            "[...document.querySelectorAll('.hello')].map(e => e.textContent)"
        )
        assert names.count(f"({NAME} {VERSION})") == 2
        for entry, log in playing:
            text: str = browser.js(
                f"document.querySelector('.match[data-match=\"{entry['match_id']}\"]').textContent"
            )
            public = {page_text(c) for c in public_cards(log, entry["view"]["tables"][0]["hand"])}
            assert PAGE_CARD.search(text) and set(PAGE_CARD.findall(text)) <= public
        assert browser.js("document.scripts.length") == 1
        assert browser.js("document.images.length") == 0
        assert browser.js("window.pwned === undefined && document.title !== 'pwned'")
        browser.screenshot("live-page.png")

        # The gate opens: the tournament ends, the page says so, and the results are there.
        (gate / OPEN).touch()
        assert tournament.wait(timeout=DEADLINE_S) == 0, tournament.stderr

        def over() -> dict[str, Any] | None:
            now = state(url)
            standings = now["standings"]
            return now if now["done"] == 2 and not now["live"] and standings["done"] == 2 else None

        final = until(over, "the end of the tournament in the state")
        assert [b["matches"] for b in final["standings"]["bots"]] == [2, 2]
        assert {r["key"] for r in final["recent"]} == {"greedy.named.001", "greedy.named.002"}
        # Each finished match's last view: its whole log, as a spectator sees it.
        for entry, log in playing:
            kept = fetch(url, f"api/match/{entry['match_id']}")
            assert kept["embargo"] is None and kept["view"]["over"]
            assert kept["view"] == spectator_view(records(log))
            assert '"seed"' not in json.dumps(kept) and '"deck"' not in json.dumps(kept)
        browser.wait_for("document.querySelectorAll('#recent tbody tr').length === 2")
        browser.wait_for("document.getElementById('progress').textContent === '2 of 2 matches'")
        browser.wait_for("document.getElementById('standings-title').textContent === 'Standings'")
        assert browser.js("window.pwned === undefined && document.title !== 'pwned'")

        # Ctrl-C: it stops cleanly.
        live.send_signal(signal.SIGINT)
        rest, errors = live.communicate(timeout=DEADLINE_S)
        assert live.returncode == 0 and "Stopped." in rest and errors == ""
    finally:
        (gate / OPEN).touch()  # a held bot is let go whatever happened
        for process in (tournament, live):
            if process is not None and process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
