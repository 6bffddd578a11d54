"""Pure formatting for the command line: matches, tournament progress and standings (no printing
here)."""

from __future__ import annotations

from referee.engine.outcomes import HandOutcome, HandResult, Termination
from referee.faults import Fault
from referee.results import MatchOutcome
from tournaments.runner import Progress, RunResult
from tournaments.standings import BotStanding, DuplicatePairing, HeadToHead, Standings

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


def forfeits(outcome: MatchOutcome) -> tuple[Fault, ...]:
    """The faults that forfeited the match, in seat order: none, one, or both seats'."""
    faults = outcome.forfeits or ((outcome.forfeit,) if outcome.forfeit is not None else ())
    return tuple(sorted(faults, key=lambda f: f.seat))


def format_result_line(outcome: MatchOutcome) -> str:
    """``Result: seat 0 (name) wins 104-37 ...``, no winner, or both seats forfeit."""
    result = outcome.result
    final = f"{result.final[0]}-{result.final[1]}"
    how = _TERMINATION_TEXT[result.termination]
    if result.termination is Termination.FORFEIT and result.winner is None:
        lines = [f"Result: both seats forfeit, no winner; final score {final} (seat 0-seat 1)"]
        lines.extend(f"Forfeit: {fault.describe()}" for fault in forfeits(outcome))
        return "\n".join(lines)
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
    forfeited = forfeits(outcome)
    other = [f for f in outcome.faults if all(f is not g for g in forfeited)]
    for fault in other:
        retry = " (retried)" if fault.retry else ""
        lines.append(f"Fault{retry}: {fault.describe()}")
    for seat, status in enumerate(outcome.exits):
        if status is not None:
            lines.append(f"Exit: seat {seat} ({seat_name(outcome, seat)}): {status.reason}")
    lines.append(f"Log: {outcome.log_path}")
    lines.append("Bot output: " + ", ".join(str(s.output) for s in outcome.seats))
    return "\n".join(lines)


# --- tournaments ------------------------------------------------------------------------------


def format_duration(seconds: float | None) -> str:
    """``h:mm:ss`` or ``m:ss``; ``-`` when unknown."""
    if seconds is None or seconds != seconds:
        return "-"
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _elo(s: BotStanding) -> str:
    if s.elo is None or s.elo_low is None or s.elo_high is None:
        return "-"
    return f"{s.elo:+.0f} [{s.elo_low:+.0f}, {s.elo_high:+.0f}]"


def format_standings_table(standings: Standings) -> str:
    """The standings as a fixed-width table, one line per bot."""
    width = max([len("Bot"), *(len(s.name) for s in standings.bots)])
    head = (
        f"{'#':>2}  {'Bot':<{width}}  {'Played':>6}  {'W':>4} {'L':>4} {'D':>3}  {'Points':>6}  "
        f"{'%':>5}  {'Elo [95% interval]':<22}  {'Score +/-':>13}  {'Hand pts +/-':>13}  "
        f"{'Hands won':>9}  {'Gins':>4}  {'Under':>5}  {'Faults':>6}  {'Think ms':>8}"
    )
    lines = [head]
    for s in standings.bots:
        faults = ", ".join(f"{k} {v}" for k, v in s.faults.items() if v)
        lines.append(
            f"{s.rank:>2}  {s.name:<{width}}  {s.matches:>6}  {s.wins:>4} {s.losses:>4} "
            f"{s.draws:>3}  {s.points:>6g}  {_num(s.score_pct, 1):>5}  {_elo(s):<22}  "
            f"{f'{s.score_for}/{s.score_against}':>13}  "
            f"{f'{s.hand_points_for}/{s.hand_points_against}':>13}  "
            f"{f'{s.hands_won}/{s.hands}':>9}  {s.gins:>4}  {s.undercuts:>5}  "
            f"{s.fault_total:>6}  {_num(s.mean_think_ms, 2):>8}"
            + (f"  ({faults})" if faults else "")
        )
    return "\n".join(lines)


def format_crosstable(standings: Standings) -> str:
    """Head to head: the row bot's wins-draws-losses against each column bot."""
    names = [s.name for s in standings.bots]
    width = max(len(n) for n in names)
    cells = {
        (a, b): ("x" if a == b else _h2h(standings.head_to_head[(a, b)]))
        for a in names
        for b in names
    }
    col = max(8, *(len(c) for c in cells.values()), *(len(n) for n in names))
    lines = [" " * width + "  " + "  ".join(f"{n:>{col}}" for n in names)]
    for a in names:
        lines.append(f"{a:<{width}}  " + "  ".join(f"{cells[(a, b)]:>{col}}" for b in names))
    return "\n".join(lines)


