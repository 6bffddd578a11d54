"""Commit-reveal of a match's deal: the bots can check afterwards that it was fixed before play.

Before the first message of a match the referee draws a 32-byte salt and sends, in
``MatchStart.deal_commitment``::

    SHA-256( b"ginref-deal-v1" || 0x00 || salt || seed.to_bytes(8, "big") )

and ``MatchEnd`` reveals ``deal_seed`` and ``deal_salt``. Anyone holding the two messages checks
the hash, then re-derives every deck from the seed (:mod:`referee.engine.deal`, documented step
by step) and compares it with what was dealt. The salt keeps the commitment from being a
look-up table of seeds; the seed itself comes from a secret the bots cannot reach
(docs/security.md).

A match dealt from a deal file's decks (:class:`GivenDecks`, docs/tournaments.md#deal-sets) does
not deal from its seed, so its commitment seals the decks and the first dealer too::

    SHA-256( b"ginref-deal-decks-v1" || 0x00 || salt || seed.to_bytes(8, "big") || decks )

where ``decks`` is :func:`decks_digest`, the 32-byte SHA-256 of ``dealer N`` and each deck on a
line of its own, as a deal file writes them. The log's header names the file's deal and carries
that digest; whoever holds the file re-checks every deck against it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.engine.cards import Card, card_str

PREFIX = b"ginref-deal-v1\x00"
DECKS_PREFIX = b"ginref-deal-decks-v1\x00"
SALT_BYTES = 32
DIGEST_BYTES = 32


def commitment(seed: int, salt: bytes, decks: bytes | None = None) -> bytes:
    """The 32-byte commitment to ``seed`` with ``salt``; with ``decks`` (a
    :func:`decks_digest`), to the given decks as well."""
    if not 0 <= seed < 2**64:
        raise ValueError(f"a match seed is an unsigned 64-bit number, got {seed}")
    if decks is None:
        return hashlib.sha256(PREFIX + salt + seed.to_bytes(8, "big")).digest()
    return hashlib.sha256(DECKS_PREFIX + salt + seed.to_bytes(8, "big") + decks).digest()


def opens(commitment_bytes: bytes, seed: int, salt: bytes, decks: bytes | None = None) -> bool:
    """Whether ``seed`` and ``salt`` (and ``decks``, for a match dealt from a file) open
    ``commitment_bytes`` (in constant time)."""
    if not 0 <= seed < 2**64 or len(salt) != SALT_BYTES:
        return False
    if decks is not None and len(decks) != DIGEST_BYTES:
        return False
    return hmac.compare_digest(commitment(seed, salt, decks), commitment_bytes)


def deck_line(deck: Sequence[Card]) -> str:
    """A deck as a deal file's line: its 52 cards in order, ``AC 2C ... KS``."""
    return " ".join(card_str(c) for c in deck)


def decks_digest(first_dealer: int, decks: Sequence[Sequence[Card]]) -> bytes:
    """SHA-256 of ``dealer N`` then each deck on a line of its own: what the commitment of a
    match dealt from a file seals, whatever the file's spacing or comments."""
    text = f"dealer {first_dealer}\n" + "".join(deck_line(d) + "\n" for d in decks)
    return hashlib.sha256(text.encode()).digest()


@dataclass(frozen=True, slots=True)
class GivenDecks:
    """The decks a match deals in order, from a deal file, and the seat that deals first (a
    side, 0 or 1, with partnerships): hand ``k`` of the match, dead hands counted, is dealt from
    deck ``k``; once they are used up, the match deals from its seed."""

    decks: tuple[tuple[Card, ...], ...]
    first_dealer: int
    file: str  # the deal file's name, as the log names it
    deal: int  # which of the file's deals (1-based)

    @property
    def digest(self) -> bytes:
        """What the commitment seals (:func:`decks_digest`)."""
        return decks_digest(self.first_dealer, self.decks)

    def header(self) -> dict[str, Any]:
        """The log header's ``deck_source``."""
        return {
            "file": self.file,
            "deal": self.deal,
            "decks": len(self.decks),
            "first_dealer": self.first_dealer,
            "sha256": self.digest.hex(),
        }


@dataclass(frozen=True, slots=True)
class DealSeal:
    """A match's seed (and the decks given it, if any) and the salt that seals them until the
    match is over."""

    seed: int
    salt: bytes = field(default_factory=lambda: secrets.token_bytes(SALT_BYTES))
    decks: GivenDecks | None = None

    @property
    def commitment(self) -> bytes:
        """What MatchStart carries."""
        return commitment(self.seed, self.salt, None if self.decks is None else self.decks.digest)
