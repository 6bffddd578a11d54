"""The replay log: one JSON Lines file per match (docs/replay-log.md; its JSON Schema,
``referee/replay-log.schema.json``, ships with the package: :func:`load_schema`).

- :class:`ReplayLogWriter` writes a record per line and flushes after each, so a crash of the
  referee loses at most the record in flight.
- :func:`read_log` reads a log from a text handle and collects every problem it finds, with line
  numbers, instead of stopping at the first; :func:`read_text_log` reads a file that way, and
  :func:`load_log` reads one that must parse. A file that cannot be read at all raises
  :class:`ReplayError`, which names the file and the line: never a traceback.

The log is walked through the engine in one place, :mod:`referee.timeline`. Pure ``*_dict``
functions turn engine results into records; the referee writes them and the verifier
(:mod:`replays.verify`) compares the walk's results against them, so both use the same spelling.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import IO, Any

from referee.engine.actions import Action, action_to_dict
from referee.engine.cards import Card, card_str
from referee.engine.melds import Arrangement
from referee.engine.outcomes import GameScore, HandResult, MatchResult, RoundResult, Termination
from referee.engine.rules import Rules
from referee.errors import GinRefError
from referee.version import REFEREE_VERSION

FORMAT = "ginref-replay"
VERSION = 1
SCHEMA_FILE = "replay-log.schema.json"  # package data of ``referee``

# One encoder for every line: json.dumps with options builds a new encoder per call.
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _cards(cards: Iterable[Card]) -> list[str]:
    return [card_str(c) for c in cards]


def arrangement_dict(arrangement: Arrangement) -> dict[str, Any]:
    """``{"melds": [[cards]], "deadwood": [cards]}``; meld order is what layoff indices use."""
    return {
        "melds": [_cards(m.cards) for m in arrangement.melds],
        "deadwood": _cards(arrangement.deadwood),
    }


def hand_result_dict(result: HandResult, group: bool = False) -> dict[str, Any]:
    """A ``hand_result`` record (without ``type``): every field of the engine's result; in a
    match of 3 or 4 players (``group``, §10) also the match seats and the table."""
    defender = None
    if result.defender is not None:
        defender = {
            "melds": [_cards(m.cards) for m in result.defender.melds],
            "layoffs": [[card_str(c), i] for c, i in result.defender.layoffs],
            "deadwood": _cards(result.defender.deadwood),
        }
    return {
        "hand": result.number + 1,
        "dealer": result.dealer,
        "outcome": result.outcome.value,
        "winner": result.winner,
        "points": result.points,
        "knocker": result.knocker,
        "knock_discard": None if result.knock_discard is None else card_str(result.knock_discard),
        "knocker_arrangement": (
            None
            if result.knocker_arrangement is None
            else arrangement_dict(result.knocker_arrangement)
        ),
        "defender": defender,
        "knocker_deadwood": result.knocker_deadwood,
        "defender_deadwood": result.defender_deadwood,
        "doubled": result.doubled,
        "extra_boxes": result.extra_boxes,
        "dead_reason": result.dead_reason,
        "payoffs": list(result.payoffs),
        "final_hands": [_cards(h) for h in result.final_hands],
        "scores_after": list(result.scores_after),
        **({"seats": list(result.seats), "table": result.table} if group else {}),
    }


def _game_dict(game: GameScore) -> dict[str, Any]:
    return {
        "winner": game.winner,
        "hand_points": list(game.hand_points),
        "hands_won": list(game.hands_won),
        "extra_boxes": list(game.extra_boxes),
        "final": list(game.final),
        "shutout": game.shutout,
        "margin": game.margin,
    }


def match_result_dict(
    result: MatchResult, hands_played: int, forfeit_kind: str | None = None, players: int = 2
) -> dict[str, Any]:
    """A ``match_result`` record (without ``type``).

    ``forfeit.seat`` is null when both seats forfeited; ``forfeit_kind`` is then the kind of the
    fault recorded first (each seat's own is in its ``fault`` record). With 3 or 4 players
    (§10) the record also holds ``players``, ``placings`` (by seat), ``teams`` with partnerships
    (``winner`` and ``final`` are then by team) and every forfeiting seat in ``forfeit.seats``.
    """
    forfeit: dict[str, Any] | None = None
    if result.termination is Termination.FORFEIT:
        forfeit = {
            "seat": result.forfeit_seat,
            "kind": forfeit_kind,
            "rule": result.forfeit_rule,
            "reason": result.forfeit_reason,
        }
    record: dict[str, Any] = {
        "termination": result.termination.value,
        "winner": result.winner,
        "final": list(result.final),
        "margin": result.margin,
        "games": [_game_dict(g) for g in result.games],
        "forfeit": forfeit,
        "hands_played": hands_played,
    }
    if players > 2:
        record["players"] = players
        record["placings"] = list(result.placings(players))
        if result.teams:
            record["teams"] = True
        if forfeit is not None:
            forfeit["seats"] = list(result.forfeit_seats)
    return record


def round_result_dict(result: RoundResult) -> dict[str, Any]:
    """A partnership ``round_result`` record (without ``type``), R10.2."""
    return {
        "round": result.number + 1,
        "hands": [h + 1 for h in result.hands],
        "team_hand_points": list(result.won),
        "winner": result.winner,
        "points": result.points,
        "scores_after": list(result.scores_after),
    }


def header_dict(
    match_id: str,
    created: str,
    rules: Rules,
    seed: int,
    commitment: bytes,
    clock: tuple[int, int, int],
    series: tuple[int, int],
    bots: Sequence[tuple[int, str, Sequence[str], str]],
    deck_source: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``header`` record (without ``type``): ``clock`` is (move time ms, bank ms, retries),
    ``series`` (match number, length), each bot (seat, label, command, output file name);
    ``deck_source`` (:meth:`referee.fairness.GivenDecks.header`) for a match dealt from a file."""
    move_ms, bank_ms, retries = clock
    return {
        "format": FORMAT,
        "version": VERSION,
        "match_id": match_id,
        "created": created,
        "referee": REFEREE_VERSION,
        "rules": rules.to_dict(),
        "seed": seed,
        "deal_commitment": commitment.hex(),
        "time_control": {"move_time_ms": move_ms, "bank_ms": bank_ms},
        "fault_policy": {"retries": retries},
        "series": {"match_number": series[0], "length": series[1]},
        "bots": [
            {"seat": seat, "label": label, "command": list(command), "output": output}
            for seat, label, command, output in bots
        ],
        **({} if deck_source is None else {"deck_source": deck_source}),
    }


_ACTION_CACHE_SIZE = 4096
_action_json: dict[Action, str] = {}


def decision_line(
    hand: int,
    seat: int,
    phase: str,
    request_id: int,
    action: Action,
    think_ms: float,
    bank_ms: float,
) -> str:
    """A ``decision`` record's line, the very text :meth:`ReplayLogWriter.write` writes for
    ``write("decision", hand=..., seat=..., phase=..., request_id=..., action=action_to_dict(
    action), think_ms=..., bank_ms=...)``, built without a dict or the JSON encoder's walk: the
    line written at every decision. The action's JSON is kept, since the same ones recur."""
    text = _action_json.get(action)
    if text is None:
        if len(_action_json) >= _ACTION_CACHE_SIZE:
            _action_json.clear()
        text = _action_json[action] = _ENCODE(action_to_dict(action))
    # JSON's numbers are Python's repr of ints and (finite) floats, as the encoder writes them.
    return (
        f'{{"type":"decision","hand":{hand:d},"seat":{seat:d},"phase":{_ENCODE(phase)},'
        f'"request_id":{request_id:d},"action":{text},"think_ms":{_float(think_ms)},'
        f'"bank_ms":{_float(bank_ms)}}}\n'
    )


def _float(value: float) -> str:
    return _ENCODE(value) if type(value) is not float else float.__repr__(value)


class ReplayLogWriter:
    """Append records to a new log file, one JSON object per line, flushed line by line.

    The writer hashes what it writes (:attr:`sha256`, :attr:`size`): the fingerprint of the log
    as the referee wrote it, which the journal keeps; it is never read back from the file, which
    someone else might have changed in between.
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self._fsync = fsync
        self._fh: IO[bytes] | None = open(self.path, "wb")  # noqa: SIM115
        self._hash = hashlib.sha256()
        self.size = 0

    def write(self, record_type: str, **fields: Any) -> None:
        """Write ``{"type": record_type, **fields}`` and flush it."""
        fh = self._fh
        if fh is None:
            raise GinRefError(f"the replay log {self.path} is closed")
        record = {"type": record_type, **fields}
        self.write_line(_ENCODE(record) + "\n")

    def write_line(self, line: str) -> None:
        """Write one record already encoded (its JSON and the newline) and flush it."""
        fh = self._fh
        if fh is None:
            raise GinRefError(f"the replay log {self.path} is closed")
        data = line.encode("utf-8")
        fh.write(data)
        fh.flush()
        self._hash.update(data)
        self.size += len(data)
        if self._fsync:
            os.fsync(fh.fileno())

    @property
    def sha256(self) -> str:
        """The SHA-256 of every byte written so far, in hex."""
        return self._hash.hexdigest()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._fh is None


# --- reading ----------------------------------------------------------------------------------


@cache
def load_schema() -> dict[str, Any]:
    """The log's JSON Schema (draft 2020-12), as installed with the package."""
    text = resources.files("referee").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


class ReplayError(GinRefError, ValueError):
    """A replay log that cannot be read or replayed; names the file and the line."""

    def __init__(self, path: str | os.PathLike[str], line: int, message: str) -> None:
        where = f"{os.fspath(path)}: line {line}" if line > 0 else os.fspath(path)
        super().__init__(f"{where}: {message}")
        self.path = os.fspath(path)
        self.line = line
        self.message = message


_INT = (int,)
_NUM = (int, float)
_STR = (str,)
_BOOL = (bool,)
_LIST = (list,)
_DICT = (dict,)
_NONE = (type(None),)

# Required keys of each record type and the JSON types they may hold (the schema says more).
RECORD_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "header": {
        "format": _STR,
        "version": _INT,
        "match_id": _STR,
        "created": _STR,
        "referee": _STR,
        "rules": _DICT,
        "seed": _INT,
        "time_control": _DICT,
        "fault_policy": _DICT,
        "series": _DICT,
        "bots": _LIST,
    },
    "connected": {"seat": _INT, "name": _STR, "version": _STR},
    "connection_rejected": {
        "seat": _INT + _NONE,
        "code": _STR,
        "rule": _STR,
        "reason": _STR,
    },
    "deal": {
        "hand": _INT,
        "dealer": _INT,
        "deck": _LIST,
        "upcard": _STR + _NONE,
        "knock_limit": _INT,
    },
    "decision": {
        "hand": _INT,
        "seat": _INT,
        "phase": _STR,
        "request_id": _INT,
        "action": _DICT,
        "think_ms": _NUM,
        "bank_ms": _NUM,
    },
    "fault": {
        "hand": _INT + _NONE,
        "seat": _INT,
        "kind": _STR,
        "rule": _STR,
        "reason": _STR,
        "request_id": _INT,
        "retry": _BOOL,
        "action": _DICT + _NONE,
        "think_ms": _NUM + _NONE,
    },
    "hand_result": {
        "hand": _INT,
        "dealer": _INT,
        "outcome": _STR,
        "winner": _INT + _NONE,
        "points": _INT,
        "knocker": _INT + _NONE,
        "knock_discard": _STR + _NONE,
        "knocker_arrangement": _DICT + _NONE,
        "defender": _DICT + _NONE,
        "knocker_deadwood": _INT + _NONE,
        "defender_deadwood": _INT + _NONE,
        "doubled": _BOOL,
        "extra_boxes": _INT,
        "dead_reason": _STR + _NONE,
        "payoffs": _LIST,
        "final_hands": _LIST,
        "scores_after": _LIST,
    },
    "round_result": {  # partnerships only (R10.2)
        "round": _INT,
        "hands": _LIST,
        "team_hand_points": _LIST,
        "winner": _INT + _NONE,
        "points": _INT,
        "scores_after": _LIST,
    },
    "match_result": {
        "termination": _STR,
        "winner": _INT + _NONE,
        "final": _LIST,
        "margin": _INT,
        "games": _LIST,
        "forfeit": _DICT + _NONE,
        "hands_played": _INT,
    },
}


