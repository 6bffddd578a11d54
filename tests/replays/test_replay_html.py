"""ginref replay --html: the pages of real matches of two, three and four players (and of a long
one of fake players), rendered by headless Chromium; and ginref verify and the terminal view on
the same logs.

Chromium is Debian's ``chromium`` package, installed by scripts/setup-browser (which
scripts/test runs). A missing browser fails these tests: CI has one. Screenshots go to
test-artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import subprocess
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.cards import card_str, cards_of, sort_key
from referee.engine.rules import Rules
from referee.series import run_match_async, run_series_async
from referee.timeline import Step, Timeline, load_replay
from replays.html import replay_frames
from replays.words import Style, card_text
from tests.support.browser import ARTIFACTS, CHROMIUM, HEADLESS, Browser
from tests.support.replay_helpers import (
    GREEDY,
    OPTIONS,
    RANDOM,
    fake_match_log,
    play_logs,
    records_of,
)

pytestmark = pytest.mark.slow  # real matches rendered by headless Chromium

WATCHED = ("hand0", "hand1", "pile0", "showdown", "showdown-knocker", "showdown-defender")


class _Cards(HTMLParser):
    """The data-card values and card backs inside each watched element, in document order."""

    VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "source", "wbr"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str | None] = []
        self.cards: dict[str, list[str]] = {name: [] for name in WATCHED}
        self.backs: dict[str, int] = dict.fromkeys(WATCHED, 0)
        self.attrs: dict[str, dict[str, str | None]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        ident = a.get("id")
        if ident:
            self.attrs[ident] = a
        inside = [i for i in self.stack if i in WATCHED]
        classes = (a.get("class") or "").split()
        for name in inside:
            if a.get("data-card"):
                self.cards[name].append(str(a["data-card"]))
            elif "back" in classes:
                self.backs[name] += 1
        if tag not in self.VOID:
            self.stack.append(ident)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack:
            self.stack.pop()


def dump_dom(page: Path, fragment: str, tmp_path: Path, screenshot: str | None = None) -> _Cards:
    """Load ``page#fragment`` in headless Chromium (its script runs) and parse the DOM."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/setup-browser (apt-get install chromium)")
    flags = [
        str(CHROMIUM),
        *HEADLESS,
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--window-size=1400,1000",
    ]
    url = f"{page.resolve().as_uri()}#{fragment}"
    if screenshot is not None:
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / screenshot
        shot.unlink(missing_ok=True)
        subprocess.run(
            [*flags, f"--screenshot={shot}", url], capture_output=True, timeout=120, check=True
        )
        assert shot.exists() and shot.stat().st_size > 10_000
    done = subprocess.run(
        [*flags, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True
    )
    parser = _Cards()
    parser.feed(done.stdout)
    assert "body" in done.stdout and parser.attrs, done.stderr[-2000:]
    return parser


@pytest.fixture(scope="module")
def log_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = play_logs(tmp_path_factory.mktemp("html"), {"standard": ("standard", {})}, seed=21)
    return logs["standard"]


@pytest.fixture(scope="module")
def timeline(log_path: Path) -> Timeline:
    return load_replay(log_path)


@pytest.fixture(scope="module")
def page(log_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("page") / "match.html"
    result = CliRunner().invoke(main, ["replay", str(log_path), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert f"Wrote {out}" in result.output
    return out


def sorted_codes(mask: int) -> list[str]:
    return [card_str(c) for c in sorted(cards_of(mask), key=sort_key)]


def mid_hand(timeline: Timeline) -> Step:
    """A discard in the middle of the first hand: both hands and the pile are non-trivial."""
    discards = [
        s
        for s in timeline.steps
        if s.kind == "decision" and s.hand == 1 and s.record["action"]["kind"] == "discard"
    ]
    return discards[len(discards) // 2]


def test_the_page_is_self_contained(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#)""", text)
    assert "<link" not in text and "@import" not in text and "url(" not in text
    assert "http://" not in text and "https://" not in text


def test_a_known_position_shows_the_right_cards(
    page: Path, timeline: Timeline, tmp_path: Path
) -> None:
    step = mid_hand(timeline)
    hand = step.played
    assert hand is not None
    dom = dump_dom(page, f"line={step.line}", tmp_path, screenshot=f"replay-line-{step.line}.png")
    assert dom.attrs["hand0"] is not None
    assert dom.cards["hand0"] == sorted_codes(hand.held(0))
    assert dom.cards["hand1"] == sorted_codes(hand.held(1))
    assert dom.cards["pile0"] == [card_str(c) for c in hand.pile[-8:]]
    discarded = step.record["action"]["card"]
    assert dom.cards["pile0"][-1] == discarded
    assert discarded not in dom.cards[f"hand{step.record['seat']}"]


def test_the_viewer_chooses_whose_cards_are_shown(
    page: Path, timeline: Timeline, tmp_path: Path
) -> None:
    step = mid_hand(timeline)
    hand = step.played
    assert hand is not None
    dom = dump_dom(page, f"line={step.line}&show=0", tmp_path)
    assert dom.cards["hand0"] == sorted_codes(hand.held(0))
    assert dom.cards["hand1"] == [] and dom.backs["hand1"] == hand.held(1).bit_count()


def test_the_showdown_shows_melds_layoffs_and_deadwood(
    page: Path, timeline: Timeline, tmp_path: Path
) -> None:
    step = next(s for s in timeline.steps if s.result is not None and s.result.knocker is not None)
    result = step.result
    assert result is not None and result.knocker_arrangement is not None
    dom = dump_dom(page, f"line={step.line}", tmp_path, screenshot="replay-showdown.png")
    # The hand is over: nobody is to act at its table, though the match has a seat to act.
    assert step.after.to_act is not None
    assert all("to-act" not in str(dom.attrs[f"seat{s}"]["class"]) for s in (0, 1))
    knocker = [card_str(c) for m in result.knocker_arrangement.melds for c in m.cards]
    laid = [card_str(c) for c, _ in result.defender.layoffs] if result.defender else []
    deadwood = sorted(result.knocker_arrangement.deadwood, key=sort_key)
    assert sorted(dom.cards["showdown-knocker"]) == sorted(
        knocker + laid + [card_str(c) for c in deadwood]
    )
    assert result.defender is not None
    defender = [card_str(c) for m in result.defender.melds for c in m.cards]
    defender += [card_str(c) for c in result.defender.deadwood]
    assert sorted(dom.cards["showdown-defender"]) == sorted(defender)


# --- real matches of two, three and four players: verify, the terminal view, the page ------------


@dataclasses.dataclass(frozen=True)
class Played:
    """A match's log, its walk and its page."""

    log: Path
    timeline: Timeline
    page: Path


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Played]:
    """By number of players, a match of sample bot processes and its page (written by ginref
    replay --html): pagat for two and three players (game bonus, boxes: the result is not the
    hand points), standard for partnerships."""
    folder = tmp_path_factory.mktemp("matches")

    async def play() -> list[Path]:
        two, three, four = await asyncio.gather(
            run_match_async(GREEDY, RANDOM, Rules.profile("pagat"), 21, folder / "2", OPTIONS),
            run_series_async(
                [GREEDY, RANDOM, GREEDY], Rules.profile("pagat", players=3), [5], folder / "3",
                OPTIONS,
            ),
            run_series_async(
                [GREEDY, RANDOM, GREEDY, RANDOM], Rules.profile("standard", players=4), [5],
                folder / "4", OPTIONS,
            ),
        )  # fmt: skip
        return [two.log_path, three.matches[0].log_path, four.matches[0].log_path]

    made = {}
    for log in asyncio.run(play()):
        page = log.with_suffix(".html")
        result = CliRunner().invoke(main, ["replay", str(log), "--html", str(page)])
        assert result.exit_code == 0, result.output
        timeline = load_replay(log)
        made[timeline.players] = Played(log, timeline, page)
    assert sorted(made) == [2, 3, 4]
    return made


@pytest.fixture(scope="module")
def long_match(tmp_path_factory: pytest.TempPathFactory) -> tuple[Timeline, Path]:
    """A match of some 1,700 records (fake players through the real session) and its page."""
    folder = tmp_path_factory.mktemp("long")
    log = fake_match_log(folder)
    out = folder / "long.html"
    result = CliRunner().invoke(main, ["replay", str(log), "--html", str(out)])
    assert result.exit_code == 0, result.output
    return load_replay(log), out


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with Browser(tmp_path / "profile") as b:
        yield b


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def cards_in(browser: Browser, ident: str) -> list[str]:
    return list(
        browser.js(
            f"[...document.querySelectorAll('#{ident} [data-card]')].map(e => e.dataset.card)"
        )
    )


def event_item(line: int) -> str:
    """The script that reads the text of the event list's item for log line ``line``."""
    return (
        "[...document.querySelectorAll('#events li')].find(li => li.querySelector('.ln')"
        f".textContent === '{line}').querySelector('.what').textContent"
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_verify_and_the_terminal_view_read_the_referees_logs(
    players: int, matches: dict[int, Played]
) -> None:
    log = matches[players].log
    code, out = run("verify", str(log))
    assert code == 0 and out.startswith("OK "), out
    records = records_of(log)
    assert len(records[0]["bots"]) == players
    code, out = run("replay", "--ascii", str(log))
    assert code == 0, out
    final = "–".join(map(str, records[-1]["final"]))
    assert "══ Result: " in out and f"wins, {final} (target reached)" in out
    rounds = [r for r in records if r["type"] == "round_result"]
    assert out.count("── Round ") == len(rounds) and bool(rounds) == (players == 4)
    sitting_out = out.count("deals and sits out")
    assert sitting_out == (sum(r["type"] == "deal" for r in records) if players == 3 else 0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_script_rebuilds_every_frame(
    players: int,
    matches: dict[int, Played],
    long_match: tuple[Timeline, Path],
    browser: Browser,
) -> None:
    # Two players: the long match, whose frames the script rebuilds before the page has loaded.
    played = matches[players]
    timeline, page = long_match if players == 2 else (played.timeline, played.page)
    browser.load(page.resolve().as_uri())
    frames = json.loads(browser.js("JSON.stringify(FRAMES)"))
    assert frames == json.loads(json.dumps(replay_frames(timeline)))
    deal = timeline.deal_step(1)
    assert deal is not None and browser.js("document.body.dataset.line") == str(deal.line)


def test_dump_dom_sees_a_late_position_of_a_long_match(
    long_match: tuple[Timeline, Path], tmp_path: Path
) -> None:
    timeline, page = long_match
    # The last discard: the frames are rebuilt (and drawn) before the load event.
    step = [s for s in timeline.steps if s.kind == "decision" and s.record["action"]["kind"]
            == "discard"][-1]  # fmt: skip
    hand = step.played
    assert hand is not None
    dom = dump_dom(page, f"line={step.line}", tmp_path)
    assert dom.cards["hand0"] == sorted_codes(hand.held(0))
    assert dom.cards["hand1"] == sorted_codes(hand.held(1))
    assert dom.cards["pile0"] == [card_str(c) for c in hand.pile[-8:]]


def test_the_event_list_shows_the_current_event_of_a_long_match(
    long_match: tuple[Timeline, Path], browser: Browser
) -> None:
    timeline, page = long_match
    late = timeline.steps[len(timeline.steps) * 3 // 4].line
    browser.load(f"{page.resolve().as_uri()}#line={late}")
    browser.click("#next")
    browser.click("#next")
    shown = browser.js(
        "(() => { const item = document.querySelector('#events li.current');"
        " const r = item.getBoundingClientRect();"
        " const list = document.querySelector('aside').getBoundingClientRect();"
        " const current = document.querySelectorAll('#events li.current').length;"
        " return [item.querySelector('.ln').textContent, r.top >= list.top,"
        " r.bottom <= list.bottom + 1, current]; })()"
    )
    assert shown == [browser.js("document.body.dataset.line"), True, True, 1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_page_opens_at_the_first_deal(
    players: int, matches: dict[int, Played], browser: Browser
) -> None:
    timeline, page = matches[players].timeline, matches[players].page
    deal = timeline.deal_step(1)
    assert deal is not None and deal.played is not None
    browser.load(page.resolve().as_uri())
    assert browser.js("document.body.dataset.line") == str(deal.line)
    for hand_seat, seat in enumerate(deal.seats):
        assert cards_in(browser, f"hand{seat}") == sorted_codes(deal.played.held(hand_seat))
    sides = browser.js("[...document.querySelectorAll('#scoreboard .side')].map(e => e.id)")
    assert sides == [f"side{s}" for s in range(2 if players == 4 else players)]
    assert browser.js("document.body.dataset.playing") == "no"
    assert browser.js("window.scrollY") == 0  # the table, not the event list, is in view
    if players == 3:
        out = 3 - sum(deal.seats)
        assert cards_in(browser, f"hand{out}") == []  # sitting out: no cards, marked on the board
        assert "dealer, sits out" in browser.js(f"document.getElementById('side{out}').innerText")
    felts = browser.js("document.querySelectorAll('.felt').length")
    assert felts == 1  # with partnerships, table 1 is dealt on the next line
    if players == 4:
        browser.click("#next")
        assert browser.js("document.querySelectorAll('.felt').length") == 2


def test_play_steps_through_the_events_until_paused(
    matches: dict[int, Played], browser: Browser
) -> None:
    page = matches[2].page
    browser.load(page.resolve().as_uri())
    start = int(browser.js("document.body.dataset.line"))
    browser.js("document.getElementById('speed').value = '30'")
    browser.click("#play")
    assert browser.js("document.body.dataset.playing") == "yes"
    browser.wait_for(f"parseInt(document.body.dataset.line, 10) > {start + 2}")
    browser.click("#play")
    assert browser.js("document.body.dataset.playing") == "no"
    assert "play" in browser.js("document.getElementById('play').textContent")
    # Paused, the next button moves exactly one event.
    where = browser.js("document.getElementById('slider').value")
    browser.click("#next")
    assert int(browser.js("document.getElementById('slider').value")) == int(where) + 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_page_plays_to_the_end_and_shows_the_logs_scores(
    players: int, matches: dict[int, Played], browser: Browser
) -> None:
    timeline, page = matches[players].timeline, matches[players].page
    records = records_of(matches[players].log)
    end = records[-1]
    final = end["final"]
    browser.load(page.resolve().as_uri())
    # Play through every event: a speed the page does not offer, so that no test waits long.
    browser.js(
        "(() => { const s = document.getElementById('speed');"
        " s.add(new Option('500/s', '500')); s.value = '500'; })()"
    )
    browser.click("#play")
    browser.wait_for("document.body.dataset.playing === 'no'")
    assert browser.js("document.body.dataset.line") == str(len(records))
    assert int(browser.js("document.getElementById('slider').value")) == len(records) - 1
    browser.click("#first")
    browser.click("#last")  # the end again, in one step
    assert browser.js("document.body.dataset.line") == str(len(records))
    shown = browser.js(
        "[...document.querySelectorAll('#scoreboard .side .score')]"
        ".map(e => [e.firstChild.textContent, e.querySelector('small').textContent])"
    )
    assert shown == [[str(points), "final"] for points in final]
    panel = browser.js("document.getElementById('result').innerText")
    assert all(f"= {points}" in panel for points in final)
    if players > 2:  # two players' places are the winner and the other
        for seat, place in enumerate(end["placings"]):
            label = records[0]["bots"][seat]["label"]
            assert f"seat {seat} ({label}) {place}" in panel
    if players < 4:  # pagat: the result is more than the hand points
        assert list(final) != list(timeline.steps[-1].after.scores)
        assert "game bonus" in panel and "boxes" in panel
    browser.screenshot(f"replay-{players}-players-end.png")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_hidden_seats_cards_are_backs_and_its_draws_name_no_card(
    players: int, matches: dict[int, Played], browser: Browser
) -> None:
    timeline, page = matches[players].timeline, matches[players].page
    hidden = players - 1
    draw = next(
        s
        for s in timeline.steps
        if s.kind == "decision" and s.seat == hidden and s.record["action"]["kind"] == "draw_stock"
    )
    hand = draw.played
    assert hand is not None
    card = next(e.card for e in hand.events[draw.events_from :] if e.kind == "draw_stock")
    assert card is not None
    told = card_text(card, Style(symbols=True))
    who = f"seat {hidden} ({timeline.label(hidden)})"
    others = ",".join(str(s) for s in range(hidden))
    browser.load(f"{page.resolve().as_uri()}#line={draw.line}&show={others}")
    assert cards_in(browser, f"hand{hidden}") == []
    backs = browser.js(f"document.querySelectorAll('#hand{hidden} .back').length")
    assert backs == hand.held(draw.seats.index(hidden)).bit_count()
    # With partnerships the texts start with the table: [table 1] seat 3 (...) draws...
    assert browser.js(event_item(draw.line)).endswith(f"{who} draws from the stock")
    event = browser.js("document.getElementById('event').textContent")
    assert event.endswith(f"{who} draws from the stock") and told not in event
    browser.click(f"#show{hidden}")  # every seat's cards face up: the card is told
    assert f"{who} draws {told} from the stock" in browser.js(event_item(draw.line))
    held = [card_str(c) for c in cards_of(hand.held(draw.seats.index(hidden)))]
    assert cards_in(browser, f"hand{hidden}") == held
    assert browser.js("location.hash") == f"#line={draw.line}"
    # Seat 0's own draws stay told while the hidden seat's cards are face down.
    browser.click(f"#show{hidden}")
    mine = next(
        s
        for s in timeline.steps
        if s.kind == "decision" and s.seat == 0 and s.record["action"]["kind"] == "draw_stock"
    )
    assert "draws from the stock" not in browser.js(event_item(mine.line))


def test_the_page_fits_a_420_pixel_screen(matches: dict[int, Played], browser: Browser) -> None:
    timeline, page = matches[2].timeline, matches[2].page
    showdown = next(
        s for s in timeline.steps if s.result is not None and s.result.knocker is not None
    )
    browser.resize(420, 800)
    for fragment in ("", f"#line={showdown.line}", f"#line={timeline.last_line}"):
        browser.load(page.resolve().as_uri() + fragment)
        assert browser.js("document.documentElement.scrollWidth") <= 420
        assert browser.js("document.body.scrollWidth") <= 420
        cards = browser.js(
            "[...document.querySelectorAll('.card')].filter(c => c.offsetParent !== null)"
            ".map(c => { const r = c.getBoundingClientRect();"
            " const f = parseFloat(getComputedStyle(c.querySelector('.corner') || c).fontSize);"
            " return [r.left, r.right, r.width, f]; })"
        )
        assert cards
        for left, right, width, font in cards:
            assert left >= 0 and right <= 420
            assert width >= 28 and font >= 12  # legible: not shrunk to fit
    browser.screenshot("replay-420px.png")
