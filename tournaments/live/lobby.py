"""A hosted referee's lobby as the live page shows it: each remote bot, connected or not, with
its streams, kept in the tournament directory's ``lobby.json`` by ``ginref serve`` and read by
the live page (``ginref live DIR`` too, from another process)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

LOBBY_FILE = "lobby.json"


def lobby_rows(counts: Mapping[str, int], revoked: set[str]) -> list[dict[str, Any]]:
    """Each remote bot (in ``counts``' order) with its streams, whether it is connected, and
    whether its token is revoked."""
    return [
        {"name": name, "streams": n, "connected": n > 0, "revoked": name in revoked}
        for name, n in counts.items()
    ]


def write_lobby(directory: Path, rows: list[dict[str, Any]]) -> None:
    """Replace ``lobby.json`` at once (a reader never sees half of it)."""
    path = directory / LOBBY_FILE
    part = path.with_suffix(".json.part")
    part.write_text(json.dumps({"bots": rows}), encoding="utf-8")
    os.replace(part, path)


def read_lobby(directory: Path) -> list[dict[str, Any]] | None:
    """The rows of ``lobby.json``; None when there is none (not a hosted tournament) or it
    cannot be read."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        rows: list[dict[str, Any]] = json.loads(
            (directory / LOBBY_FILE).read_text(encoding="utf-8")
        )["bots"]
        return rows
    return None