def _h2h(h: HeadToHead) -> str:
    return "-" if not h.matches else f"{h.wins}-{h.draws}-{h.losses}"


def format_duplicate(standings: Standings) -> str:
    """Duplicate pairs: paired totals per pairing and the interval they give."""
    lines = [
        "Duplicate deals (each deal played twice, seats swapped; X minus Y, final score per match)"
    ]
    for d in standings.duplicate:
        ci_p = "-" if d.paired_ci is None else f"[{d.paired_ci[0]:+.1f}, {d.paired_ci[1]:+.1f}]"
        ci_u = (
            "-" if d.unpaired_ci is None else f"[{d.unpaired_ci[0]:+.1f}, {d.unpaired_ci[1]:+.1f}]"
        )
        narrowing = compare_intervals(d)
        mean = "-" if d.mean_diff is None else f"{d.mean_diff:+.1f}"
        lines.append(
            f"  {d.x} v {d.y}: {len(d.pairs)} deal pairs, X won {d.x_pair_wins}, split "
            f"{d.split}, Y won {d.y_pair_wins}; mean {mean}, paired 95% {ci_p}, as if "
            f"independent {ci_u} ({narrowing})"
        )
        if d.unpaired_matches:
            lines.append(f"    ({d.unpaired_matches} matches wait for their partner)")
    return "\n".join(lines)


def compare_intervals(d: DuplicatePairing) -> str:
    """The paired interval's width against the unpaired one's, in words that follow the
    numbers: narrower only when it is."""
    if d.paired_ci is None or d.unpaired_ci is None:
        return "-"
    paired = d.paired_ci[1] - d.paired_ci[0]
    unpaired = d.unpaired_ci[1] - d.unpaired_ci[0]
    if paired <= 0:
        return "both of zero width" if unpaired <= 0 else "paired of zero width"
    ratio = unpaired / paired
    if round(ratio, 2) == 1:
        return "paired as wide"
    if ratio > 1:
        return f"paired {ratio:.2f}x narrower"
    return f"paired {1 / ratio:.2f}x wider"


def format_standings(standings: Standings) -> str:
    """The whole standings report: table, head to head, duplicate pairs."""
    title = f"Standings: {standings.name}, {standings.done} of {standings.total} matches"
    parts = [title, "", format_standings_table(standings), "", "Head to head (row: W-D-L)"]
    parts.append(format_crosstable(standings))
    if standings.duplicate:
        parts += ["", format_duplicate(standings)]
    if standings.rating_note:
        parts += ["", standings.rating_note]
    parts += [f"Note: {note}" for note in standings.rating_notes]
    return "\n".join(parts)


def format_progress(p: Progress, width: int = 24) -> str:
    """One progress-bar line: matches done, running, ETA and the current leader."""
    filled = 0 if not p.total else round(width * p.done / p.total)
    bar = "#" * filled + "-" * (width - filled)
    leader = "-"
    if p.leader is not None:
        name, points, games = p.leader
        leader = f"{name} {points:g}/{games}"
    return (
        f"[{bar}] {p.done}/{p.total} done, {p.running} running, "
        f"ETA {format_duration(p.eta)}, leader {leader}"
    )


def format_match_line(p: Progress) -> str:
    """One line per finished match (when the output is not a terminal)."""
    r = p.last
    assert r is not None
    what = "no winner" if r.winner is None else f"{r.seats[r.winner]} wins"
    forfeit = ""
    if r.forfeit is not None:
        who = "both" if r.forfeit.seat is None else r.seats[r.forfeit.seat]
        forfeit = f", forfeit: {who} {r.forfeit.kind}"
    return (
        f"[{p.done}/{p.total}] {r.key}: {r.seats[0]} v {r.seats[1]} "
        f"{r.final[0]}-{r.final[1]}, {what}{forfeit}"
    )


def format_run_result(result: RunResult) -> str:
    """What a run did: matches, time, throughput, where the files are."""
    rate = 60.0 * result.played / result.wall if result.wall > 0 else 0.0
    head = {
        "complete": "Tournament complete",
        "interrupted": "Interrupted",
        "failed": "Failed",
    }[result.status]
    lines = [
        f"{head}: {result.done} of {result.total} matches in the journal; this run played "
        f"{result.played} in {format_duration(result.wall)} ({rate:.1f} matches/min, "
        f"-j {result.concurrency}; referee CPU {100 * result.cpu / max(result.wall, 1e-9):.0f}% "
        "of wall time)"
    ]
    if result.status == "interrupted":
        lines.append("Run the same command again to resume; finished matches are kept.")
    lines.append(f"Directory: {result.directory}")
    return "\n".join(lines)
