"""The live page in headless Chromium on matches of three players and of two partnerships (logs
grown here record by record): who sits out, a felt per table, cards face down until the hand's
result is read, then face up with the outcome."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import Browser
from tests.support.group_logs import LABELS
from tests.support.live_tournament import Tournament, spec
from tournaments.live.server import LiveView

pytestmark = pytest.mark.slow  # a browser

KEY = "game.001"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with Browser(tmp_path / "profile") as b:
        yield b


def served(tmp_path: Path, players: int) -> tuple[Tournament, LiveView]:
    t = Tournament(tmp_path / "t", [spec(KEY, 0, LABELS[:players], 21)], players)
    t.log(KEY, choices=4)
    view = LiveView(t.directory, port=0, interval=0.05)
    view.start()
    return t, view


def table_rows(browser: Browser) -> list[dict[str, int]]:
    """Each hand row of each felt: its cards face up and face down."""
    rows: list[dict[str, int]] = browser.js(
        "[...document.querySelectorAll('.felt .row')].map(r => ({"
        "up: r.querySelectorAll('.card:not(.back)').length,"
        "down: r.querySelectorAll('.card.back').length}))"
    )
    return rows


@pytest.mark.parametrize("players", [3, 4])
def test_tables_of_three_players_and_partnerships(
    tmp_path: Path, browser: Browser, players: int
) -> None:
    t, view = served(tmp_path, players)
    try:
        t.grow_until(KEY, "decision", 12)
        browser.load(view.url)
        tables = 1 if players == 3 else 2
        browser.wait_for(f"document.querySelectorAll('.felt').length === {tables}")
        browser.wait_for("document.querySelectorAll('.felt .events li').length > 4")
        text = browser.js("document.querySelector('.match').innerText")
        if players == 3:
            assert "sits out" in text
        else:
            assert "north" in text and "south" in text and "table 2" in text
        # Every hand of 10 or 11 cards, most of them face down: only cards taken from the pile
        # are face up before the hand's result.
        rows = table_rows(browser)
        assert len(rows) == 2 * tables
        assert all(r["up"] + r["down"] in (10, 11) and r["down"] >= 7 for r in rows)
        # A hand's result read: its table turns its cards face up and says how it ended.
        t.grow_until(KEY, "hand_result")
        browser.wait_for("document.querySelector('.felt .outcome') !== null")
        results = [json.loads(line) for line in t.lines[KEY][: t.written[KEY]]]
        hand = next(r for r in results if r["type"] == "hand_result")["hand"]
        felt = browser.js(
            f"[...document.querySelectorAll('.felt')].find(f => "
            f"f.querySelector('h4').textContent.startsWith('Hand {hand} '))"
            ".querySelectorAll('.row .card.back').length"
        )
        assert felt == 0
        browser.screenshot(f"live-page-{players}.png")
    finally:
        view.stop()
        t.journal.close()
