"""Pure formatting of match outcomes for the command line (no printing here)."""

from __future__ import annotations

from referee.game import HandOutcome, HandResult, Termination
from referee.match_runner import MatchOutcome

_TERMINATION_TEXT = {
    Termination.TARGET: "target reached",
    Termination.SINGLE_HAND: "single hand",
    Termination.HOLLYWOOD: "Hollywood: three games settled",
    Termination.FORFEIT: "forfeit",
}


def seat_name(outcome: MatchOutcome, seat: int) -> str:
    """The bot's own name (its Hello) if it connected, else its label."""
    info = outcome.seats[seat]
    return info.name or info.label


def format_hand_row(result: HandResult) -> str:
    """One row of the hand table."""
    outcome = result.outcome.value
    if result.outcome is HandOutcome.DEAD and result.dead_reason:
        outcome = f"dead ({result.dead_reason})"
    winner = "-" if result.winner is None else str(result.winner)
    score = f"{result.scores_after[0]}-{result.scores_after[1]}"
    return f"{result.number + 1:>5}  {result.dealer:>6}  {outcome:<24}  {winner:>6}  " + (
        f"{result.points:>6}  {score:>9}"
    )


def format_result_line(outcome: MatchOutcome) -> str:
    """``Result: seat 0 (name) wins 104-37 ...`` or a draw."""
    result = outcome.result
    final = f"{result.final[0]}-{result.final[1]}"
    how = _TERMINATION_TEXT[result.termination]
    if result.winner is None:
        return f"Result: no winner; final score {final} (seat 0-seat 1) ({how})"
    name = seat_name(outcome, result.winner)
    line = (
        f"Result: seat {result.winner} ({name}) wins; final score {final} (seat 0-seat 1), "
        f"margin {result.margin} ({how})"
    )
    if outcome.forfeit is not None:
        line += f"\nForfeit: {outcome.forfeit.describe()}"
    return line


def format_match_outcome(outcome: MatchOutcome) -> str:
    """The whole report that ``ginref match`` prints."""
    lines = [f"Match {outcome.match_id}: {outcome.rules.profile_name}, seed {outcome.seed}"]
    for seat, info in enumerate(outcome.seats):
        shown = seat_name(outcome, seat)
        version = f" {info.version}" if info.version else ""
        lines.append(f"  seat {seat}: {shown}{version}  [{' '.join(info.command)}]")
    lines.append("")
    if outcome.hand_results:
        lines.append(" Hand  Dealer  Outcome                   Winner  Points      Score")
        lines.extend(format_hand_row(r) for r in outcome.hand_results)
    else:
        lines.append("No hand was completed.")
    lines.append("")
    lines.append(format_result_line(outcome))
    other = [f for f in outcome.faults if f is not outcome.forfeit]
    for fault in other:
        retry = " (retried)" if fault.retry else ""
        lines.append(f"Fault{retry}: {fault.describe()}")
    lines.append(f"Log: {outcome.log_path}")
    lines.append("Bot output: " + ", ".join(str(s.output) for s in outcome.seats))
    return "\n".join(lines)
