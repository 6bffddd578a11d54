"""Remote bots' tokens (``ginref tokens``): issued once, kept only as SHA-256 hashes.

A token stands for one remote bot of one tournament. It is shown once, when it is issued, and
the tournament directory keeps only its hash (``tokens.json``, readable by its owner alone),
so a copy of the directory lets nobody play as a bot. A token carries 256 random bits, so a
plain SHA-256 is enough: there is nothing to guess that a slow hash would protect.

``ginref serve`` checks every Hello against the file as it is on disk (:class:`TokenCheck`
re-reads it when it changes), so revoking or re-issuing a token in another terminal takes
effect at the bot's next connection, and ends its idle streams (:meth:`TokenCheck.changed`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ConfigError

TOKENS_FILE = "tokens.json"
PREFIX = "ginref_"  # so that a leaked token is recognisable (and searchable) as one
VERSION = 1


def token_hash(token: str) -> str:
    """The hex SHA-256 of a token's UTF-8 bytes."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class TokenEntry:
    """One bot's token: its hash, when it was issued, and when it was revoked (if it was)."""

    bot: str
    sha256: str
    issued: str
    revoked: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked is None

    @property
    def fingerprint(self) -> str:
        """The hash's first 12 digits: enough to tell tokens apart in a listing."""
        return self.sha256[:12]


class TokenStore:
    """The tokens of the tournament directory ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / TOKENS_FILE
        self.entries: dict[str, TokenEntry] = self._load()

    def _load(self) -> dict[str, TokenEntry]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise ConfigError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text)
            if data.get("version") != VERSION or not isinstance(data.get("bots"), dict):
                raise ValueError("not a ginref tokens file of version 1")
            return {
                name: TokenEntry(name, str(e["sha256"]), str(e["issued"]), e.get("revoked"))
                for name, e in data["bots"].items()
            }
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ConfigError(f"{self.path}: not a valid tokens file ({exc})") from None

    def save(self) -> None:
        """Write the file atomically, readable by its owner alone."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.directory.chmod(0o700)
        data: dict[str, Any] = {
            "version": VERSION,
            "bots": {
                e.bot: {"sha256": e.sha256, "issued": e.issued, "revoked": e.revoked}
                for e in self.entries.values()
            },
        }
        fd, name = tempfile.mkstemp(prefix=".tokens-", dir=self.directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=2)
                out.write("\n")
                out.flush()
                os.fsync(out.fileno())
            os.chmod(name, 0o600)
            os.replace(name, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise

    def issue(self, bot: str, *, again: bool = False) -> str:
        """A new token for ``bot``, its hash stored; the old one (``again``) stops working.

        Without ``again`` a bot that already has an active token is refused."""
        old = self.entries.get(bot)
        if old is not None and old.active and not again:
            raise ConfigError(
                f"bot {bot!r} already has a token (issued {old.issued}); use "
                "'ginref tokens reissue' to replace it"
            )
        token = PREFIX + secrets.token_urlsafe(32)
        self.entries[bot] = TokenEntry(bot, token_hash(token), _now())
        return token

    def revoke(self, bot: str) -> TokenEntry:
        """Revoke ``bot``'s token: it is refused from now on."""
        entry = self.entries.get(bot)
        if entry is None:
            raise ConfigError(f"bot {bot!r} has no token")
        if not entry.active:
            raise ConfigError(f"bot {bot!r}'s token was already revoked ({entry.revoked})")
        revoked = TokenEntry(entry.bot, entry.sha256, entry.issued, _now())
        self.entries[bot] = revoked
        return revoked

    def active_hashes(self) -> dict[str, str]:
        """Hash -> bot, for the active tokens."""
        return {e.sha256: e.bot for e in self.entries.values() if e.active}


def token_gaps(directory: Path, bots: set[str]) -> tuple[list[str], list[str]]:
    """Which of the remote ``bots`` have no active token: those never given one (a run cannot
    start without theirs), and those whose token was revoked (they cannot connect: their
    matches are forfeits at once, as :class:`~referee.lobby.Lobby` bars them)."""
    entries = TokenStore(directory).entries
    missing = TokenCheck(directory, bots).missing()
    return [b for b in missing if b not in entries], [b for b in missing if b in entries]


class TokenCheck:
    """Who holds a token, from the tokens file as it is now (re-read when it changes)."""

    def __init__(self, directory: Path, bots: set[str]) -> None:
        self.directory = directory
        self.bots = bots  # the tournament's remote bots: a token of another name counts not
        self._stamp: tuple[int, int] | None = None
        self._hashes: dict[str, str] = {}
        self._changed: set[str] = set()
        self.refresh()

    def take_changed(self) -> set[str]:
        """The bots whose token changed or went since the last call (the file re-read now)."""
        self.refresh()
        changed, self._changed = self._changed, set()
        return changed

    def refresh(self) -> None:
        """Re-read the file if it changed."""
        path = self.directory / TOKENS_FILE
        try:
            info = path.stat()
            stamp: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp:
            return
        try:
            hashes = TokenStore(self.directory).active_hashes()
        except ConfigError:
            return  # half-written by hand? keep the tokens known so far
        self._stamp = stamp
        old = self._hashes
        self._hashes = {h: b for h, b in hashes.items() if b in self.bots}
        self._changed |= {b for h, b in old.items() if self._hashes.get(h) != b}

    def __call__(self, token: str) -> str | None:
        """The remote bot whose active token this is, or None."""
        self.refresh()
        if not token:
            return None
        return self._hashes.get(token_hash(token))

    def missing(self) -> list[str]:
        """The remote bots without an active token (they cannot connect)."""
        have = set(self._hashes.values())
        return sorted(self.bots - have)
