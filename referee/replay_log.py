"""The replay log: one JSON Lines file per match (docs/replay-log.md, docs/replay-log.schema.json).

- :class:`ReplayLogWriter` writes a record per line and flushes after each, so a crash of the
  referee loses at most the record in flight.
- :func:`read_log` reads a log from a text handle and collects every problem it finds, with line
  numbers, instead of stopping at the first.
- :func:`verify_log` re-adjudicates a log with the engine: the header's rules, the seed, every
  deck, every recorded action; it reports each hand result or match result that differs.

Pure ``*_dict`` functions turn engine results into records; the runner writes them and the
verifier compares against them, so both sides use the same spelling.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from referee.engine.actions import action_from_dict
from referee.engine.cards import Card, card_str
from referee.engine.deal import hand_deck
from referee.engine.match import Match
from referee.engine.melds import Arrangement
from referee.engine.outcomes import GameScore, HandResult, MatchResult, Termination
from referee.engine.rules import Rules
from referee.errors import CardError, GinRefError, IllegalActionError, ReplayLogError

FORMAT = "ginref-replay"
VERSION = 1

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


def hand_result_dict(result: HandResult) -> dict[str, Any]:
    """A ``hand_result`` record (without ``type``): every field of the engine's result."""
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
    result: MatchResult, hands_played: int, forfeit_kind: str | None = None
) -> dict[str, Any]:
    """A ``match_result`` record (without ``type``).

    ``forfeit.seat`` is null when both seats forfeited; ``forfeit_kind`` is then the kind of the
    fault recorded first (each seat's own is in its ``fault`` record).
    """
    forfeit = None
    if result.termination is Termination.FORFEIT:
        forfeit = {
            "seat": result.forfeit_seat,
            "kind": forfeit_kind,
            "rule": result.forfeit_rule,
            "reason": result.forfeit_reason,
        }
    return {
        "termination": result.termination.value,
        "winner": result.winner,
        "final": list(result.final),
        "margin": result.margin,
        "games": [_game_dict(g) for g in result.games],
        "forfeit": forfeit,
        "hands_played": hands_played,
    }


class ReplayLogWriter:
    """Append records to a new log file, one JSON object per line, flushed line by line."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self._fsync = fsync
        self._fh: IO[str] | None = open(self.path, "w", encoding="utf-8")  # noqa: SIM115

    def write(self, record_type: str, **fields: Any) -> None:
        """Write ``{"type": record_type, **fields}`` and flush it."""
        fh = self._fh
        if fh is None:
            raise GinRefError(f"the replay log {self.path} is closed")
        record = {"type": record_type, **fields}
        fh.write(_ENCODE(record) + "\n")
        fh.flush()
        if self._fsync:
            os.fsync(fh.fileno())

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
    """Read the log at ``path``; raise :class:`ReplayLogError` if it does not parse."""
    with open(path, encoding="utf-8") as fh:
        log = read_log(fh)
    if log.problems:
        raise ReplayLogError(log.problems)
    return log


# --- re-adjudication --------------------------------------------------------------------------


def _deck_of(record: dict[str, Any]) -> list[Card] | None:
    from referee.engine.cards import parse_card

    deck = record["deck"]
    try:
        cards = [parse_card(c) for c in deck]
    except (CardError, TypeError):
        return None
    return cards if sorted(cards) == list(range(52)) else None


def verify_log(log: ReplayLog) -> list[tuple[int, str]]:
    """Replay ``log`` through the engine; return every disagreement as ``(line, message)``.

    The match is rebuilt from the header's rules and seed and the decks of the deal records; each
    deck must also be the one the seed gives (referee.engine.deal). Every decision is applied in
    order (it must be the recorded seat's turn, and legal); every hand result and the match result
    must equal what the engine computes. A forfeit is taken from the match result.
    """
    problems = list(log.problems)
    header = log.header
    if header is None:
        return problems or [(1, "no header")]
    try:
        rules = Rules.from_dict(header["rules"])
    except GinRefError as exc:
        return [*problems, (1, f"rules: {exc}")]
    seed = header["seed"]
    decks: list[list[Card]] = []
    for number, record in log.records:
        if record["type"] == "deal":
            deck = _deck_of(record)
            if deck is None:
                return [*problems, (number, "deck: not the 52 cards once each")]
            if deck != hand_deck(seed, len(decks)):
                problems.append((number, f"the deck of hand {record['hand']} is not the seed's"))
            decks.append(deck)
    match = Match(rules, seed, decks=decks)
    hands_checked = 0
    finished = False
    for number, record in log.records:
        kind = record["type"]
        if kind == "deal":
            h = match.hand
            if h is None or match.result is not None or h.number + 1 != record["hand"]:
                problems.append((number, f"hand {record['hand']} is not being dealt here"))
            elif h.dealer != record["dealer"] or list(h.deck) != _deck_of(record):
                problems.append((number, f"hand {record['hand']}: dealer or deck differs"))
        elif kind == "decision":
            if match.to_act != record["seat"]:
                problems.append(
                    (number, f"seat {record['seat']} acts, but it is {match.to_act}'s turn")
                )
                break
            if match.phase.value != record["phase"]:
                problems.append(
                    (number, f"phase {record['phase']!r} recorded, engine in {match.phase.value!r}")
                )
            try:
                match.apply(action_from_dict(record["action"]))
            except (IllegalActionError, CardError) as exc:
                problems.append((number, f"the recorded action is refused: {exc}"))
                break
        elif kind == "hand_result":
            if hands_checked >= len(match.hand_results):
                problems.append((number, f"hand {record['hand']} has not ended in the engine"))
                continue
            expected = hand_result_dict(match.hand_results[hands_checked])
            hands_checked += 1
            got = {k: v for k, v in record.items() if k != "type"}
            if got != expected:
                diff = sorted(k for k in expected if expected[k] != got.get(k))
                problems.append(
                    (number, f"hand {record['hand']}: recorded {diff} differ from the engine's")
                )
        elif kind == "match_result":
            finished = True
            forfeit = record["forfeit"]
            if match.result is None and isinstance(forfeit, dict):
                seat = forfeit.get("seat")
                if seat not in (0, 1, None) or isinstance(seat, bool):
                    problems.append((number, f"forfeit: seat {seat!r} is not 0, 1 or null"))
                    continue
                # seat null: both seats forfeited.
                match.forfeit(seat, str(forfeit.get("rule")), str(forfeit.get("reason")))
            if match.result is None:
                problems.append((number, "the match result is recorded, but the match goes on"))
                continue
            kind_name = forfeit.get("kind") if isinstance(forfeit, dict) else None
            expected = match_result_dict(match.result, match.hands_dealt, kind_name)
            got = {k: v for k, v in record.items() if k != "type"}
            if got != expected:
                diff = sorted(k for k in expected if expected[k] != got.get(k))
                problems.append((number, f"match result: recorded {diff} differ from the engine's"))
    if not finished and not problems:
        problems.append((0, "the log ends before the match result"))
    return problems


def verify_file(path: str | os.PathLike[str]) -> None:
    """Read and re-adjudicate the log at ``path``; raise :class:`ReplayLogError` on any problem."""
    with open(path, encoding="utf-8") as fh:
        log = read_log(fh)
    problems = verify_log(log)
    if problems:
        raise ReplayLogError(problems)


def hand_scores(log: ReplayLog) -> Sequence[tuple[int, int]]:
    """Each recorded hand's ``scores_after``."""
    return [(r["scores_after"][0], r["scores_after"][1]) for r in log.of_type("hand_result")]
