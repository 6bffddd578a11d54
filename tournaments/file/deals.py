"""Deal sets: files of deals that a tournament plays in order, like an openings book.

A deal set is a text file of deals; blank lines and lines starting with ``#`` are ignored. A
deal is either a match seed on a line of its own (a whole number from 0 to 2^63 - 1), whose
match takes every deck and its first dealer from the seed (:mod:`referee.engine.deal`), or the
decks of a match dealt by another system (the EAAI framework, say): a line ``deal dealer N``,
``N`` the seat that deals the first hand (with partnerships the side, 0 or 1), then one line a
deck, its 52 cards in order as the log writes them (``AC 2C ... KS``; the first 20 are dealt
alternately, non-dealer first, then the upcard, then the stock from the top, as
:mod:`referee.engine.hand` deals). Hand ``k`` of such a match, dead hands counted, is dealt from
its deck ``k``; a match that deals more hands than the deal holds decks deals the rest from its
seed, as any match does (the seed of such a deal is drawn from its decks, so it is the same in
every run). The two kinds may be mixed in one file.

Deal ``d`` of a tournament (1-based, as the schedule numbers deals) plays the set's
``((d - 1) mod n) + 1``-th deal, so two runs with the same set play the same deals in the same
order whatever their master seeds, and a set shorter than the run is started again from its first
deal.

A set is known to whoever can read its file: it is for testing bots, not for a competition,
whose deals come from a secret key (docs/security.md). No bot sees the file: it is kept out of
every sandbox, like the tournament's own file.

Every pairing plays the set's deals (deal ``d`` of each pairing on the same seed), as the
openings of a cutechess round: a set is how a tournament compares bots on common deals, with
``shared_deals = true`` the other (tournaments/schedule.py).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.engine.cards import Card, card_str, parse_card
from referee.errors import CardError, ConfigError
from referee.fairness import GivenDecks, decks_digest

MAX_SEED = 2**63 - 1
HEADER = "# ginref deal set: one match seed per line, played in order"
DECKS_HEADER = (
    "# ginref deal set: each deal a 'deal dealer N' line (N: the seat that deals the first "
    "hand), then one deck a line, 52 cards in order"
)
# A deal set is every pairing's: a tournament file cannot give each pairing deals of its own too.
SHARED_SET = (
    "shared_deals = false does not apply to a deal set, which every pairing plays: leave out "
    "one or the other"
)
_DEAL_LINE = re.compile(r"deal\s+dealer\s+(\S+)")
_DEALERS = {2: "a seat, 0 or 1", 3: "a seat, 0 to 2", 4: "a side, 0 or 1"}


class DealSetError(ConfigError):
    """A deal set that cannot be read: one line naming the file and the line."""


@dataclass(frozen=True, slots=True)
class DealSet:
    """The deals of a deal set, in order, and where they came from."""

    seeds: tuple[int, ...]
    path: str  # absolute
    sha256: str  # of the file's bytes: a resumed tournament must play the same set
    # Each deal's decks (None: a seed's deal), and the line each deal starts on.
    decked: tuple[GivenDecks | None, ...] = ()
    lines: tuple[int, ...] = ()

    def seed(self, deal: int) -> int:
        """The seed of deal ``deal`` (1-based), the set started again when it runs out."""
        return self.seeds[(deal - 1) % len(self.seeds)]

    def decks(self, deal: int) -> GivenDecks | None:
        """The decks of deal ``deal`` (1-based, started again as :meth:`seed`), or None for a
        deal that is a seed."""
        return self.decked[(deal - 1) % len(self.seeds)] if self.decked else None

    def check_players(self, players: int) -> None:
        """Raise :class:`DealSetError`, naming the line, for a first dealer that no seat (side)
        of a match of ``players`` is."""
        for given, line in zip(self.decked, self.lines, strict=True):
            if given is not None and given.first_dealer >= (3 if players == 3 else 2):
                raise DealSetError(
                    f"{self.path}:{line}: dealer {given.first_dealer}: with {players} players "
                    f"the first dealer is {_DEALERS[players]}"
                )

    def identity(self) -> dict[str, Any]:
        """What a resumed tournament must agree on: the set's content, not where it lies."""
        return {"sha256": self.sha256, "deals": len(self.seeds)}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"file": self.path, **self.identity()}


