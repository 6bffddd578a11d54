"""``ginref replay LOG --at EVENT [--ask BOT]``: a recorded position, and a bot's answer, in words.

The position is the one the acting seat was asked about on line EVENT (a ``decision``, or a
decision ``fault``), as that seat saw it: :func:`format_position` for two players (from
:func:`referee.timeline.request_observation`), :func:`format_group_position` for three players
or partnerships (from :func:`referee.engine.observation.observe_seat`, the hand as a two-player
hand from the seat's hand seat). :func:`format_answer` says what a live bot answered there
(:mod:`replays.ask`).
"""

from __future__ import annotations

from referee.engine.observation import observe_seat
from referee.errors import GinRefError
from referee.timeline import Step, Timeline, request_observation
from replays.ask import Answer
from replays.words import (
    PLAIN,
    Style,
    action_text,
    cards_text,
    hand_line,
    legal_text,
    phase_words,
    score_text,
    seat_name,
    think_text,
)


def format_position(timeline: Timeline, step: Step, style: Style = PLAIN) -> list[str]:
    """The position of a recorded decision (or fault): the acting seat's request, the scores and
    what was recorded there."""
    obs = request_observation(step)
    assert obs is not None
    seat = obs.seat
    before = step.before
    hand = "before the first deal" if before.hand is None else f"hand {before.hand.number + 1}"
    lines = [
        style.bold(
            f"Position at line {step.line} ({hand}): {seat_name(timeline, seat)} to act, "
            f"{phase_words(obs.phase)}"
        ),
        f"  hand:          {hand_line(obs.hand, style) if obs.hand else '-'}",
        f"  discard pile:  {cards_text(obs.discard_pile, style, sort=False)}"
        + ("  (top last)" if len(obs.discard_pile) > 1 else ""),
        f"  stock:         {obs.stock_size} cards · opponent holds {obs.opponent_hand_size}"
        + (f", known: {cards_text(obs.opponent_known, style)}" if obs.opponent_known else ""),
        f"  score:         {score_text(obs.scores)} · knock limit {obs.knock_limit}",
        f"  legal:         {legal_text(obs.legal_actions, style)}",
    ]
    r = step.record
    if step.kind == "decision" and step.action is not None:
        lines.append(f"Recorded:        {action_text(step.action, style)}{think_text(r, style)}")
    elif step.kind == "fault":
        lines.append(f"Recorded:        fault {r['kind']} ({r['rule']}): {r['reason']}")
    return lines


def format_answer(step: Step, command: str, answer: Answer, style: Style = PLAIN) -> list[str]:
    """What a live bot answered in a recorded position, and how it compares with the log."""
    lines = [f"Asked:           {command}  ({answer.bot}, connected in {answer.connect_s:.2f} s)"]
    if answer.action is None:
        lines.append(
            f"Answer:          malformed after {answer.think_ms:.1f} ms: {answer.malformed}"
        )
        return lines
    text = f"Answer:          {action_text(answer.action, style)} in {answer.think_ms:.1f} ms"
    if answer.illegal is not None:
        lines.append(f"{text}: illegal here ({answer.illegal})")
        return lines
    same = step.kind == "decision" and step.action == answer.action
    if step.kind == "decision":
        text += ": legal; " + ("the same as recorded" if same else "not the recorded action")
    else:
        text += ": legal"
    lines.append(text)
    return lines


def format_group_position(timeline: Timeline, step: Step, style: Style = PLAIN) -> list[str]:
    """The position of a recorded decision (or fault): the acting seat's request as it saw it,
    the scores, and what was recorded there."""
    seat = step.before.to_act
    assert seat is not None
    obs = observe_seat(step.before, seat)
    table = step.before.table_of(seat)
    assert table is not None  # the seat to act plays at a table
    opponent = table.seats[1 - obs.seat]
    where = f", table {obs.table}" if timeline.teams else ""
    lines = [
        style.bold(
            f"Position at line {step.line} (hand {obs.hand_number + 1}{where}): "
            f"{seat_name(timeline, seat)} to act, {phase_words(obs.phase)}"
        ),
        f"  hand:          {hand_line(obs.hand, style) if obs.hand else '-'}",
        f"  discard pile:  {cards_text(obs.discard_pile, style, sort=False)}"
        + ("  (top last)" if len(obs.discard_pile) > 1 else ""),
        f"  stock:         {obs.stock_size} cards · {seat_name(timeline, opponent)} holds "
        f"{obs.opponent_hand_size}"
        + (f", known: {cards_text(obs.opponent_known, style)}" if obs.opponent_known else ""),
        f"  score:         {score_text(step.before.scores)}"
        + (" (teams)" if timeline.teams else "")
        + f" · knock limit {obs.knock_limit}",
        f"  legal:         {legal_text(obs.legal_actions, style)}",
    ]
    r = step.record
    if step.kind == "decision" and step.action is not None:
        lines.append(f"Recorded:        {action_text(step.action, style)}{think_text(r, style)}")
    elif step.kind == "fault":
        lines.append(f"Recorded:        fault {r['kind']} ({r['rule']}): {r['reason']}")
    return lines


def group_position_at(timeline: Timeline, line: int) -> Step:
    """The step of line ``line`` if a seat was asked a decision there; else a clear error."""
    step = timeline.step_at(line)
    if step is None:
        raise GinRefError(
            f"--at {line}: no such event; the log's records are lines 1 to {timeline.last_line} "
            "(ginref replay shows each event's line number)"
        )
    if step.kind not in ("decision", "fault") or step.before.to_act != step.seat:
        following = next(
            (s.line for s in timeline.steps if s.line > line and s.kind == "decision"), None
        )
        hint = f"; the next decision is line {following}" if following else ""
        what = step.kind if step.kind != "fault" else "fault outside a decision"
        raise GinRefError(
            f"--at {line}: line {line} is a {what} record, not a decision a seat was asked{hint}"
        )
    return step
