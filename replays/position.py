"""``ginref replay LOG --at EVENT [--ask BOT]``: a recorded position, and a bot's answer, in words.

The position is the one the acting seat was asked about on line EVENT (a ``decision``, or a
decision ``fault``), as that seat saw it (:func:`referee.timeline.request_observation`; with three
players or partnerships the hand as a two-player hand from the seat's hand seat):
:func:`format_position`. :func:`format_answer` says what a live bot answered there
(:mod:`replays.ask`).
"""

from __future__ import annotations

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
    """The position of a recorded decision (or fault): the acting seat's request as it saw it,
    the scores, and what was recorded there. With three players or partnerships the hand is the
    seat's table's, from its hand seat, and the opponent is named."""
    obs = request_observation(step)
    assert obs is not None
    before = step.before
    seat = before.to_act
    assert seat is not None
    if before.hand is None:
        where = "before the first deal"
    else:
        where = f"hand {before.hand.number + 1}" + (
            f", table {obs.table}" if timeline.teams else ""
        )
    opponent = "opponent"
    if timeline.players > 2:
        table = before.table_of(seat)
        assert table is not None  # the seat to act plays at a table
        opponent = seat_name(timeline, table.seats[1 - obs.seat])
    lines = [
        style.bold(
            f"Position at line {step.line} ({where}): {seat_name(timeline, seat)} to act, "
            f"{phase_words(obs.phase)}"
        ),
        f"  hand:          {hand_line(obs.hand, style) if obs.hand else '-'}",
        f"  discard pile:  {cards_text(obs.discard_pile, style, sort=False)}"
        + ("  (top last)" if len(obs.discard_pile) > 1 else ""),
        f"  stock:         {obs.stock_size} cards · {opponent} holds {obs.opponent_hand_size}"
        + (f", known: {cards_text(obs.opponent_known, style)}" if obs.opponent_known else ""),
        f"  score:         {score_text(before.scores)}"
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
