"""Deal sets: files of match seeds that a tournament plays in order, like an openings book.

A deal set is a text file with one match seed per line (a whole number from 0 to 2^63 - 1);
blank lines and lines starting with ``#`` are ignored. Deal ``d`` of a tournament (1-based, as
the schedule numbers deals) plays the seed on the set's ``((d - 1) mod n) + 1``-th line, so two
runs with the same set play the same deals in the same order whatever their master seeds, and a
set shorter than the run is started again from its first seed. Every deck and the first dealer of
a match come from its seed (:mod:`referee.engine.deal`).

A set is known to whoever can read its file: it is for testing bots, not for a competition,
whose deals come from a secret key (docs/security.md). No bot sees the file: it is kept out of
every sandbox, like the tournament's own file.

Every pairing plays the set's deals (deal ``d`` of each pairing on the same seed), as the
openings of a cutechess round: a set is how a tournament compares bots on common deals, with
``shared_deals = true`` the other (tournaments/schedule.py).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ConfigError

MAX_SEED = 2**63 - 1
HEADER = "# ginref deal set: one match seed per line, played in order"
# A deal set is every pairing's: a tournament file cannot give each pairing deals of its own too.
SHARED_SET = (
    "shared_deals = false does not apply to a deal set, which every pairing plays: leave out "
    "one or the other"
)


class DealSetError(ConfigError):
    """A deal set that cannot be read: one line naming the file and the line."""


@dataclass(frozen=True, slots=True)
class DealSet:
    """The seeds of a deal set, in order, and where they came from."""

    seeds: tuple[int, ...]
    path: str  # absolute
    sha256: str  # of the file's bytes: a resumed tournament must play the same set

    def seed(self, deal: int) -> int:
        """The seed of deal ``deal`` (1-based), the set started again when it runs out."""
        return self.seeds[(deal - 1) % len(self.seeds)]

    def identity(self) -> dict[str, Any]:
        """What a resumed tournament must agree on: the set's content, not where it lies."""
        return {"sha256": self.sha256, "deals": len(self.seeds)}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"file": self.path, **self.identity()}


def parse_deals(text: str, source: str) -> tuple[int, ...]:
    """The seeds of a deal set's text; a mistake is one :class:`DealSetError` with its line."""
    seeds: list[int] = []
    first: dict[int, int] = {}  # seed -> the line it is on
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not line.isdigit() or int(line) > MAX_SEED:
            shown = line if len(line) <= 40 else line[:37] + "..."
            raise DealSetError(
                f"{source}:{number}: {shown!r} is not a match seed (a whole number from 0 to "
                "2^63-1, one per line)"
            )
        seed = int(line)
        if seed in first:
            raise DealSetError(f"{source}:{number}: seed {seed} is already on line {first[seed]}")
        first[seed] = number
        seeds.append(seed)
    if not seeds:
        raise DealSetError(f"{source}: no deals: a deal set holds one match seed per line")
    return tuple(seeds)


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
    seeds = parse_deals(text, str(p))
    return DealSet(seeds, str(p.resolve()), hashlib.sha256(data).hexdigest())


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