@dataclass(slots=True)
class _Reading:
    """A deal set read line by line: the deals so far and the deal whose decks are being read."""

    source: str
    name: str  # the file's name, as a log names it
    seeds: list[int]
    decked: list[GivenDecks | None]
    lines: list[int]
    first: dict[int, int]  # seed -> the line its deal starts on
    dealer: int | None = None  # the open deal's first dealer
    open_line: int = 0  # the line of the open deal's ``deal dealer N``
    decks: list[tuple[Card, ...]] | None = None  # the open deal's decks

    def fail(self, number: int, message: str) -> DealSetError:
        return DealSetError(f"{self.source}:{number}: {message}")

    def add(self, number: int, seed: int, given: GivenDecks | None) -> None:
        if seed in self.first:
            what, verb = (f"seed {seed}", "is") if given is None else ("these decks", "are")
            raise self.fail(number, f"{what} {verb} already on line {self.first[seed]}")
        self.first[seed] = number
        self.seeds.append(seed)
        self.decked.append(given)
        self.lines.append(number)

    def close(self) -> None:
        """End the open deal, if any: it must hold a deck."""
        if self.decks is None or self.dealer is None:
            return
        if not self.decks:
            raise self.fail(self.open_line, "this deal has no decks: one line a deck follows it")
        decks = tuple(self.decks)
        given = GivenDecks(decks, self.dealer, self.name, len(self.seeds) + 1)
        self.add(self.open_line, deck_seed(self.dealer, decks), given)
        self.decks = self.dealer = None

    def deal_line(self, number: int, line: str) -> None:
        self.close()
        match = _DEAL_LINE.fullmatch(line)
        if match is None:
            raise self.fail(
                number,
                f"{_shown(line)} is not a deal line: write 'deal dealer N', N the seat that "
                "deals the first hand",
            )
        dealer = match.group(1)
        if dealer not in ("0", "1", "2"):
            raise self.fail(
                number,
                f"dealer {_shown(dealer)}: the first dealer is a seat, 0 or 1 (0 to 2 with three "
                "players; with partnerships a side, 0 or 1)",
            )
        self.dealer, self.open_line, self.decks = int(dealer), number, []

    def deck_line(self, number: int, line: str) -> None:
        assert self.decks is not None
        self.decks.append(parse_deck(line, lambda m: self.fail(number, m)))


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def parse_deck(line: str, fail: Callable[[str], DealSetError]) -> tuple[Card, ...]:
    """The 52 cards of a deck line; ``fail(message)`` gives the error to raise for a mistake."""
    cards: list[Card] = []
    at: dict[Card, int] = {}  # card -> its position (1-based)
    for item in re.split(r"[\s,]+", line.strip()):
        try:
            card = parse_card(item)
        except CardError:
            raise fail(
                f"card {len(cards) + 1}: {_shown(item)} is not a card (rank A23456789TJQK, "
                "then suit CDHS, e.g. 'TD')"
            ) from None
        if card in at:
            raise fail(
                f"{card_str(card)} is twice in this deck (cards {at[card]} and {len(cards) + 1})"
            )
        at[card] = len(cards) + 1
        cards.append(card)
    if len(cards) != 52:
        missing = [card_str(c) for c in range(52) if c not in at]
        shown = " ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise fail(f"{len(cards)} cards: a deck is the 52 cards once each (missing {shown})")
    return tuple(cards)


def deck_seed(dealer: int, decks: Sequence[Sequence[Card]]) -> int:
    """The seed of a deal of decks, drawn from them: the same in every run, and the one that
    deals a match's hands beyond its decks."""
    digest = hashlib.sha256(b"ginref-deck-deal:" + decks_digest(dealer, decks)).digest()
    return int.from_bytes(digest[:8], "big") & MAX_SEED


def parse_deal_set(text: str, source: str) -> tuple[list[int], list[GivenDecks | None], list[int]]:
    """A deal set's text: each deal's seed, decks (None for a seed) and line; a mistake is one
    :class:`DealSetError` with its line."""
    reading = _Reading(source, Path(source).name, [], [], [], {})
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.split()[0].lower() == "deal":
            reading.deal_line(number, line)
        elif line.isdigit() and int(line) <= MAX_SEED:
            reading.close()
            reading.add(number, int(line), None)
        elif reading.decks is not None:
            reading.deck_line(number, line)
        else:
            raise reading.fail(
                number,
                f"{_shown(line)} is not a match seed (a whole number from 0 to 2^63-1, one per "
                "line)",
            )
    reading.close()
    if not reading.seeds:
        raise DealSetError(
            f"{source}: no deals: a deal set holds one match seed per line, or decks after a "
            "'deal dealer N' line"
        )
    return reading.seeds, reading.decked, reading.lines


def parse_deals(text: str, source: str) -> tuple[int, ...]:
    """The seeds of a deal set's text (a deal of decks: the seed drawn from them)."""
    return tuple(parse_deal_set(text, source)[0])


def load_deals(path: str | Path) -> DealSet:
    """Read a deal set file."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DealSetError(f"cannot read the deal set {str(p)!r}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DealSetError(f"{p}: not a deal set (not UTF-8 text)") from None
    seeds, decked, lines = parse_deal_set(text, str(p))
    # A set of seeds only keeps no decks: its deals are what they always were.
    kept = tuple(decked) if any(d is not None for d in decked) else ()
    return DealSet(
        tuple(seeds),
        str(p.resolve()),
        hashlib.sha256(data).hexdigest(),
        kept,
        tuple(lines) if kept else (),
    )


def make_seeds(count: int, seed: int | None = None) -> list[int]:
    """``count`` distinct match seeds: random, or with ``seed`` derived from it (the same set
    every time)."""
    out: list[int] = []
    seen: set[int] = set()
    index = 0
    while len(out) < count:
        if seed is None:
            value = secrets.randbits(63)
        else:
            digest = hashlib.sha256(f"ginref-deal-set:{seed}:{index}".encode()).digest()
            value = int.from_bytes(digest[:8], "big") & MAX_SEED
        index += 1
        if value not in seen:  # a repeat is astronomically rare; a set never holds one
            seen.add(value)
            out.append(value)
    return out


def deals_text(seeds: Sequence[int], made_with: str) -> str:
    """A deal set file's text: a header saying how it was made, then one seed per line."""
    return f"{HEADER}\n# {made_with}\n" + "".join(f"{s}\n" for s in seeds)