@dataclass(slots=True)
class ReplayLog:
    """A parsed log: records with their line numbers, and every problem found."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)
    # The line cut short (the file ends without its newline: the referee was stopped while
    # writing it); the log is read up to the line before.
    truncated: int | None = None

    @property
    def header(self) -> dict[str, Any] | None:
        """The header record, if the first line is one."""
        if self.records and self.records[0][1].get("type") == "header":
            return self.records[0][1]
        return None

    def of_type(self, record_type: str) -> list[dict[str, Any]]:
        """Every record of ``record_type``, in order."""
        return [r for _, r in self.records if r.get("type") == record_type]


def _check_record(record: Any) -> str | None:
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    kind = record.get("type")
    if not isinstance(kind, str) or kind not in RECORD_FIELDS:
        return f"unknown record type {kind!r}"
    for key, types in RECORD_FIELDS[kind].items():
        if key not in record:
            return f"{kind}: missing {key!r}"
        value = record[key]
        bad_bool = isinstance(value, bool) and bool not in types
        if not isinstance(value, types) or bad_bool:
            return f"{kind}: {key!r} has the wrong type ({type(value).__name__})"
    return None


def read_log(handle: Iterable[str]) -> ReplayLog:
    """Parse a log from an open text handle (or any iterable of lines)."""
    log = ReplayLog()
    for number, line in enumerate(handle, start=1):
        if not line.strip():
            log.problems.append((number, "empty line"))
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            log.problems.append((number, f"not JSON: {exc.msg} (column {exc.colno})"))
            continue
        problem = _check_record(record)
        if problem is not None:
            log.problems.append((number, problem))
            continue
        if number == 1 and record["type"] != "header":
            log.problems.append((1, "the first line must be the header"))
        if number > 1 and record["type"] == "header":
            log.problems.append((number, "a second header"))
        log.records.append((number, record))
    header = log.header
    if not log.records and not log.problems:
        log.problems.append((0, "the log is empty"))
    if header is not None:
        if header["format"] != FORMAT:
            log.problems.append((1, f"format {header['format']!r} is not {FORMAT!r}"))
        if header["version"] != VERSION:
            log.problems.append((1, f"version {header['version']} is not supported ({VERSION})"))
    return log


def load_log(path: str | os.PathLike[str]) -> ReplayLog:
    """Read the log at ``path``; raise :class:`ReplayError` naming its first bad line."""
    log = read_text_log(path)
    if log.problems:
        line, message = min(log.problems, key=lambda p: (p[0] == 0, p[0]))
        raise ReplayError(path, line, describe_problem(log, line, message))
    return log


def read_text_log(path: str | os.PathLike[str]) -> ReplayLog:
    """Read the log file at ``path``; raise :class:`ReplayError` if it cannot be read at all.

    A file that is not UTF-8 text gets the number of its first bad line; everything else (bad
    JSON, unknown records, a foreign file) is in the returned log's ``problems``.
    """
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError:
        raise ReplayError(path, 0, "is a directory, not a replay log") from None
    except OSError as exc:
        raise ReplayError(path, 0, f"cannot read it: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReplayError(path, line, "not UTF-8 text: this is not a ginref replay log") from None
    cut: int | None = None
    if "\n" in text and not text.endswith("\n"):
        # The writer ends every record with a newline in the same write: without one, the
        # last line was cut short. Whatever it holds is not a whole record. (A file of one
        # line without a newline is judged by what that line holds.)
        cut = text.count("\n") + 1
        text = text[: text.rfind("\n") + 1]
    try:
        log = read_log(io.StringIO(text))
    except Exception as exc:  # e.g. RecursionError: JSON nested too deep for json.loads
        lines = text.split("\n")
        number = next((n for n, t in enumerate(lines, start=1) if not _readable(t)), 1)
        why = f"{type(exc).__name__}: {exc}"
        raise ReplayError(path, number, f"not a valid ginref record ({why})") from None
    log.truncated = cut
    return log


TRUNCATED = "the log is truncated: this line is cut short (the referee stopped while writing it)"


def truncation_warning(path: str | os.PathLike[str], log: ReplayLog) -> str | None:
    """One line saying that the log's last line is cut short and what is shown, or None."""
    if log.truncated is None:
        return None
    return (
        f"{os.fspath(path)}: line {log.truncated} is cut short (the referee stopped while "
        f"writing it); shown up to line {log.truncated - 1}, its last complete line"
    )


def _readable(line: str) -> bool:
    """Whether read_log gets through ``line`` without raising."""
    try:
        read_log([line + "\n"])
    except Exception:
        return False
    return True


def describe_problem(log: ReplayLog, line: int, message: str) -> str:
    """A reading problem in words; a foreign first line says so."""
    if line == 1 and log.header is None:
        return f"not a ginref replay log (the first line must be its header): {message}"
    if line == 0 and message == "the log is empty":
        return "the file is empty: not a ginref replay log"
    return message
