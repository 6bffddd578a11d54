"""Pure formatting for the command line: matches, tournament progress and standings (no printing
here)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.engine.outcomes import HandOutcome, HandResult, Termination
from referee.faults import Fault, FaultKind
from referee.results import MatchOutcome
from replays.words import place_text
from tournaments.journal.records import MatchRecord
from tournaments.results.standings import BotStanding, DuplicatePairing, HeadToHead, Standings

# The runner (and through it the referee's series and server) is named in annotations only,
# and the bots' check where a bot never started: ginref standings, report and live format with
# this module and would otherwise pay for them at their start.
if TYPE_CHECKING:
    from tournaments.runner import Progress, RunResult

_TERMINATION_TEXT = {
    Termination.TARGET: "target reached",
    Termination.SINGLE_HAND: "single hand",
    Termination.HOLLYWOOD: "Hollywood: three games settled",
    Termination.FORFEIT: "forfeit",
}


def seat_name(outcome: MatchOutcome, seat: int) -> str:
    """The seat's label (``greedy_bot``), as its log, the replay and the tournament name it; the
    name the bot gives itself is shown once, beside its seat (:func:`format_match_outcome`)."""
    return outcome.seats[seat].label


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
        lines = [
            "Result: both seats forfeit, no winner (a loss for each); hand points as they "
            f"stood {final} (seat 0-seat 1)"
        ]
        lines.extend(f"Forfeit: {fault.describe()}" for fault in forfeits(outcome))
        return "\n".join(lines)
    if result.termination is Termination.FORFEIT and result.winner is not None:
        loser = 1 - result.winner
        return (
            f"Result: seat {result.winner} ({seat_name(outcome, result.winner)}) wins by "
            f"forfeit: seat {loser} ({seat_name(outcome, loser)}) forfeits and loses; hand "
            f"points as they stood {final} (seat 0-seat 1), margin {result.margin}"
            + ("" if outcome.forfeit is None else f"\nForfeit: {outcome.forfeit.describe()}")
        )
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


def format_group_hand_row(result: HandResult, teams: bool) -> str:
    """One row of the hand table of three players or partnerships, in match seats: who played,
    at which table, who dealt (with three players the dealer sits the hand out), who won."""
    outcome = result.outcome.value
    if result.outcome is HandOutcome.DEAD and result.dead_reason:
        outcome = f"dead ({result.dead_reason})"
    winner = "-" if result.winner is None else str(result.seats[result.winner])
    played = f"{result.seats[0]} v {result.seats[1]}"
    dealer = str(result.seats[result.dealer] if teams else 3 - sum(result.seats))
    table = f"{result.table:>5}  " if teams else ""
    # Partnerships score by round (R10.2): the teams' total shows on the row of the round's
    # second table, not already on the first's.
    score = "" if teams and result.table == 0 else "-".join(map(str, result.scores_after))
    return f"{result.number + 1:>5}  {table}{played:>6}  {dealer:>6}  {outcome:<24}  " + (
        f"{winner:>6}  {result.points:>6}  {score:>11}".rstrip()
    )


def format_group_result_line(outcome: MatchOutcome) -> str:
    """``Result:`` of three players (by seat) or partnerships (by team), with the places."""
    result = outcome.result
    n = len(outcome.seats)
    final = "-".join(str(x) for x in result.final)
    how = _TERMINATION_TEXT[result.termination]
    if result.teams:
        unit, order = "team", "team 0-team 1"

        def who(k: int) -> str:
            return f"team {k} ({seat_name(outcome, k)} and {seat_name(outcome, k + 2)})"
    else:
        unit, order = "seat", "-".join(f"seat {k}" for k in range(n)).replace("-seat ", "-")

        def who(k: int) -> str:
            return f"seat {k} ({seat_name(outcome, k)})"

    placings = result.placings(n)
    places = ", ".join(
        f"seat {k} ({seat_name(outcome, k)}) {place_text(placings[k])}"
        for k in sorted(range(n), key=lambda k: (placings[k], k))
    )
    if result.winner is None:
        line = f"Result: no {unit} wins; score {final} ({order}) ({how})"
    else:
        line = (
            f"Result: {who(result.winner)} wins; score {final} ({order}), margin "
            f"{result.margin} ({how})"
        )
    lines = [line, f"Places: {places}"]
    lines.extend(f"Forfeit: {fault.describe()}" for fault in forfeits(outcome))
    return "\n".join(lines)


def format_match_outcome(outcome: MatchOutcome) -> str:
    """The whole report that ``ginref match`` prints."""
    lines = [f"Match {outcome.match_id}: {outcome.rules.profile_name}, seed {outcome.seed}"]
    many = len(outcome.seats) > 2
    teams = outcome.result.teams or outcome.rules.players == 4
    for seat, info in enumerate(outcome.seats):
        own = " ".join(x for x in (info.name, info.version) if x)
        shown = seat_name(outcome, seat) + (f" ({own})" if own else "")
        team = f" (team {seat % 2})" if teams else ""
        lines.append(f"  seat {seat}{team}: {shown}  [{' '.join(info.command)}]")
    lines.append("")
    if outcome.hand_results and many:
        table = "Table  " if teams else ""
        lines.append(f" Hand  {table} Seats  Dealer  Outcome                   Winner  Points"
                     "        Score")  # fmt: skip
        lines.extend(format_group_hand_row(r, teams) for r in outcome.hand_results)
    elif outcome.hand_results:
        lines.append(" Hand  Dealer  Outcome                   Winner  Points      Score")
        lines.extend(format_hand_row(r) for r in outcome.hand_results)
    else:
        lines.append("No hand was completed.")
    lines.append("")
    lines.append(format_group_result_line(outcome) if many else format_result_line(outcome))
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


def format_not_started(outcome: MatchOutcome) -> list[str]:
    """One line per bot that never connected to the match: which, why, and the end of its
    output (``ginref match`` prints them as errors and exits non-zero)."""
    from referee.bot_check import output_tail

    lines = []
    for fault in outcome.faults:
        if fault.kind is FaultKind.NOT_CONNECTED:
            seat = outcome.seats[fault.seat]
            line = f"bot {seat.label!r} (seat {fault.seat}) cannot start: {fault.reason}"
            tail = output_tail(seat.output)
            if tail:
                line += f"; its output ends: {tail}"
            lines.append(line)
    return lines


# --- tournaments ------------------------------------------------------------------------------


def format_duration(seconds: float | None) -> str:
    """``h:mm:ss`` or ``m:ss``; ``-`` when unknown."""
    if seconds is None or seconds != seconds:
        return "-"
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def number_text(value: float | None, digits: int = 0) -> str:
    """A figure to ``digits`` places, or ``-`` for none."""
    return "-" if value is None else f"{value:.{digits}f}"


def elo_text(s: BotStanding) -> str:
    """A rating with its interval, ``+12 [-30, +54]``, or ``-`` for none."""
    if s.elo is None or s.elo_low is None or s.elo_high is None:
        return "-"
    # Whole numbers first: a rating of -0.3 reads +0, not -0.
    elo, low, high = (round(v) for v in (s.elo, s.elo_low, s.elo_high))
    return f"{elo:+d} [{low:+d}, {high:+d}]"


def _fault_kinds(s: BotStanding) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in s.faults.items() if v)
    return f"({kinds})" if kinds else ""


@dataclass(frozen=True, slots=True)
class _Column:
    head: str
    cell: Callable[[BotStanding], str]
    right: bool  # aligned right (numbers)
    keep: int  # 0: always shown; then the order in which columns are given up to a narrow width
    many: bool = False  # only with more than two players


# In the order shown. A narrow table keeps rank, bot, points and Elo with its interval, and
# adds the others by ``keep`` while they fit.
_COLUMNS = (
    _Column("#", lambda s: str(s.rank), True, 0),
    _Column("Bot", lambda s: s.name, False, 0),
    _Column("Played", lambda s: str(s.matches), True, 4),
    _Column("Won", lambda s: str(s.firsts), True, 1, many=True),
    _Column("W-D-L", lambda s: f"{s.wins}-{s.draws}-{s.losses}", True, 1),
    _Column("Points", lambda s: f"{s.points:g}", True, 0),
    _Column("%", lambda s: number_text(s.score_pct, 1), True, 3),
    _Column("Elo [95% interval]", elo_text, False, 0),
    _Column("Score +/-", lambda s: f"{s.score_for}/{s.score_against}", True, 6),
    _Column("Hand pts +/-", lambda s: f"{s.hand_points_for}/{s.hand_points_against}", True, 9),
    _Column("Hands won", lambda s: f"{s.hands_won}/{s.hands}", True, 7),
    _Column("Gins", lambda s: str(s.gins), True, 8),
    _Column("Under", lambda s: str(s.undercuts), True, 10),
    _Column("Faults", lambda s: str(s.fault_total), True, 2),
    _Column("Think ms", lambda s: number_text(s.mean_think_ms, 2), True, 5),
    _Column("", _fault_kinds, False, 11),  # the faults by kind
)
_GAP = "  "


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def format_standings_table(standings: Standings, width: int | None = None) -> str:
    """The standings as a fixed-width table, one line per bot, in at most ``width`` columns
    (None: no limit, every column)."""
    columns = [c for c in _COLUMNS if standings.players > 2 or not c.many]
    rows = [[c.cell(s) for c in columns] for s in standings.bots]
    widths = [max([len(c.head), *(len(r[i]) for r in rows)]) for i, c in enumerate(columns)]
    shown = [i for i, c in enumerate(columns) if c.keep == 0 or widths[i] == 0]
    if width is None:
        shown = [i for i, w in enumerate(widths) if w > 0]
    else:
        for i in sorted(range(len(columns)), key=lambda i: columns[i].keep):
            if i in shown or widths[i] == 0:
                continue
            wanted = sorted([*shown, i])
            if sum(widths[j] for j in wanted) + len(_GAP) * (len(wanted) - 1) <= width:
                shown = wanted
        # Even the essential columns too wide: the bots' names give way.
        over = sum(widths[j] for j in shown) + len(_GAP) * (len(shown) - 1) - width
        if over > 0:
            widths[1] = max(len("Bot"), widths[1] - over)
    lines = []
    for cells in [[c.head for c in columns], *rows]:
        parts = []
        for i in shown:
            text = _fit(cells[i], widths[i])
            parts.append(text.rjust(widths[i]) if columns[i].right else text.ljust(widths[i]))
        lines.append(_GAP.join(parts).rstrip())
    return "\n".join(lines)


def format_crosstable(standings: Standings, width: int | None = None) -> str:
    """Head to head: the row bot's wins-draws-losses against each column bot. Where the bots'
    names do not fit ``width`` as column heads, the columns are numbered by rank (the rows say
    which bot is which), and split into blocks that fit."""
    names = [s.name for s in standings.bots]
    cells = {
        (a, b): ("x" if a == b else _h2h(standings.head_to_head[(a, b)]))
        for a in names
        for b in names
    }
    label = max(len(n) for n in names)
    col = max(8, *(len(c) for c in cells.values()), *(len(n) for n in names))
    if width is None or label + (col + 2) * len(names) <= width:
        lines = [" " * label + "  " + "  ".join(f"{n:>{col}}" for n in names)]
        for a in names:
            lines.append(f"{a:<{label}}  " + "  ".join(f"{cells[(a, b)]:>{col}}" for b in names))
        return "\n".join(lines)
    number = len(str(len(names)))
    label = min(label, max(8, width // 3))
    col = max(len(str(len(names))), *(len(c) for c in cells.values()))
    per_block = max(1, (width - number - 1 - label) // (col + 2))
    blocks = []
    for first in range(0, len(names), per_block):
        chosen = list(enumerate(names))[first : first + per_block]
        head = " " * (number + 1 + label) + "".join(f"  {k + 1:>{col}}" for k, _ in chosen)
        lines = [head]
        for r, a in enumerate(names):
            row = f"{r + 1:>{number}} {_fit(a, label):<{label}}"
            lines.append(row + "".join(f"  {cells[(a, b)]:>{col}}" for _, b in chosen))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _h2h(h: HeadToHead) -> str:
    return "-" if not h.matches else f"{h.wins}-{h.draws}-{h.losses}"


def _wrap(text: str, width: int | None, indent: str = "") -> list[str]:
    """``text`` as lines of at most ``width`` columns (None: one line)."""
    if width is None:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False) or [""]


def format_duplicate(standings: Standings, width: int | None = None) -> str:
    """Duplicate pairs: paired totals per pairing and the interval they give."""
    lines = _wrap(
        "Duplicate deals (each deal played twice, seats swapped; X minus Y, final score per match)",
        width,
    )
    for d in standings.duplicate:
        ci_p = "-" if d.paired_ci is None else f"[{d.paired_ci[0]:+.1f}, {d.paired_ci[1]:+.1f}]"
        ci_u = (
            "-" if d.unpaired_ci is None else f"[{d.unpaired_ci[0]:+.1f}, {d.unpaired_ci[1]:+.1f}]"
        )
        mean = "-" if d.mean_diff is None else f"{d.mean_diff:+.1f}"
        text = (
            f"  {d.x} v {d.y}: {len(d.pairs)} deal pairs, X won {d.x_pair_wins}, split "
            f"{d.split}, Y won {d.y_pair_wins}; mean {mean}, paired 95% {ci_p}, as if "
            f"independent {ci_u} ({compare_intervals(d)})"
        )
        lines += _wrap(text, width, "    ")
        if d.unpaired_matches:
            lines += _wrap(f"    ({d.unpaired_matches} matches wait for their partner)", width)
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


MANY_PLAYERS_NOTE = {
    3: "Three players: W-D-L and points count one result for each two opponents in a match, "
    "a better place winning (a match gives each bot two); Won counts matches won.",
    4: "Partnerships: W-D-L and points count one result for each two opponents in a match (a "
    "bot and its partner share their team's place); Won counts matches its team won.",
}


def format_standings(standings: Standings, width: int | None = None) -> str:
    """The whole standings report: table, head to head, duplicate pairs, rating notes, and
    with partnerships the teams' own; every line at most ``width`` columns (None: no limit)."""
    title = f"Standings: {standings.name}, {standings.done} of {standings.total} matches"
    parts = [*_wrap(title, width), "", format_standings_table(standings, width)]
    if standings.players in MANY_PLAYERS_NOTE:
        parts += _wrap(MANY_PLAYERS_NOTE[standings.players], width)
    for note in standings.withdrawal_notes:
        parts += _wrap(f"Note: {note}", width, "  ")
    parts += ["", "Head to head (row: W-D-L)", format_crosstable(standings, width)]
    if standings.duplicate:
        parts += ["", format_duplicate(standings, width)]
    teams = standings.teams
    if teams is not None:
        members = "; ".join(f"{t}: {' + '.join(b)}" for t, b in standings.team_bots.items())
        parts += ["", *_wrap(f"Teams ({members})", width), format_standings_table(teams, width)]
        parts += ["", "Teams head to head (row: W-D-L)", format_crosstable(teams, width)]
        if teams.duplicate:
            parts += ["", format_duplicate(teams, width)]
    if standings.rating_note:
        parts += ["", *_wrap(standings.rating_note, width)]
    for note in standings.rating_notes:
        parts += _wrap(f"Note: {note}", width, "  ")
    for note in teams.rating_notes if teams is not None else ():
        parts += _wrap(f"Note (teams): {note}", width, "  ")
    return "\n".join(parts)


