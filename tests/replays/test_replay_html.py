"""ginref replay --html: the page of a real match, rendered by headless Chromium.

Chromium is Debian's ``chromium`` package, installed by scripts/setup-browser (which
scripts/test runs). A missing browser fails these tests: CI has one. Screenshots go to
test-artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

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
from referee.timeline import Step, Timeline, load_replay
from replays.html import replay_frames
from replays.words import Style, card_text
from tests.support.browser import ARTIFACTS, CHROMIUM, HEADLESS, Browser
from tests.support.replay_helpers import fake_match_log, play_logs

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


# --- a long match: the page's script rebuilds every frame before the page has loaded -----------


@pytest.fixture(scope="module")
def long_match(tmp_path_factory: pytest.TempPathFactory) -> tuple[Timeline, Path]:
    """A match of some 1,700 records (fake players through the real session) and its page."""
    folder = tmp_path_factory.mktemp("long")
    log = fake_match_log(folder)
    out = folder / "long.html"
    result = CliRunner().invoke(main, ["replay", str(log), "--html", str(out)])
    assert result.exit_code == 0, result.output
    return load_replay(log), out


def test_the_script_rebuilds_every_frame(
    long_match: tuple[Timeline, Path], browser: Browser
) -> None:
    timeline, page = long_match
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


# --- the page in a browser: opening, playing, the result, hidden draws, a phone's width ---------


@pytest.fixture(scope="module")
def pagat(tmp_path_factory: pytest.TempPathFactory) -> tuple[Timeline, Path]:
    """A pagat match (game bonus, boxes: the result is not the hand points) and its page."""
    folder = tmp_path_factory.mktemp("pagat")
    log = play_logs(folder, {"pagat": ("pagat", {})}, seed=21)["pagat"]
    out = folder / "pagat.html"
    result = CliRunner().invoke(main, ["replay", str(log), "--html", str(out)])
    assert result.exit_code == 0, result.output
    return load_replay(log), out


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with Browser(tmp_path / "profile") as b:
        yield b


def cards_in(browser: Browser, ident: str) -> list[str]:
    return list(
        browser.js(
            f"[...document.querySelectorAll('#{ident} [data-card]')].map(e => e.dataset.card)"
        )
    )


def test_the_page_opens_at_the_first_deal(pagat: tuple[Timeline, Path], browser: Browser) -> None:
    timeline, page = pagat
    deal = timeline.deal_step(1)
    assert deal is not None and deal.played is not None
    browser.load(page.resolve().as_uri())
    assert browser.js("document.body.dataset.line") == str(deal.line)
    for seat in (0, 1):
        assert cards_in(browser, f"hand{seat}") == sorted_codes(deal.played.held(seat))
    assert browser.js("document.body.dataset.playing") == "no"
    assert browser.js("window.scrollY") == 0  # the table, not the event list, is in view


def test_play_steps_through_the_events_until_paused(
    pagat: tuple[Timeline, Path], browser: Browser
) -> None:
    _, page = pagat
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


def test_the_seat_scores_at_the_end_are_the_result(
    pagat: tuple[Timeline, Path], browser: Browser
) -> None:
    timeline, page = pagat
    end = timeline.steps[-1]
    assert end.kind == "match_result" and end.after.result is not None
    final = end.after.result.final
    assert final != end.after.scores  # game bonus and boxes: the result is more than points
    browser.load(page.resolve().as_uri())
    browser.click("#last")
    shown = browser.js(
        "[0, 1].map(s => document.querySelector('#side' + s + ' .score').firstChild.textContent)"
    )
    assert shown == [str(final[0]), str(final[1])]
    panel = browser.js("document.getElementById('result').innerText")
    assert f"= {final[0]}" in panel and f"= {final[1]}" in panel
    assert "game bonus" in panel and "boxes" in panel


def test_a_hidden_seats_stock_draws_name_no_card(
    pagat: tuple[Timeline, Path], browser: Browser
) -> None:
    timeline, page = pagat
    draw = next(
        s
        for s in timeline.steps
        if s.kind == "decision" and s.seat == 1 and s.record["action"]["kind"] == "draw_stock"
    )
    assert draw.played is not None
    card = next(e.card for e in draw.played.events[draw.events_from :] if e.kind == "draw_stock")
    assert card is not None
    shown = card_text(card, Style(symbols=True))
    item = (
        "[...document.querySelectorAll('#events li')].find(li => li.querySelector('.ln')"
        f".textContent === '{draw.line}').querySelector('.what').textContent"
    )
    browser.load(f"{page.resolve().as_uri()}#line={draw.line}&show=0")
    assert browser.js(item) == f"seat 1 ({timeline.label(1)}) draws from the stock"
    assert shown not in browser.js("document.getElementById('event').textContent")
    browser.click("#show1")  # both seats' cards face up: the card is told
    assert browser.js(item).startswith(f"seat 1 ({timeline.label(1)}) draws {shown} from the stock")
    # Seat 0's own draws stay told while only seat 0's cards are shown.
    browser.click("#show1")
    mine = next(
        s
        for s in timeline.steps
        if s.kind == "decision" and s.seat == 0 and s.record["action"]["kind"] == "draw_stock"
    )
    own = item.replace(f"'{draw.line}'", f"'{mine.line}'")
    assert "draws from the stock" not in browser.js(own)


def test_the_page_fits_a_420_pixel_screen(pagat: tuple[Timeline, Path], browser: Browser) -> None:
    timeline, page = pagat
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
