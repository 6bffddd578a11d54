"""The replay page of three players and partnerships, without a browser: the frames it holds,
each table as the engine has it, and the scores at the end.

``rebuilt`` in tests/support/replay_helpers.py does what the page's script does with the
changes; test_group_html.py checks the script itself in headless Chromium.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.engine.cards import card_str, cards_of, parse_card
from referee.timeline import GroupTimeline, load_any_replay
from replays.group_html import group_frame_changes, group_frames
from replays.html import render_html, showdown_data
from replays.words import Style, card_text
from tests.support.group_logs import group_match_log, group_rules
from tests.support.replay_helpers import (
    fake_match_log,
    page_data,
    rebuilt,
    records_of,
    unpacked,
)


@pytest.fixture(scope="module", params=[3, 4])
def log(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    players: int = request.param
    folder = tmp_path_factory.mktemp(f"page{players}")
    rules = group_rules(players, "pagat")
    return group_match_log(folder / f"p{players}.jsonl", rules, seed=1 if players == 3 else 2)


@pytest.fixture(scope="module")
def timeline(log: Path) -> GroupTimeline:
    loaded = load_any_replay(log)
    assert isinstance(loaded, GroupTimeline)
    return loaded


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def showdown(result: Any) -> dict[str, Any]:
    """A stand-in for the two-player page's showdown: the frames only name its fields."""
    return {"verdict": ["wins", "score"]}


def test_the_page_holds_every_frame(timeline: GroupTimeline, log: Path, tmp_path: Path) -> None:
    page = render_html(timeline)
    data = page_data(page)
    assert data["players"] == timeline.players and data["teams"] == timeline.teams
    assert [s["label"] for s in data["seats"]] == [b["label"] for b in records_of(log)[0]["bots"]]
    changes = unpacked(data["frames"])
    frames = rebuilt(changes)
    assert frames == as_json(group_frames(timeline, lambda r: showdown_data(timeline, r)))
    assert len(frames) == len(timeline.steps)
    # The script that draws more seats is in this page, and only in such a page.
    assert "{{GROUP}}" not in page and "GROUP = (() =>" in page
    two = load_any_replay(fake_match_log(tmp_path, target=10))
    assert "GROUP = (() =>" not in render_html(two)
    # A decision's change names its table's cards that moved, not the whole tables.
    decisions = [c for c, s in zip(changes, timeline.steps, strict=True) if s.kind == "decision"]
    for change in decisions:
        assert "tables" not in change
        moved = [d for d in change.get("tablesDiff", []) if d is not None]  # none: a pass
        assert len(moved) <= 1
        assert not {"hands", "pile", "set"} & set(*moved)
    assert sum("tablesDiff" in c for c in decisions) > 0.9 * len(decisions)


def test_the_changes_rebuild_the_frames(timeline: GroupTimeline) -> None:
    changes = group_frame_changes(timeline, showdown)
    assert rebuilt(as_json(changes)) == as_json(group_frames(timeline, showdown))


def test_each_frame_shows_the_tables_as_the_engine_has_them(
    timeline: GroupTimeline, log: Path
) -> None:
    frames = group_frames(timeline, showdown)
    for step, frame in zip(timeline.steps, frames, strict=True):
        assert frame["line"] == step.line and frame["kind"] == step.kind
        if step.kind != "decision" or step.played is None:
            continue
        table = frame["tables"][step.table]
        assert table["seats"] == list(step.seats) and table["hand"] == step.hand
        for hand_seat in (0, 1):
            held = [card_str(c) for c in cards_of(step.played.held(hand_seat))]
            assert table["hands"][hand_seat] == held
        assert table["pile"] == [card_str(c) for c in step.played.pile]
        assert frame["actor"] == step.seat and frame["scores"] == list(step.after.scores)
        if timeline.teams:
            assert frame["sittingOut"] is None and frame["round"] == (step.hand + 1) // 2
        else:
            assert frame["sittingOut"] == 3 - sum(step.seats)
    end = records_of(log)[-1]
    assert frames[-1]["over"] and frames[-1]["scores"] == end["final"]


def test_a_stock_draw_is_told_to_the_other_player_without_its_card(
    timeline: GroupTimeline,
) -> None:
    draws = 0
    for step, frame in zip(timeline.steps, group_frames(timeline, showdown), strict=True):
        kind = step.record["action"]["kind"] if step.kind == "decision" else None
        if kind == "draw_stock":
            draws += 1
            assert frame["public"] is not None
            assert frame["public"][-1].endswith(f"{step.seat} ({timeline.label(step.seat or 0)})"
                                                " draws from the stock")  # fmt: skip
            card = card_text(parse_card(frame["moved"]), Style(symbols=True))
            assert card not in " ".join(frame["public"]) and card in frame["text"][0]
        elif kind in ("discard", "draw_discard"):
            assert frame["public"] is None
    assert draws > 20
