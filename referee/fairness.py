"""Commit-reveal of a match's deal: the bots can check afterwards that it was fixed before play.

Before the first message of a match the referee draws a 32-byte salt and sends, in
``MatchStart.deal_commitment``::

    SHA-256( b"ginref-deal-v1" || 0x00 || salt || seed.to_bytes(8, "big") )

and ``MatchEnd`` reveals ``deal_seed`` and ``deal_salt``. Anyone holding the two messages checks
the hash, then re-derives every deck from the seed (:mod:`referee.engine.deal`, documented step
by step) and compares it with what was dealt. The salt keeps the commitment from being a
look-up table of seeds; the seed itself comes from a secret the bots cannot reach
(docs/security.md).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

PREFIX = b"ginref-deal-v1\x00"
SALT_BYTES = 32


def commitment(seed: int, salt: bytes) -> bytes:
    """The 32-byte commitment to ``seed`` with ``salt``."""
    if not 0 <= seed < 2**64:
        raise ValueError(f"a match seed is an unsigned 64-bit number, got {seed}")
    return hashlib.sha256(PREFIX + salt + seed.to_bytes(8, "big")).digest()


def opens(commitment_bytes: bytes, seed: int, salt: bytes) -> bool:
    """Whether ``seed`` and ``salt`` open ``commitment_bytes`` (in constant time)."""
    if not 0 <= seed < 2**64 or len(salt) != SALT_BYTES:
        return False
    return hmac.compare_digest(commitment(seed, salt), commitment_bytes)


@dataclass(frozen=True, slots=True)
class DealSeal:
    """A match's seed and the salt that seals it until the match is over."""

    seed: int
    salt: bytes = field(default_factory=lambda: secrets.token_bytes(SALT_BYTES))

    @property
    def commitment(self) -> bytes:
        """What MatchStart carries."""
        return commitment(self.seed, self.salt)
