"""Replays of real matches of three players and of two partnerships: the referee plays the
sample bots (processes, sandboxed), then ginref verify, ginref replay and the replay page in
headless Chromium (tests/support/browser.py) read the logs it wrote.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.cards import card_str, cards_of, parse_card, sort_key
from referee.engine.rules import Rules
from referee.series import run_series_async
from referee.timeline import GroupTimeline, load_any_replay
from replays.html import replay_frames
from tests.support.browser import Browser
from tests.support.referee_helpers import FAST, bot
from tests.support.replay_helpers import GREEDY, OPTIONS, RANDOM, records_of

pytestmark = pytest.mark.slow  # real matches of bot processes, rendered by headless Chromium


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """A pagat match of three players (game bonus, boxes) and a standard one of partnerships,
    each with its page written by ginref replay --html."""
    folder = tmp_path_factory.mktemp("group")

    async def play() -> dict[int, Path]:
        three, four = await asyncio.gather(
            run_series_async(
                [GREEDY, RANDOM, GREEDY], Rules.profile("pagat", players=3), [5], folder / "3",
                OPTIONS,
            ),
            run_series_async(
                [GREEDY, RANDOM, GREEDY, RANDOM], Rules.profile("standard", players=4), [5],
                folder / "4", OPTIONS,
            ),
        )  # fmt: skip
        return {3: three.matches[0].log_path, 4: four.matches[0].log_path}

    made = asyncio.run(play())
    for path in made.values():
        result = CliRunner().invoke(main, ["replay", str(path), "--html", str(page_of(path))])
        assert result.exit_code == 0, result.output
    return made


def page_of(log: Path) -> Path:
    return log.with_suffix(".html")


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with Browser(tmp_path / "profile") as b:
        yield b


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_verify_and_the_terminal_view_read_the_referees_logs(logs: dict[int, Path]) -> None:
    code, out = run("verify", *map(str, logs.values()))
    assert code == 0, out
    for players, log in logs.items():
        records = records_of(log)
        assert len(records[0]["bots"]) == players and records[-1]["players"] == players
        code, out = run("replay", "--ascii", str(log))
        assert code == 0, out
        final = "–".join(map(str, records[-1]["final"]))
        assert "══ Result: " in out and f"wins, {final} (target reached)" in out
        if players == 4:
            rounds = [r for r in records if r["type"] == "round_result"]
            assert rounds and out.count("── Round ") == len(rounds)
        else:
            assert out.count("deals and sits out") == sum(r["type"] == "deal" for r in records)


FAULTS = {
    # A partner's illegal discard forfeits the team; a crash forfeits one of three; a bot that
    # never connects is at fault before a hand is dealt to it.
    "illegal": (4, ["play", "first", "notinhand", "first"], 41),
    "crash": (3, ["play", "crash", "first"], 51),
    "absent": (4, ["play", "first", "first", "never"], 7),
}


@pytest.mark.parametrize("name", list(FAULTS))
def test_verify_and_the_view_read_the_referees_logs_of_faults(name: str, tmp_path: Path) -> None:
    players, modes, seed = FAULTS[name]
    bots = [bot(mode, 3 if mode == "crash" else None) for mode in modes]
    rules = Rules.profile("standard", players=players)
    series = asyncio.run(run_series_async(bots, rules, [seed], tmp_path, FAST))
    log = series.matches[0].log_path
    code, out = run("verify", str(log))
    assert code == 0 and out.startswith("OK "), out
    end = records_of(log)[-1]
    faulty = end["forfeit"]["seats"]
    assert faulty == [modes.index(next(m for m in modes if m not in ("play", "first")))]
    code, out = run("replay", "--ascii", str(log))
    assert code == 0, out
    assert f"FAULT seat {faulty[0]} (testbot-{modes[faulty[0]]}): " in out
    assert f"seat {faulty[0]} (testbot-{modes[faulty[0]]}) forfeits: " in out


def cards_of_seat(browser: Browser, seat: int) -> list[str]:
    return list(
        browser.js(
            f"[...document.querySelectorAll('#ghand{seat} [data-card]')].map(e => e.dataset.card)"
        )
    )


def dealt(record: dict[str, Any], hand_seat: int) -> list[str]:
    """The cards a deal record gives a hand seat (the player who does not deal first), in
    the page's order."""
    first = 1 - record["dealer"]
    own = [parse_card(c) for c in record["deck"][:20][(hand_seat - first) % 2 :: 2]]
    return [card_str(c) for c in sorted(own, key=sort_key)]


