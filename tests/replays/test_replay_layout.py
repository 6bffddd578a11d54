"""The partnership replay page on a laptop's window (1300 x 1000) in headless Chromium: at a draw,
a discard at each table and a showdown, the event box is in view, each discard pile is readable
and says how many cards it holds, and a spectator can tell the table that moved from the one
that acts next.

Measured with getBoundingClientRect in the page as drawn; screenshots go to test-artifacts/.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.timeline import Step, Timeline, load_replay
from tests.support.browser import Browser

pytestmark = pytest.mark.slow  # a real browser

PARTNERS = Path(__file__).resolve().parents[1] / "data" / "golden" / "logs" / "partners.jsonl"
WIDTH, HEIGHT = 1300, 1000
# A card narrower than this, or a corner in a smaller font, cannot be read at a glance.
CARD_PX, FONT_PX = 24, 12


@pytest.fixture(scope="module")
def timeline() -> Timeline:
    return load_replay(PARTNERS)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("layout") / "partners.html"
    result = CliRunner().invoke(main, ["replay", str(PARTNERS), "--html", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with Browser(tmp_path_factory.mktemp("profile"), WIDTH, HEIGHT) as b:
        yield b


def _action(step: Step) -> str | None:
    return str(step.record["action"]["kind"]) if step.kind == "decision" else None


def _next_decision(timeline: Timeline, step: Step) -> Step | None:
    later = timeline.steps[timeline.steps.index(step) + 1 :]
    return next((s for s in later if s.kind == "decision"), None)


def _steps(timeline: Timeline) -> dict[str, Step]:
    """A stock draw and a discard at each table, both tables in play (the to-act badge and the
    move are at different tables), and a showdown (results come when both tables are done)."""
    steps = timeline.steps
    # Late enough in the first round that both piles hold more cards than the page draws.
    middle = [s for s in steps if s.hand in (1, 2) and s.line > 40]
    chosen = {
        "draw": next(s for s in middle if _action(s) == "draw_stock"),
        "discard at table 0": next(s for s in middle if _action(s) == "discard" and s.table == 0),
        "discard at table 1": next(s for s in middle if _action(s) == "discard" and s.table == 1),
    }
    chosen["showdown"] = next(s for s in steps if s.kind == "hand_result")
    return chosen


# Each felt's pile: its cards' boxes (bottom to top), each card's corner (box and text), the
# count the pile shows, and whatever covers the bottom of the window (the sticky controls).
_MEASURE = """(() => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                             width: r.width}; };
  const piles = {};
  for (const felt of document.querySelectorAll('.felt')) {
    const pile = felt.querySelector('.pile');
    const cards = [...pile.querySelectorAll('.card')].map(c => {
      const corner = c.querySelector('.corner');
      return {code: c.dataset.card, box: box(c), corner: box(corner),
              text: corner.textContent,
              font: parseFloat(getComputedStyle(corner).fontSize),
              hidden: getComputedStyle(corner).visibility !== 'visible'};
    });
    const count = felt.querySelector('.pile-count');
    piles[felt.id] = {cards, count: count ? count.textContent : null,
                      countShown: count ? count.offsetParent !== null : false};
  }
  return {event: box(document.getElementById('event')),
          controls: box(document.getElementById('controls')),
          viewport: [innerWidth, innerHeight], scrollY: scrollY, piles};
})()"""


def _corner(code: str) -> str:
    return ("10" if code[0] == "T" else code[0]) + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[code[1]]


@pytest.mark.parametrize("moment", ["draw", "discard at table 0", "discard at table 1", "showdown"])
def test_a_partnership_page_reads_on_a_laptop(
    moment: str, timeline: Timeline, page: Path, browser: Browser
) -> None:
    step = _steps(timeline)[moment]
    browser.load(f"{page.resolve().as_uri()}#line={step.line}")
    assert browser.js("document.body.dataset.line") == str(step.line)
    browser.screenshot(f"replay-1300-{moment.replace(' ', '-')}.png")
    seen = browser.js(_MEASURE)
    width, height = seen["viewport"]
    assert (width, height) == (WIDTH, HEIGHT) and seen["scrollY"] == 0
    # Above the fold: neither cut by the window's bottom nor under the sticky controls.
    fold = min(height, seen["controls"]["top"])
    event = seen["event"]
    assert event["top"] >= 0 and event["bottom"] <= fold, (event, fold)
    assert event["left"] >= 0 and event["right"] <= width

    assert set(seen["piles"]) == {"table0", "table1"}  # both deals of the round are on view
    for felt, pile in seen["piles"].items():
        cards = pile["cards"]
        held = browser.js(
            f"FRAMES[{timeline.steps.index(step)}].tables"
            f".find(t => 'table' + t.table === '{felt}').pile.length"
        )
        # The count the pile holds, in words, whether or not every card is drawn.
        assert pile["countShown"] and pile["count"] == f"{held} cards", (felt, pile["count"])
        assert cards, felt  # every chosen moment has cards in both piles
        # Each card drawn shows its rank and suit: the top one whole, each one under it as
        # far as the card on it leaves its corner uncovered.
        for card in cards:
            assert card["text"] == _corner(card["code"]) and not card["hidden"]
            assert card["font"] >= FONT_PX
        for lower, upper in itertools.pairwise(cards):
            assert upper["box"]["left"] >= lower["corner"]["right"], (felt, lower["code"])
        top = cards[-1]
        assert top["box"]["width"] >= CARD_PX
        assert top["box"]["top"] >= 0 and top["box"]["bottom"] <= fold, (felt, top, fold)

    # The move is outlined at its own table, which says so; the seat to act next is marked at
    # its table, and only there.
    moved_at = browser.js(
        "[...document.querySelectorAll('.card.moved')].map(c => c.closest('.felt').id)"
    )
    last = browser.js("[...document.querySelectorAll('.felt.last-move')].map(f => f.id)")
    if step.kind == "decision":
        assert set(moved_at) <= {f"table{step.table}"} and last == [f"table{step.table}"]
        assert bool(moved_at) == (_action(step) != "pass")
    else:
        assert moved_at == [] and last == []
    following = _next_decision(timeline, step)
    assert following is not None
    # Nobody is to act at a table whose hand is over: the seat that acts next may be in a hand
    # not dealt yet.
    on_view = browser.js(
        f"FRAMES[{timeline.steps.index(step)}].tables.find(t => t.table === {following.table}).hand"
    )
    expected = [[f"seat{following.seat}", f"table{following.table}", True]]
    acting = browser.js(
        "[...document.querySelectorAll('.seat.to-act')]"
        ".map(s => [s.id, s.closest('.felt').id, s.querySelector('.badge.turn') !== null])"
    )
    assert acting == (expected if on_view == following.hand else [])
    assert step.kind == "hand_result" or on_view == following.hand  # the badge is tested