def format_progress_line(p: Progress) -> str:
    """Matches running, faults so far and the leader (a sequential test's LLR, and whether the
    run is stopping)."""
    leader = "-"
    if p.leader is not None:
        name, points, games = p.leader
        leader = f"{name} {points:g}/{games}"
    faults = "1 fault" if p.faults == 1 else f"{p.faults} faults"
    stopping = ", stopping" if p.halting else ""
    test = f", {p.note}" if p.note else ""
    return f"{p.running} running, {faults}, leader {leader}{test}{stopping}"


def format_match_line(p: Progress, *, with_progress: bool = True) -> str:
    """A finished match in one line; ``with_progress``: led by the matches done of all and
    followed by the time, the ETA and the faults so far (a line per match where the output is
    not a terminal)."""
    r = p.last
    assert r is not None
    line = f"{r.key}: {match_summary(r)}"
    if not with_progress:
        return line
    faults = "1 fault" if p.faults == 1 else f"{p.faults} faults"
    test = f", {p.note}" if p.note else ""
    return (
        f"[{p.done}/{p.total}] {line}; {format_duration(p.elapsed)} elapsed, "
        f"ETA {format_duration(p.eta)}, {faults}{test}"
    )


def match_summary(r: MatchRecord) -> str:
    """Who played, the score and the winner: ``a v b 104-37, a wins`` (three players
    ``a v b v c 104-37-20``; partnerships ``x (a, c) v y (b, d) 125-80``), and a forfeit."""
    if r.sides:
        who = " v ".join(f"{t} ({r.seats[k]}, {r.seats[k + 2]})" for k, t in enumerate(r.sides))
    else:
        who = " v ".join(r.seats)
    what = "no winner" if r.winner is None else f"{r.winner_bot} wins"
    forfeit = ""
    if r.forfeit is not None:
        if r.forfeit.seats:
            names = [r.seats[s] for s in r.forfeit.seats]
            by = names[0] if len(names) == 1 else ", ".join(names)
        else:
            by = "both" if r.forfeit.seat is None else r.seats[r.forfeit.seat]
        forfeit = f", forfeit: {by} {r.forfeit.kind}"
    score = "-".join(str(f) for f in r.final)
    return f"{who} {score}, {what}{forfeit}"


