"""The replay page's data without a browser: small beside its log, every frame in it, the table
as the engine has it, and written without observing the position at every record.

The page holds each frame as what changed since the one before, deflated
(:func:`replays.html.frame_changes`); its script rebuilds the frames. ``rebuilt`` in
tests/support/replay_helpers.py does what that script does, so that these tests need no browser;
test_replay_html.py checks the script's own frames against :func:`replays.html.replay_frames` in
headless Chromium.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.engine.cards import card_str, cards_of, parse_card
from referee.engine.observation import Observation, observe_seat
from referee.timeline import Timeline, load_replay
from replays.html import frame_changes, render_html, replay_frames
from replays.words import Style, card_text
from tests.support.replay_helpers import fake_match_log, page_data, rebuilt, unpacked


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fake_match_log(tmp_path_factory.mktemp("long"))


@pytest.fixture(scope="module")
def timeline(long_log: Path) -> Timeline:
    return load_replay(long_log)


@pytest.fixture(scope="module")
def page(timeline: Timeline) -> str:
    return render_html(timeline)


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_the_page_is_small_beside_its_log(long_log: Path, timeline: Timeline, page: str) -> None:
    # Long enough that the page's styles and script are a small part of it.
    assert len(timeline.steps) > 1000
    size = long_log.stat().st_size
    # Whole frames were some 3.5 times the log: both hands, the pile and the text per record.
    assert len(page_data(page)["frames"]["deflate"]) < 0.3 * size
    assert len(page.encode("utf-8")) < 0.5 * size


def test_the_page_holds_every_frame(timeline: Timeline, page: str) -> None:
    changes = unpacked(page_data(page)["frames"])
    assert changes == as_json(frame_changes(timeline))
    frames = as_json(replay_frames(timeline))
    assert rebuilt(changes) == frames
    assert len(frames) == len(timeline.steps)
    # After the first frame, a decision's change names a few fields, not the whole table.
    decisions = [c for c, s in zip(changes, timeline.steps, strict=True) if s.kind == "decision"]
    assert all("hands" not in c and "pile" not in c for c in decisions)
    assert sum(len(c) for c in decisions) < 8 * len(decisions)


def test_each_frame_shows_the_table_as_the_engine_has_it(timeline: Timeline) -> None:
    for step, frame in zip(timeline.steps, replay_frames(timeline), strict=True):
        assert frame["line"] == step.line and frame["kind"] == step.kind
        hand = step.played
        if step.kind != "decision" or hand is None:
            continue
        held = [[card_str(c) for c in cards_of(hand.held(seat))] for seat in (0, 1)]
        assert frame["hands"] == held
        assert frame["pile"] == [card_str(c) for c in hand.pile]
        assert frame["stock"] == hand.stock_size and frame["actor"] == step.seat


def test_a_stock_draw_is_told_to_the_other_seat_without_its_card(timeline: Timeline) -> None:
    frames = replay_frames(timeline)
    draws = 0
    for step, frame in zip(timeline.steps, frames, strict=True):
        kind = step.record["action"]["kind"] if step.kind == "decision" else None
        if kind == "draw_stock":
            draws += 1
            who = f"seat {step.seat} ({timeline.label(step.seat or 0)})"
            assert frame["public"] == [f"{who} draws from the stock"]
            card = card_text(parse_card(frame["moved"]), Style(symbols=True))
            assert frame["text"][0].startswith(f"{who} draws {card} from the stock")
        elif kind in ("discard", "draw_discard", "pass"):
            assert frame["public"] is None  # the other seat saw the whole move
    assert draws > 100


def test_writing_a_page_observes_no_position(
    timeline: Timeline, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deal's text shows the hands from the engine's hand, a decision's text the record's
    events by the rule observe applies to them: writing the page observes no position (a whole
    observation copies every event of the hand; one per record made long pages slow)."""
    calls = 0

    def counted(match: Any, seat: int) -> Observation:
        nonlocal calls
        calls += 1
        return observe_seat(match, seat)

    # The texts' one observation: a seat's request, which a page does not show.
    monkeypatch.setattr("replays.view.observe_seat", counted)
    monkeypatch.setattr("referee.engine.observation.observe", counted)
    render_html(timeline)
    assert calls == 0
