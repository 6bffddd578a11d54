"""Where a submission arrives, from the command line or the web page: the entrant's token is
checked, the archive's size capped, the season's rules applied (frozen, one submission in the
pipeline at a time, the daily quota), and the archive is queued for the service's pipeline.

Entrants' tokens are those of ``ginref tokens`` (:mod:`tournaments.tokens`), kept as hashes in
``play/tokens.json`` (where a hosted referee looks for remote bots' tokens): the token that
lets a remote entrant's bot connect is the one
that lets an entrant submit. A wrong token and an unknown entrant get the same answer, so the
answer tells nobody who the entrants are.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import os
from pathlib import Path

from referee.bots.limits import size_text
from tournaments.ladder.errors import LadderError
from tournaments.ladder.season import Season
from tournaments.ladder.service import PLAY, SUBMISSIONS, archive_path
from tournaments.ladder.store import SeasonStore, Version
from tournaments.tokens import TokenStore, token_hash


def authenticate(directory: Path, entrant: str, token: str) -> None:
    """Refuse (:class:`LadderError`) unless ``token`` is ``entrant``'s active token."""
    hashes = TokenStore(directory / PLAY).active_hashes()  # hash -> bot
    stored = next((h for h, bot in hashes.items() if bot == entrant), None)
    # A constant-time comparison, and one answer for a wrong token and an unknown entrant.
    if stored is None or not hmac.compare_digest(stored, token_hash(token)):
        raise LadderError(f"no entrant {entrant!r} with that token")


def day_start(now: _dt.datetime | None = None) -> str:
    """The start of the current UTC day, as the store writes times."""
    moment = now or _dt.datetime.now(_dt.UTC)
    return moment.replace(hour=0, minute=0, second=0, microsecond=0).isoformat(timespec="seconds")


def submit(season: Season, store: SeasonStore, entrant: str, token: str, data: bytes) -> Version:
    """Queue ``data`` as ``entrant``'s next version; a refusal is one :class:`LadderError`."""
    authenticate(season.directory, entrant, token)
    caps = season.caps
    if len(data) > caps.upload_bytes:
        raise LadderError(
            f"the archive is {size_text(len(data))}, over the season's cap of "
            f"{size_text(caps.upload_bytes)}"
        )
    if not data:
        raise LadderError("the archive is empty")
    folder = season.directory / SUBMISSIONS / entrant
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(data).hexdigest()
    # Written before it is queued, renamed after: the service takes a version only once its
    # archive is whole (and fails one whose upload died in between, after a while).
    incoming = folder / f".incoming-{digest[:16]}-{os.getpid()}"
    incoming.write_bytes(data)
    try:
        version = store.queue_version(entrant, len(data), digest, season.ladder.quota, day_start())
    except BaseException:
        incoming.unlink(missing_ok=True)
        raise
    incoming.rename(archive_path(season.directory, version))
    return version
