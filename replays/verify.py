"""``ginref verify``: re-adjudicate replay logs with the rules engine and say where they differ.

Each log, of two, three or four players, is read once (:func:`referee.replay_log.read_text_log`)
and walked once through the engine (:func:`referee.timeline.build_timeline`: the header's rules
and seed, the decks of the ``deal`` records, every decision applied in order for the match seat
it names, a forfeit applied at the match result for every seat it names); :func:`timeline_problems`
checks that walk (:mod:`replays.checks`) on the match seats:

- each deck against the one the seed gives (:mod:`referee.engine.deal`), or for a match dealt
  from a deal file (the header's ``deck_source``), its first decks against the file's when the
  file is given (unchecked, and the summary says so, when it is not); each ``deal``: that the
  engine deals that hand there, with the recorded dealer, deck, upcard and knock limit, and that
  every hand's deal and result are recorded; with three or four players, the match seats at its
  hand seats 0 and 1 and its table, as the engine seats them (R10.1: the dealer sits out; R10.2:
  opponents swap every round);
- each ``decision``: that it is the recorded seat's turn, in the recorded phase and hand, and
  legal (the walk stops at the first the engine cannot take); that its seat had connected; that
  the seat's request ids run without a gap (a missing record leaves one); the clock: the bank
  after the decision;
- each ``fault``: the hand, that a decision fault is the seat to act's, that an illegal action is
  one (the engine refuses it, naming the recorded rule), that a retry was allowed, that a timeout
  ran out the time there was, and that the forfeit in the match result is the recorded faults'
  (with three or four players, its ``seats`` those of the faults recorded with retry false);
- each hand result and the match result against the engine's, naming the first field that
  differs with both values (with three or four players, a hand's ``seats`` and ``table``, the
  match's ``players``, ``placings`` and ``teams``); with partnerships each ``round_result``, and
  a round with no record of its result before the next deal or the match result; and that the
  log does not end before its match result;
- the deal's commitment: the header's ``deal_commitment`` opened by the seed and the salt the
  match result reveals, and the decks' digest for a match dealt from a file
  (:mod:`referee.fairness`);
- every line against the log's JSON Schema (:mod:`replays.schema`), and a last line cut short
  (the log is truncated: never a pass).

Problems are ``(line, message)`` pairs, line 0 meaning the end of the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.errors import ReplayLogError
from referee.replay_log import (
    TRUNCATED,
    ReplayError,
    ReplayLog,
    describe_problem,
    read_text_log,
)
from referee.timeline import Timeline, admit_round_results, build_timeline, header_deck_source
from replays.checks import ENDS_EARLY, DeckFile, RecordChecker


@dataclass(frozen=True, slots=True)
class LogCheck:
    """The verdict on one log file."""

    path: Path
    problems: tuple[tuple[int, str], ...]  # by line; line 0: the end of the file
    kinds: dict[int, str]  # record type by line, to say what a problem's line holds
    last_line: int
    summary: str  # what the match was (empty when the log could not be read)

    @property
    def ok(self) -> bool:
        """Whether the log re-adjudicates without a single difference."""
        return not self.problems


def find_logs(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files as given; for a directory, every ``*.jsonl`` below it, sorted."""
    found: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            logs = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
            found.extend(logs or [path])
        else:
            found.append(path)
    return found


def check_file(path: str | os.PathLike[str], deck_file: DeckFile | None = None) -> LogCheck:
    """Read and re-adjudicate the log at ``path``; never raises for a bad file. ``deck_file``:
    the deal file the decks of a match dealt from one are checked against."""
    path = Path(path)
    if path.is_dir():
        return LogCheck(path, ((0, "no replay logs (*.jsonl) in this directory"),), {}, 0, "")
    try:
        log = admit_round_results(read_text_log(path))
    except ReplayError as exc:
        return LogCheck(path, ((exc.line, exc.message),), {}, 0, "")
    kinds = {n: str(r["type"]) for n, r in log.records}
    last = max([0, *(n for n, _ in log.records), *(n for n, _ in log.problems)])
    # A cut line is the log's last; "the log ends before the match result" then says no more.
    cut = [] if log.truncated is None else [(log.truncated, TRUNCATED)]
    last = max(last, log.truncated or 0)
    if log.problems:
        problems = [(n, describe_problem(log, n, m)) for n, m in log.problems]
        if log.header is None:  # a foreign file: its first line says it all
            problems = list(_ordered(problems)[:1])
        return LogCheck(path, _ordered(problems + cut), kinds, last, "")
    # Imported here: the schema's validator (jsonschema) would cost ginref replay, which reads
    # this module for its warnings, its start-up time.
    from replays.schema import schema_problems

    problems, summary = check_log(log, deck_file)
    problems += schema_problems(log.records)
    if cut:
        problems = [p for p in problems if p != (0, ENDS_EARLY)] + cut
    return LogCheck(path, _ordered(problems), kinds, last, summary)


