"""A tournament directory written as a run writes it, for the live page's tests: the journal
(schedule, session, committed matches) and each match's replay log under ``logs/``, grown line
by line (or half a line) while a test watches.

The logs are played by the tests' own engine players (tests/support/group_logs.py) with the
bots of the scheduled seats as labels, so that the watch finds each log's match by its seed and
seats as it finds a real run's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.engine.rules import Rules
from tests.support.group_logs import LABELS, group_match_log, group_rules, two_player_log
from tests.support.replay_helpers import lines_of
from tournaments.journal.records import Forfeit, MatchRecord
from tournaments.journal.store import Journal, open_journal
from tournaments.schedule import MatchSpec

RULES = Rules.profile("standard", target=25)


def spec(key: str, position: int, seats: tuple[str, ...], seed: int, game: int = 1) -> MatchSpec:
    """A scheduled match of ``seats`` (bots of LABELS) on deal ``game``'s ``seed``."""
    sides = ("north", "south") if len(seats) == 4 else None
    return MatchSpec(key, position, 1, tuple(sorted(set(seats))), game, game, seed, seats, sides)


class Tournament:
    """A tournament directory as a run keeps it: the journal, and logs under logs/."""

    def __init__(
        self,
        directory: Path,
        schedule: list[MatchSpec],
        players: int = 2,
        *,
        config: dict[str, Any] | None = None,
        identity: dict[str, Any] | None = None,
        run: bool = True,
    ) -> None:
        """``config`` and ``identity``: the journal's own (by default a tournament named spring
        and the players, with partnerships the teams, as a run's identity has them); ``run``:
        whether a run has started (a session in the journal)."""
        self.directory = directory
        self.players = players
        self.schedule = {s.key: s for s in schedule}
        directory.mkdir(exist_ok=True)
        self.journal: Journal = open_journal(directory)
        bots = [{"name": b, "command": ["p"], "cwd": None, "env": {}} for b in LABELS[:players]]
        teams: list[dict[str, Any]] = []
        if players == 4:  # R10.2: seats 0 and 2 against 1 and 3
            teams = [
                {"name": "north", "bots": list(LABELS[0::2])},
                {"name": "south", "bots": list(LABELS[1::2])},
            ]
        if identity is None:
            identity = {"seed": 1, "rules": {"players": players}}
            if teams:
                identity["teams"] = teams
        config = {"name": "spring"} if config is None else config
        self.journal.initialise(identity, config, bots, schedule, teams)
        self.session: int | None = self.journal.start_session(1) if run else None
        self.lines: dict[str, list[str]] = {}
        self.written: dict[str, int] = {}
        self.partial: dict[str, int] = {}  # characters of the next line already written

    def log(self, key: str, choices: int = 1) -> Path:
        """Play ``key``'s match (its whole log in a scratch file) and start its log under
        logs/ with the header only."""
        s = self.schedule[key]
        scratch = self.directory.parent / f"{key}.full.jsonl"
        if self.players == 2:
            seats = (s.seats[0], s.seats[1])
            two_player_log(scratch, RULES, seed=s.seed, choices=choices, labels=seats)
        else:
            assert s.seats == LABELS[: self.players], "group logs seat the bots of LABELS"
            group_match_log(scratch, group_rules(self.players), seed=s.seed, choices=choices)
        self.lines[key] = lines_of(scratch)
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        self.written[key] = 0
        self.grow(key, 1)
        return path

    def path(self, key: str) -> Path:
        """Where ``key``'s log is."""
        return self.directory / "logs" / key / f"{key}.jsonl"

    def grow(self, key: str, lines: int, half: bool = False) -> None:
        """Append the match's next ``lines`` lines (and the first half of the one after)."""
        start = self.written[key]
        text = "".join(line + "\n" for line in self.lines[key][start : start + lines])
        text = text[self.partial.pop(key, 0) :]  # the rest of a line written in half
        self.written[key] = start + lines
        with self.path(key).open("a", encoding="utf-8") as handle:
            handle.write(text)
            if half:
                following = self.lines[key][self.written[key]]
                self.partial[key] = len(following) // 2
                handle.write(following[: self.partial[key]])

    def grow_until(self, key: str, kind: str, count: int = 1) -> None:
        """Append lines up to and including the ``count``-th record of type ``kind``."""
        seen = 0
        for n, line in enumerate(self.lines[key]):
            seen += json.loads(line)["type"] == kind
            if seen == count:
                self.grow(key, n + 1 - self.written[key])
                return
        raise AssertionError(f"{key} has fewer than {count} {kind} records")

    def start_run(self) -> None:
        """Record the start of a run (a new session)."""
        self.session = self.journal.start_session(1)

    def end_run(self, status: str = "complete") -> None:
        """Record the end of the run under way."""
        assert self.session is not None
        self.journal.end_session(self.session, status, 0, 1.0, 1.0, 1.0)

    def finish(
        self,
        key: str,
        forfeit: Forfeit | None = None,
        *,
        started: str = "2026-01-01T00:00:00+00:00",
        elapsed_s: float | None = None,
    ) -> None:
        """Write the rest of the log and commit the match (with ``forfeit`` in its row, and
        when it started and how long it took)."""
        assert self.session is not None, "a match is committed by a run"
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(line + "\n" for line in self.lines[key]))
        records = [json.loads(line) for line in self.lines[key]]
        result = records[-1]
        s = self.schedule[key]
        record = MatchRecord(
            key=key,
            seats=s.seats,
            seed=s.seed,
            deal=s.deal,
            match_id=records[0]["match_id"],
            termination=result["termination"],
            winner=result["winner"],
            final=tuple(result["final"]),
            margin=result["margin"],
            hands_played=result["hands_played"],
            forfeit=forfeit,
            hands=(),
            faults=(),
            decisions=(1,) * len(s.seats),
            think_ms=(1.0,) * len(s.seats),
            log_path=str(path.relative_to(self.directory)),
            log_sha256="0" * 64,
            log_bytes=path.stat().st_size,
            started=started,
            elapsed_s=elapsed_s,
            placings=tuple(result.get("placings", ())),
            sides=s.sides,
        )
        self.journal.commit_match(record, self.session)