def format_run_result(result: RunResult, width: int | None = None) -> str:
    """What a run did: the bots' check, matches, time, throughput, where the files are."""
    rate = 60.0 * result.played / result.wall if result.wall > 0 else 0.0
    head = {
        # A sequential test is complete once it decides, before its last scheduled match.
        "complete": "Tournament complete" if result.done == result.total else "Test over",
        "interrupted": "Interrupted",
        "failed": "Failed",
    }[result.status]
    lines: list[str] = []
    if result.checks:
        slowest = max(c.seconds for c in result.checks)
        lines += _wrap(
            f"Checked {len(result.checks)} bots before play: each started and said Hello "
            f"(the slowest in {slowest:.1f} s).",
            width,
        )
    lines += _wrap(
        f"{head}: {result.done} of {result.total} matches in the journal; this run played "
        f"{result.played} in {format_duration(result.wall)} ({rate:.1f} matches/min, "
        f"-j {result.concurrency}; referee CPU "
        f"{100 * result.referee_cpu / max(result.wall, 1e-9):.0f}% of wall time)",
        width,
    )
    if result.status == "interrupted":
        lines += _wrap("Run the same command again to resume; finished matches are kept.", width)
    lines.append(f"Directory: {result.directory}")
    return "\n".join(lines)


def not_connected(standings: Standings) -> list[tuple[str, int]]:
    """The bots charged with ``not_connected`` faults, and how many: matches they forfeited
    without ever playing."""
    return [
        (s.name, s.faults["not_connected"]) for s in standings.bots if s.faults.get("not_connected")
    ]


def format_not_connected(standings: Standings, width: int | None = None) -> str | None:
    """The warning of a tournament in which bots never connected, or None."""
    bots = not_connected(standings)
    if not bots:
        return None
    total = sum(n for _, n in bots)
    who = ", ".join(f"{name} ({n})" for name, n in bots)
    matches = "1 match" if total == 1 else f"{total} matches"
    text = (
        f"Warning: {matches} forfeited because a bot never connected: {who}. Their output "
        "files (beside each match's log) say why."
    )
    return "\n".join(_wrap(text, width, "  "))