def check_log(
    log: ReplayLog, deck_file: DeckFile | None = None
) -> tuple[list[tuple[int, str]], str]:
    """Every problem of a log that parsed, and a one-line summary of the match (one walk)."""
    try:
        timeline = build_timeline(log)
    except ReplayLogError as exc:
        return list(exc.problems), ""
    except Exception as exc:  # a tampered log must not crash the verifier; say what broke
        return [(0, f"cannot re-adjudicate: {type(exc).__name__}: {exc}")], ""
    return timeline_problems(timeline, deck_file), summarize(timeline, deck_file is not None)


def _ordered(problems: Sequence[tuple[int, str]]) -> tuple[tuple[int, str], ...]:
    return tuple(sorted(problems, key=lambda p: (p[0] == 0, p[0])))


def summarize(timeline: Timeline, deck_file_given: bool = False) -> str:
    """``standard, seed 7, 3 hands, 98 decisions: seat 0 (greedy_bot) wins 139-0``; with three
    players ``standard, seed 7, 3 players, 9 hands, ...``, with partnerships ``..., 4 players in
    two teams, ...: team 0 (seats 0 and 2) wins 131-87``."""
    hands = len(timeline.hands())
    decisions = sum(1 for s in timeline.steps if s.kind == "decision")
    players = timeline.players
    who = (
        ""
        if players == 2
        else ("4 players in two teams, " if timeline.teams else f"{players} players, ")
    )
    text = (
        f"{timeline.rules.profile_name}, seed {timeline.seed}, {who}{hands} hand"
        f"{'' if hands == 1 else 's'}, {decisions} decisions"
    )
    source = header_deck_source(timeline.header)
    if source is not None:
        # Said whatever the result: which decks were checked, and how to check the others.
        where = f"deal {source.get('deal')} of {source.get('file')}"
        text += (
            f", decks from {where}"
            if deck_file_given
            else f", decks from {where} (not checked: ginref verify --deals FILE)"
        )
    end = next((s for s in timeline.steps if s.kind == "match_result"), None)
    if end is None or end.after.result is None:
        return text
    result = end.after.result
    final = "-".join(str(f) for f in result.final)
    if result.winner is None:
        return f"{text}: no winner, {final} ({result.termination.value})"
    if timeline.teams:
        mates = [s for s in range(players) if timeline.team_of(s) == result.winner]
        name = f"team {result.winner} (seats {mates[0]} and {mates[1]})"
    else:
        name = f"seat {result.winner} ({timeline.label(result.winner)})"
    return f"{text}: {name} wins {final} ({result.termination.value})"


def timeline_problems(
    timeline: Timeline, deck_file: DeckFile | None = None
) -> list[tuple[int, str]]:
    """Every problem of a replayed log: the checks of the module docstring."""
    checker = RecordChecker(timeline, deck_file)
    try:
        checker.run()
    except Exception as exc:  # a tampered log must not crash the verifier; say what broke
        checker.problems.append((0, f"cannot check the records: {type(exc).__name__}: {exc}"))
    return checker.problems


def format_check(check: LogCheck, *, verbose: bool = False) -> str:
    """One line per log: ``OK  path  summary`` or ``FAIL  path  line N (record): message``."""
    if check.ok:
        return f"OK    {check.path}  {check.summary}"
    first = check.problems[0]
    more = len(check.problems) - 1
    tail = f"  (+{more} more)" if more and not verbose else ""
    lines = [f"FAIL  {check.path}  {format_problem(check, first)}{tail}"]
    if verbose:
        lines += [f"        {format_problem(check, p)}" for p in check.problems[1:]]
    return "\n".join(lines)


def format_problem(check: LogCheck, problem: tuple[int, str]) -> str:
    """``line 57 (decision): message``; line 0 is the end of the file."""
    line, message = problem
    if line == 0:
        if check.last_line == 0:
            return message
        return f"end of file (after line {check.last_line}): {message}"
    kind = check.kinds.get(line)
    return f"line {line}" + (f" ({kind})" if kind else "") + f": {message}"


def difference_warning(log: str, timeline: Timeline) -> str | None:
    """One line saying that the log does not re-adjudicate (the first difference), or None: a
    replay shows the engine's view, which such a log does not agree with."""
    # A log that stops early is shown with a note of its own (and a cut line with a warning).
    problems = [p for p in timeline_problems(timeline) if p != (0, ENDS_EARLY)]
    if not problems:
        return None
    kinds = {n: str(r["type"]) for n, r in timeline.log.records}
    check = LogCheck(Path(log), tuple(problems), kinds, timeline.last_line, "")
    return (
        f"{log}: {format_problem(check, problems[0])} (ginref verify {log} lists every difference)"
    )
