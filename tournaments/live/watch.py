"""A tournament directory watched as it is played, read only: what ``ginref live`` serves.

:class:`TournamentWatch` opens the journal read only (:class:`~tournaments.journal.store.Journal`,
``read_only``) and follows the replay logs of the matches in progress under ``DIR/logs``. Each
:meth:`~TournamentWatch.poll` costs little: the journal is read again only when another
connection has committed (``PRAGMA data_version``), a directory of logs is listed again only
when it changed, and of each log in progress only the bytes added since the last poll are read,
whole lines only (the referee writes and flushes a line per record). A log whose match is in
the journal is finished: it is read to its end once and no longer followed. It works for a
tournament run by another process, and for one not yet started (no schedule in the journal yet).

:meth:`~TournamentWatch.state` is a JSON-able mapping built from the journal (standings, the
latest finished matches) and from each log's spectator view
(:class:`replays.spectate.Spectator`, fed the log's records as they are written), never from a
log line itself. No seed, deck or reason for a forfeit is in it.

Shared deals. The two matches of a duplicate pair (or set) play one deal, and so does game ``k``
of every pairing with ``shared_deals = true`` or a deal set (tournaments/schedule.py), so a
match's cards tell what the other matches of its seed will hold. A match in progress therefore
shows its table only once no other match of its seed is left to play (in progress or to come);
until then it shows who plays and which hand, with ``embargo`` saying how many matches of its
deal remain. The embargo goes by the schedule's seeds alone, so it follows the schedule: a match
on a deal of its own (by default every match but the first of a duplicate pair) is shown from
its first move. Results of whole matches (standings, finished matches) are shown at once.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import stat
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from referee.errors import GinRefError
from referee.replay_log import read_log
from replays.spectate import Spectator
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import JOURNAL_FILE, EmptyJournalError, Journal, open_journal
from tournaments.outputs.console import elo_text
from tournaments.results.standings import BotStanding, Standings, bot_row, journal_standings
from tournaments.runner import LOGS
from tournaments.schedule import MatchSpec

RECENT = 12  # finished matches in the state, the latest first
KEPT_VIEWS = 24  # finished matches whose last view stays available (TournamentWatch.match)
READ_CAP = 4 << 20  # bytes read from one log in one poll: a huge log is read over several
STALL_S = 30.0  # a log in progress that has not grown for this long is said to be stalled
FRESH_S = 2.0  # a directory changed this recently is listed again (coarse file-system clocks)
SETTLED_S = 30.0  # how often directories of finished logs only are looked at again
# Standings are refitted at most every this many times their last cost (at most so long: the
# first fit's cost includes loading the statistics library).
STANDINGS_SHARE = 10
STANDINGS_LAG_S = 5.0


class Follower(Protocol):
    """What follows one log for a spectator: :class:`replays.spectate.Spectator` (a test may
    feed a log's records to anything else that takes them)."""

    def feed(self, record: dict[str, Any]) -> None:
        """Take the log's next record."""

    def view(self) -> dict[str, Any]:
        """What a spectator may see after the records fed so far (JSON-able)."""

    @property
    def seed(self) -> int | None:
        """The header's seed (to tell the match's deal; never in a view)."""

    @property
    def labels(self) -> tuple[str, ...]:
        """The header's label (bot) of each seat."""


class _Listing:
    """The replay logs under a directory, listed again only where a directory changed.

    A directory of logs that are all finished, with no directory in it, is settled: the runner
    adds nothing to it (a job's directory holds that job's matches only), so it is looked at
    again only every SETTLED_S seconds, and a large tournament's thousands of finished jobs cost
    a poll next to nothing. Other directories (a pairing's, which gets a new job's directory
    now and then) are looked at every time: a glance at their mtime when they did not change.
    """

    def __init__(self, root: Path, clock: Callable[[], float]) -> None:
        self.root = root
        self._clock = clock
        # directory -> (its mtime, subdirectories, logs)
        self._dirs: dict[str, tuple[int, list[str], list[str]]] = {}
        self._settled: set[str] = set()
        self._checked = clock()  # when settled directories were last looked at

    def logs(self, finished: set[str]) -> list[str]:
        """Every ``*.jsonl`` file under the root (symbolic links not followed), but those of
        settled directories (``finished``: the logs of journaled matches)."""
        found: list[str] = []
        seen: set[str] = set()
        if self._clock() - self._checked >= SETTLED_S:
            self._settled.clear()
            self._checked = self._clock()
        self._visit(os.fspath(self.root), found, seen, finished)
        for gone in set(self._dirs) - seen:
            del self._dirs[gone]
        return found

    def _visit(self, directory: str, found: list[str], seen: set[str], finished: set[str]) -> None:
        """List ``directory`` into ``found``."""
        seen.add(directory)
        try:
            info = os.stat(directory, follow_symlinks=False)
        except OSError:
            return
        if not stat.S_ISDIR(info.st_mode):
            return
        known = self._dirs.get(directory)
        # A file added within the same tick of a coarse clock leaves the mtime as it was: a
        # directory changed lately is listed each time until it has been quiet for a while.
        recent = self._clock() - info.st_mtime < FRESH_S
        if known is None or known[0] != info.st_mtime_ns or recent:
            subdirs: list[str] = []
            logs: list[str] = []
            try:
                with os.scandir(directory) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            subdirs.append(entry.path)
                        elif entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
                            logs.append(entry.path)
            except OSError:
                return
            known = (info.st_mtime_ns, sorted(subdirs), sorted(logs))
            self._dirs[directory] = known
        _, subdirs, logs = known
        found.extend(logs)
        if logs and not subdirs and not recent and all(log in finished for log in logs):
            self._settled.add(directory)
        settled = self._settled
        for sub in subdirs:
            if sub in settled:
                seen.add(sub)
            else:
                self._visit(sub, found, seen, finished)


@dataclass(slots=True)
class _Tail:
    """A log being followed: where its next unread byte is, and its spectator."""

    path: str
    inode: int
    spectator: Follower
    grew: float  # when it last grew (the watch's clock)
    offset: int = 0
    broken: str | None = None  # why it is no longer read


def _read_new(tail: _Tail) -> bool:
    """Feed ``tail``'s spectator the whole lines added since the last read; whether it did."""
    try:
        fd = os.open(tail.path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as handle:
        handle.seek(tail.offset)
        data = handle.read(READ_CAP)
    end = data.rfind(b"\n")
    if end < 0:
        if len(data) >= READ_CAP:
            tail.broken = f"a line longer than {READ_CAP} bytes"
        return False
    chunk = data[: end + 1]
    tail.offset += len(chunk)
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError:
        tail.broken = "not UTF-8 text"
        return False
    for record in _records(text.splitlines()):
        tail.spectator.feed(record)
    return True


def _records(lines: list[str]) -> list[dict[str, Any]]:
    """The records of whole log lines, by the one reader of log lines (which numbers these
    from 1, so its complaints about where a header belongs do not apply here: the spectator
    checks that itself). A line it cannot read at all (JSON nested too deep) is passed over."""
    try:
        return [record for _, record in read_log(lines).records]
    except Exception:  # the reader raises only for a line no JSON parser takes: find it
        readable = []
        for line in lines:
            try:
                readable += [record for _, record in read_log([line]).records]
            except Exception:
                continue
        return readable


def _finished_at(record: MatchRecord) -> float:
    """When a journaled match ended, as well as the journal says (its start and duration)."""
    try:
        start = _dt.datetime.fromisoformat(record.started).timestamp()
    except ValueError:
        return 0.0
    return start + (record.elapsed_s or 0.0)


def _result_row(record: MatchRecord) -> dict[str, Any]:
    """A finished match as the state lists it: who played, who won, the score; a forfeit's
    kind and seats, not its reason (which may name a card)."""
    forfeit = None
    if record.forfeit is not None:
        seats = record.forfeit.seats or (
            (record.forfeit.seat,) if record.forfeit.seat is not None else tuple(range(2))
        )
        forfeit = {"kind": record.forfeit.kind, "rule": record.forfeit.rule, "seats": list(seats)}
    return {
        "key": record.key,
        "match_id": record.match_id,
        "seats": list(record.seats),
        "sides": None if record.sides is None else list(record.sides),
        "winner": record.winner_bot,
        "final": list(record.final),
        "margin": record.margin,
        "termination": record.termination,
        "hands": record.hands_played,
        "placings": list(record.placings),
        "forfeit": forfeit,
    }


def _row(s: BotStanding) -> dict[str, Any]:
    # The rating as the terminal and the report print it: the page rounds nothing of its own.
    return {**bot_row(s), "elo_text": elo_text(s)}


def _standings_data(standings: Standings) -> dict[str, Any]:
    """The standings the page shows: each bot's row (and each team's), and the ratings' note.
    Not the duplicate pairs, whose deals carry their seeds."""
    teams = standings.teams
    return {
        "done": standings.done,  # the matches counted (refits may trail the journal by seconds)
        "bots": [_row(s) for s in standings.bots],
        "teams": None if teams is None else [_row(s) for s in teams.bots],
        "members": {name: list(bots) for name, bots in standings.team_bots.items()},
        "ratings": standings.rating_note,
        "notes": list(standings.rating_notes),
    }


class TournamentWatch:
    """The tournament in a directory, as a spectator may see it; used from one thread."""

    def __init__(self, directory: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.directory = directory
        self._clock = clock
        self._journal: Journal | None = None
        self._listing = _Listing(directory / LOGS, clock)
        self._version: int | None = None
        self._name = "tournament"
        self._players = 2
        self._schedule: list[MatchSpec] = []
        self._specs: dict[tuple[int, tuple[str, ...]], MatchSpec] = {}
        self._finished: set[str] = set()
        self._journaled_logs: set[str] = set()
        self._running = False
        self._recent: list[dict[str, Any]] = []  # the latest finished matches, as listed
        self._standings: dict[str, Any] | None = None
        self._standings_due = False
        self._standings_next = 0.0
        self._tails: dict[str, _Tail] = {}
        self._finished_logs: set[str] = set()  # paths of logs whose match is journaled
        # The last view of finished matches followed here, with their seeds: by match id.
        self._done_views: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()
        self._state: dict[str, Any] | None = None
        # When a live match not yet stalled becomes so: the state changes then, though no byte
        # in the directory does (a hung bot in a run of one match at a time).
        self._stall_at = math.inf

    # --- opening and closing --------------------------------------------------------------------

    def check(self) -> None:
        """Raise :class:`GinRefError` (one line) unless the directory holds a journal."""
        if not self.directory.is_dir():
            raise GinRefError(f"{self.directory}: no such directory")
        if not (self.directory / JOURNAL_FILE).is_file():
            raise GinRefError(f"{self.directory}: not a tournament directory (no {JOURNAL_FILE})")

    def open(self) -> None:
        """Open the journal read only; raise :class:`GinRefError` (one line) if there is none
        or it cannot be read. A journal file still empty (a run is creating it) is opened by a
        later :meth:`poll`."""
        self.check()
        self._open_journal()

    def _open_journal(self) -> Journal | None:
        if self._journal is None:
            try:
                self._journal = open_journal(self.directory, create=False, read_only=True)
            except EmptyJournalError:
                return None
        return self._journal

    def close(self) -> None:
        """Close the journal."""
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        # data_version counts another connection's commits as this connection sees them: the
        # next connection's count starts anew, so the journal must be read again then.
        self._version = None

    # --- polling --------------------------------------------------------------------------------

    def poll(self) -> bool:
        """Read what is new in the journal and the logs; whether the state changed. Raises
        :class:`GinRefError` for a journal that cannot be read."""
        changed = self._read_journal()
        changed = self._follow_logs() or changed
        if self._standings_due and self._clock() >= self._standings_next:
            self._refit()
            changed = True
        if self._clock() > self._stall_at:
            changed = True
        if changed or self._state is None:
            self._state = self._build()
        return changed

    def _read_journal(self) -> bool:
        journal = self._open_journal()
        if journal is None:
            return False
        version = journal.data_version()
        if version == self._version:
            return False
        self._version = version
        if not self._schedule and journal.initialised:
            self._schedule = journal.schedule()
            self._specs = {(s.seed, s.seats): s for s in self._schedule}
            config = journal.meta("config") or {}
            identity = journal.meta("identity") or {}
            self._name = str(config.get("name", "tournament"))
            self._players = int(identity.get("rules", {}).get("players", 2))
        # Cheap reads only: the matches themselves are read when the standings are refitted.
        self._finished = journal.finished_keys()
        self._journaled_logs = journal.log_paths()
        sessions = journal.sessions()
        self._running = bool(sessions) and sessions[-1]["status"] == "running"
        self._standings_due = bool(self._schedule)
        return True

    def _refit(self) -> None:
        """The standings and the latest results again (reading every match and fitting the
        ratings is the costly part: it is redone at most every STANDINGS_SHARE times what it
        last took, up to STANDINGS_LAG_S, so that it does not take much of the CPU)."""
        journal = self._journal
        assert journal is not None
        began = time.perf_counter()
        records = journal.records()
        self._standings = _standings_data(journal_standings(journal, records=records))
        latest = sorted(records, key=_finished_at, reverse=True)[:RECENT]
        self._recent = [_result_row(r) for r in latest]
        took = time.perf_counter() - began
        self._standings_due = False
        self._standings_next = self._clock() + min(STANDINGS_SHARE * took, STANDINGS_LAG_S)

    def _follow_logs(self) -> bool:
        changed = False
        present = set()
        for path in self._listing.logs(self._finished_logs):
            if path in self._finished_logs:
                continue
            present.add(path)
            tail = self._tails.get(path)
            if os.path.relpath(path, self.directory) in self._journaled_logs:
                self._finished_logs.add(path)
                if tail is not None:  # finished: read to its end, keep its last view
                    while tail.broken is None and _read_new(tail):
                        pass
                    self._keep(tail)
                    del self._tails[path]
                    changed = True
                continue
            try:
                info = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            if tail is None or tail.inode != info.st_ino or info.st_size < tail.offset:
                tail = _Tail(path, info.st_ino, Spectator(), self._clock())
                self._tails[path] = tail
                changed = True
            if tail.broken is None and info.st_size > tail.offset and _read_new(tail):
                tail.grew = self._clock()
                changed = True
        for gone in set(self._tails) - present:  # removed (a new run cleans what was cut)
            del self._tails[gone]
            changed = True
        return changed

    def _keep(self, tail: _Tail) -> None:
        view, seed = tail.spectator.view(), tail.spectator.seed
        if seed is None:
            return
        self._done_views[view["match_id"]] = (seed, view)
        while len(self._done_views) > KEPT_VIEWS:
            self._done_views.popitem(last=False)

    # --- the state ------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """What a spectator may see now (after :meth:`poll`)."""
        if self._state is None:
            self._state = self._build()
        return self._state

    def matches(self) -> dict[str, dict[str, Any]]:
        """By match id: each match in progress as :meth:`state` lists it, and the last view of
        each of the latest finished ones this watch followed (its deal's embargo kept)."""
        out: dict[str, dict[str, Any]] = {}
        left = self._left_by_seed()
        for match_id, (seed, view) in self._done_views.items():
            others = left[seed]
            out[match_id] = {
                "match_id": match_id,
                "embargo": {"matches_left": others} if others > 0 else None,
                "view": None if others > 0 else view,
            }
        for entry in self.state()["live"]:
            out[entry["match_id"]] = entry
        return out

    def _left_by_seed(self) -> Counter[int]:
        return Counter(s.seed for s in self._schedule if s.key not in self._finished)

    def _build(self) -> dict[str, Any]:
        left = self._left_by_seed()
        live: list[tuple[int, dict[str, Any]]] = []
        now = self._clock()
        self._stall_at = math.inf
        for tail in self._tails.values() if self._running else ():
            spectator = tail.spectator
            seed = spectator.seed
            if seed is None:
                continue
            spec = self._specs.get((seed, spectator.labels))
            if spec is None or spec.key in self._finished:
                continue
            others = left[spec.seed] - 1
            view = spectator.view()
            stalled = not view["over"] and now - tail.grew > STALL_S
            if not view["over"] and not stalled:
                self._stall_at = min(self._stall_at, tail.grew + STALL_S)
            entry: dict[str, Any] = {
                "key": spec.key,
                "match_id": view["match_id"],
                "round": spec.round,
                "game": spec.game,
                "seats": list(spec.seats),
                "sides": None if spec.sides is None else list(spec.sides),
                "stalled": stalled,
                "embargo": {"matches_left": others} if others > 0 else None,
                "hand": view["hand"],
                "view": None if others > 0 else view,
            }
            live.append((spec.position, entry))
        return {
            "tournament": self._name,
            "players": self._players,
            "scheduled": bool(self._schedule),
            "running": self._running,
            "done": len(self._finished),
            "total": len(self._schedule),
            "standings": self._standings,
            "live": [entry for _, entry in sorted(live, key=lambda item: item[0])],
            "recent": self._recent,
        }
