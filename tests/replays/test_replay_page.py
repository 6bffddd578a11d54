"""The replay page's data without a browser, for two players, three and partnerships: small
beside its log, every frame in it, the tables as the engine has them, and written without
observing a position.

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
from tests.support.group_logs import group_match_log, group_rules
from tests.support.replay_helpers import (
    fake_match_log,
    page_data,
    rebuilt,
    records_of,
    unpacked,
)


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fake_match_log(tmp_path_factory.mktemp("long"))


@pytest.fixture(scope="module")
def timeline(long_log: Path) -> Timeline:
    return load_replay(long_log)


@pytest.fixture(scope="module")
def page(timeline: Timeline) -> str:
    return render_html(timeline)


@pytest.fixture(scope="module", params=[2, 3, 4])
def any_log(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of two players (a short match of fake players through the session), of three
    players or of partnerships (a pagat match: game bonus and boxes)."""
    players: int = request.param
    folder = tmp_path_factory.mktemp(f"page{players}")
    if players == 2:
        return fake_match_log(folder, target=30)
    rules = group_rules(players, "pagat")
    return group_match_log(folder / f"p{players}.jsonl", rules, seed=1 if players == 3 else 2)


@pytest.fixture(scope="module")
def any_timeline(any_log: Path) -> Timeline:
    return load_replay(any_log)


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_any_page_holds_its_seats_and_every_frame(any_timeline: Timeline, any_log: Path) -> None:
    page = render_html(any_timeline)
    data = page_data(page)
    players = any_timeline.players
    assert data["players"] == players and data["teams"] == (players == 4)
    assert [s["label"] for s in data["seats"]] == [
        any_timeline.label(seat) for seat in range(players)
    ]
    changes = unpacked(data["frames"])
    assert changes == as_json(frame_changes(any_timeline))
    frames = rebuilt(changes)
    assert frames == as_json(replay_frames(any_timeline))
    assert len(frames) == len(any_timeline.steps)
    end = records_of(any_log)[-1]
    assert frames[-1]["over"] and frames[-1]["scores"] == end["final"]
    # One frame for any number of players: the tables in play, one but with partnerships.
    assert all(set(frame) == set(frames[0]) for frame in frames)
    assert [len(frame["tables"]) for frame in frames][-1] == (2 if players == 4 else 1)
    assert "{{" not in page


def test_any_stock_draw_is_told_to_the_other_player_without_its_card(
    any_timeline: Timeline,
) -> None:
    draws = 0
    for step, frame in zip(any_timeline.steps, replay_frames(any_timeline), strict=True):
        kind = step.record["action"]["kind"] if step.kind == "decision" else None
        if kind == "draw_stock":
            draws += 1
            who = f"seat {step.seat} ({any_timeline.label(step.seat or 0)})"
            # With partnerships the text starts with the table: [table 1] seat 3 (...) draws...
            assert frame["public"] is not None and len(frame["public"]) == 1
            assert frame["public"][0].endswith(f"{who} draws from the stock")
            card = card_text(parse_card(frame["moved"]), Style(symbols=True))
            assert card not in frame["public"][0] and f"{who} draws {card} from" in frame["text"][0]
        elif kind in ("discard", "draw_discard", "pass"):
            assert frame["public"] is None  # the other player saw the whole move
    assert draws > 20


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
    # After the first frame, a decision's change names a few fields, not the whole table: its
    # cards that moved and a field or two that changed with them.
    decisions = [c for c, s in zip(changes, timeline.steps, strict=True) if s.kind == "decision"]
    assert all("tables" not in c for c in decisions)
    assert sum(len(c) for c in decisions) < 8 * len(decisions)
    moved = [d for c in decisions for d in c.get("tablesDiff", []) if d is not None]
    assert len(moved) > len(decisions) // 2 and not any("set" in d for d in moved)
    assert sum(len(d) for d in moved) < 4 * len(moved)


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


def test_each_frame_shows_the_tables_as_the_engine_has_them(any_timeline: Timeline) -> None:
    players = any_timeline.players
    changes = frame_changes(any_timeline)
    for step, frame, change in zip(
        any_timeline.steps, replay_frames(any_timeline), changes, strict=True
    ):
        assert frame["line"] == step.line and frame["kind"] == step.kind
        # With three players the seat that dealt the hand on view sits out; two or four seat
        # every player (with partnerships, for a record between a round's two deals, too).
        seated = [s for table in frame["tables"] for s in table["seats"]]
        out = 3 - sum(seated) if players == 3 and seated else None
        assert frame["sittingOut"] == out
        if step.kind != "decision" or step.played is None:
            continue
        # A decision's change names its table's cards that moved, not the whole tables.
        assert "tables" not in change
        moved = [d for d in change.get("tablesDiff", []) if d is not None]  # none: a pass
        assert len(moved) <= 1 and not {"hands", "pile", "set"} & set(*moved)
        table = frame["tables"][step.table]
        seats = step.seats
        assert table["seats"] == list(seats) and table["hand"] == step.hand
        for hand_seat in (0, 1):
            held = [card_str(c) for c in cards_of(step.played.held(hand_seat))]
            assert table["hands"][hand_seat] == held
        assert table["pile"] == [card_str(c) for c in step.played.pile]
        assert table["stock"] == step.played.stock_size
        assert frame["actor"] == step.seat and frame["scores"] == list(step.after.scores)
        assert frame["round"] == ((step.hand + 1) // 2 if players == 4 else None)
