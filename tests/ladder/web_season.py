"""A season directory written as the service writes it, for the web app's tests: the season's
file, its store (entrants, versions accepted and failed, ratings and their history), the
entrants' tokens, a failed version's build log, and the play journal with real replay logs
(played by the tests' engine players, tests/support/live_tournament.py) and the bots' output
files beside them.

The matches: a duplicate pair of alice@2 and bob@1 on one deal (seats swapped), a single
match of alice@2 and the house bot greedy (with a fault of alice@2's), and a match of the
entrant whose name is HTML (:data:`EVIL`). Which of them are finished is the caller's choice.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from tests.support.live_tournament import Tournament, spec
from tournaments.journal.records import FaultRow, MatchRecord
from tournaments.ladder.board import results_of
from tournaments.ladder.inbox import day_start
from tournaments.ladder.service import PLAY, SUBMISSIONS
from tournaments.ladder.store import ACCEPTED, FAILED, StoredRating, open_season
from tournaments.tokens import TokenStore

UPLOAD_BYTES = 64 << 10  # the season's cap on an upload: small, for the tests of the cap
SEASON = f"""\
name = "spring"

[rules]
profile = "standard"

[ladder]
quota = 5

[ladder.archive]
upload_bytes = {UPLOAD_BYTES}

[[bots]]
name = "greedy"
command = "{{python}} -m sample_bots.greedy_bot"

[[bots]]
name = "random"
command = "{{python}} -m sample_bots.random_bot"
"""
EVIL = "<b onmouseover=alert(1)>eve"  # an entrant's name that is HTML (no slash: it is a path)
PAIR = ("alice@2.bob@1.000001", "alice@2.bob@1.000002")  # one deal, seats swapped
SINGLE = "alice@2.greedy.000003"
EVIL_MATCH = f"{EVIL}@1.greedy.000004"
SEATS = {
    PAIR[0]: ("alice@2", "bob@1"),
    PAIR[1]: ("bob@1", "alice@2"),
    SINGLE: ("alice@2", "greedy"),
    EVIL_MATCH: (f"{EVIL}@1", "greedy"),
}
BUILD_OUTPUT = "make: *** [bot] Error 2 <i>alice's build</i>"  # alice@1's log: hers alone
FAILURE_TAIL = "cc: error: bot.c: SECRET-TAIL"


def output_text(key: str, bot: str) -> str:
    """What ``bot`` wrote in match ``key`` (as HTML would read it, to see it written as text)."""
    return f"{bot} in {key}: <script>alert('{bot}')</script>"


@dataclass
class WebSeason:
    directory: Path
    tokens: dict[str, str]  # entrant -> token
    tournament: Tournament

    def finish(self, key: str) -> None:
        """Journal ``key`` (its whole log, its bots' output beside it) and rate it."""
        t = self.tournament
        log = t.path(key)
        for seat, bot in enumerate(SEATS[key]):
            (log.parent / f"seat{seat}.out").write_text(output_text(key, bot))
        if key == SINGLE:  # alice@2 timed out once in it
            commit = t.journal.commit_match

            def with_fault(record: MatchRecord, session: int) -> None:
                fault = FaultRow(0, "timeout", "R9.1", "no answer in time", True, 1)
                commit(dataclasses.replace(record, faults=(fault,)), session)

            t.journal.commit_match = with_fault  # type: ignore[method-assign]
            try:
                t.finish(key)
            finally:
                t.journal.commit_match = commit  # type: ignore[method-assign]
        else:
            t.finish(key)
        record = next(r for r in t.journal.records() if r.key == key)
        counts = results_of([record])
        results = {b: (counts.wins[b], counts.draws[b], counts.losses[b]) for b in record.seats}
        faults = {b: dict(kinds) for b, kinds in counts.faults.items()}
        store = open_season(self.directory)
        try:
            n = len(store.rated())
            rated = [StoredRating(bot, 25.0 + n, 8.0 - n, n + 1) for bot in SEATS[key]]
            store.record_ratings(key, rated, results, faults)
        finally:
            store.close()


def build_season(root: Path, finished: tuple[str, ...] = (*PAIR, SINGLE, EVIL_MATCH)) -> WebSeason:
    """The season in ``root/season``, its matches in ``finished`` journaled (the others have
    their log's header only: in progress)."""
    directory = root / "season"
    directory.mkdir(parents=True)
    (directory / "season.toml").write_text(SEASON)
    store = open_season(directory, create=True)
    tokens = TokenStore(directory / PLAY)
    issued = {}
    for entrant in ("alice", "bob", EVIL):
        store.add_entrant(entrant)
        issued[entrant] = tokens.issue(entrant)
    tokens.save()
    first = store.queue_version("alice", 100, "a" * 64, 5, day_start())
    store.set_status(
        "alice", first.number, FAILED, step="build", message="the build failed",
        exit_status="exit 2", tail=FAILURE_TAIL,
    )  # fmt: skip
    log = directory / SUBMISSIONS / "alice" / "1.log"
    log.parent.mkdir(parents=True)
    log.write_text("unpacking\nbuilding\n" + BUILD_OUTPUT + "\n")
    for entrant in ("alice", "bob", EVIL):
        version = store.queue_version(entrant, 100, "b" * 64, 5, day_start())
        store.set_status(entrant, version.number, ACCEPTED, language="python", command=["bot"])
    store.close()
    schedule = [
        spec(PAIR[0], 0, SEATS[PAIR[0]], 11, 1),
        spec(PAIR[1], 1, SEATS[PAIR[1]], 11, 1),
        spec(SINGLE, 2, SEATS[SINGLE], 12, 2),
        spec(EVIL_MATCH, 3, SEATS[EVIL_MATCH], 13, 3),
    ]
    # The journal as the service keeps it: the pool's bots added as they come, then their
    # matches scheduled.
    t = Tournament(directory / PLAY, [])
    bots = sorted({bot for seats in SEATS.values() for bot in seats})
    t.journal.extend(
        [{"name": b, "command": ["p"], "cwd": None, "env": {}} for b in bots], schedule
    )
    t.schedule = {s.key: s for s in schedule}
    season = WebSeason(directory, issued, t)
    for key in SEATS:
        season.tournament.log(key)
    for key in finished:
        season.finish(key)
    return season