@pytest.mark.parametrize("players", [3, 4])
def test_the_page_opens_at_the_first_deal(
    players: int, logs: dict[int, Path], browser: Browser
) -> None:
    records = records_of(logs[players])
    line, deal = next((n, r) for n, r in enumerate(records, start=1) if r["type"] == "deal")
    browser.load(page_of(logs[players]).resolve().as_uri())
    assert browser.js("document.body.dataset.line") == str(line)
    for hand_seat, seat in enumerate(deal["seats"]):
        assert cards_of_seat(browser, seat) == dealt(deal, hand_seat)
    sides = browser.js("[...document.querySelectorAll('#scoreboard .side')].map(e => e.id)")
    assert sides == [f"side{s}" for s in range(2 if players == 4 else 3)]
    if players == 3:
        out = 3 - sum(deal["seats"])
        assert cards_of_seat(browser, out) == []  # sitting out: no cards, marked on the board
        assert "dealer, sits out" in browser.js(f"document.getElementById('side{out}').innerText")
    else:
        assert browser.js("document.querySelectorAll('.felt').length") == 1  # table 1: next line
        browser.click("#next")
        assert browser.js("document.querySelectorAll('.felt').length") == 2


@pytest.mark.parametrize("players", [3, 4])
def test_the_page_steps_to_the_end_and_shows_the_logs_scores(
    players: int, logs: dict[int, Path], browser: Browser
) -> None:
    log = logs[players]
    records = records_of(log)
    end = records[-1]
    browser.load(page_of(log).resolve().as_uri())
    # Play through every event: a speed the page does not offer, so that no test waits long.
    browser.js(
        "(() => { const s = document.getElementById('speed');"
        " s.add(new Option('500/s', '500')); s.value = '500'; })()"
    )
    browser.click("#play")
    browser.wait_for("document.body.dataset.playing === 'no'")
    assert browser.js("document.body.dataset.line") == str(len(records))
    assert int(browser.js("document.getElementById('slider').value")) == len(records) - 1
    shown = browser.js(
        "[...document.querySelectorAll('#scoreboard .side .score')]"
        ".map(e => [e.firstChild.textContent, e.querySelector('small').textContent])"
    )
    assert shown == [[str(points), "final"] for points in end["final"]]
    panel = browser.js("document.getElementById('result').innerText")
    for seat, place in enumerate(end["placings"]):
        label = records[0]["bots"][seat]["label"]
        assert f"seat {seat} ({label}) {place}" in panel
    if players == 3:
        assert "game bonus" in panel  # pagat: the result is more than the hand points
    browser.screenshot(f"replay-{players}-players-end.png")


@pytest.mark.parametrize("players", [3, 4])
def test_the_script_rebuilds_every_frame(
    players: int, logs: dict[int, Path], browser: Browser
) -> None:
    timeline = load_any_replay(logs[players])
    assert isinstance(timeline, GroupTimeline)
    browser.load(page_of(logs[players]).resolve().as_uri())
    frames = json.loads(browser.js("JSON.stringify(FRAMES)"))
    expected = replay_frames(timeline)
    assert frames == json.loads(json.dumps(expected))


def test_a_hidden_seats_cards_are_backs_and_its_draws_name_no_card(
    logs: dict[int, Path], browser: Browser
) -> None:
    timeline = load_any_replay(logs[4])
    assert isinstance(timeline, GroupTimeline)
    draw = next(
        s
        for s in timeline.steps
        if s.kind == "decision" and s.seat == 3 and s.record["action"]["kind"] == "draw_stock"
    )
    assert draw.played is not None
    browser.load(f"{page_of(logs[4]).resolve().as_uri()}#line={draw.line}&show=0,1,2")
    assert cards_of_seat(browser, 3) == []
    backs = browser.js("document.querySelectorAll('#ghand3 .back').length")
    assert backs == draw.played.held(draw.seats.index(3)).bit_count()
    event = browser.js("document.getElementById('event').textContent")
    assert event.endswith(f"seat 3 ({timeline.label(3)}) draws from the stock")
    browser.click("#show3")
    held = [card_str(c) for c in cards_of(draw.played.held(draw.seats.index(3)))]
    assert cards_of_seat(browser, 3) == held
    assert browser.js("location.hash") == f"#line={draw.line}"
