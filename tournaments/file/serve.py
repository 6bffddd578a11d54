"""A tournament file's ``[serve]`` table: where a hosted referee (``ginref serve``) listens for
remote bots, its TLS files, when play starts, how long an absent bot is waited for, and the
live page's address.

Paths are relative to the tournament file. Plain text (no ``cert``/``key``) is allowed only on a
loopback address; :meth:`ServeSettings.check` says so in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from referee.tls import TlsFiles, is_loopback
from tournaments.file.toml_lines import Reader

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_LIVE = "127.0.0.1:8080"
DEFAULT_ABSENT_WAIT = 300.0  # seconds
SERVE_KEYS = ("address", "cert", "key", "client_ca", "start", "absent_wait", "live")
START_NOW = "now"
START_ALL = "all"  # when every remote bot is connected


def start_time(text: str, now: datetime) -> datetime | None:
    """When play starts, for ``start`` read at ``now`` (an aware local time): ``now``; ``all``
    (None: once every remote bot is connected); ``HH:MM`` (today, local time); or an ISO-8601
    date and time (local unless it names its offset). A moment in the past is now, so that a
    resumed tournament does not wait for a start that has gone by."""
    if text == START_NOW:
        return now
    if text == START_ALL:
        return None
    try:
        if "-" in text:
            when = datetime.fromisoformat(text)
        else:
            when = datetime.combine(now.date(), time.fromisoformat(text))
    except ValueError:
        raise ConfigError(
            f"start {text!r}: expected now, all (when every remote bot is connected), HH:MM "
            "(today, local time) or a date and time such as 2026-12-03T14:00"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=now.tzinfo)
    return max(when, now)


def split_address(text: str, what: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` too) as (host, port); one line if it is not one."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"{what} {text!r}: expected HOST:PORT, e.g. {DEFAULT_ADDRESS}")
    return host.strip("[]") if host.startswith("[") else host, int(port)


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """Where remote bots connect, with which TLS files; the absence wait; the live page."""

    address: str = DEFAULT_ADDRESS
    cert: str | None = None
    key: str | None = None
    client_ca: str | None = None
    start: str = START_NOW  # start_time's forms
    absent_wait: float = DEFAULT_ABSENT_WAIT
    live: str = DEFAULT_LIVE  # "" or "off": no live page

    @property
    def tls(self) -> TlsFiles | None:
        """The TLS files, or None for plain text."""
        if self.cert is None or self.key is None:
            return None
        ca = Path(self.client_ca) if self.client_ca else None
        return TlsFiles(Path(self.cert), Path(self.key), ca)

    @property
    def live_address(self) -> tuple[str, int] | None:
        """(host, port) of the live page, or None when it is off."""
        if self.live in ("", "off"):
            return None
        return split_address(self.live, "live")

    def check(self) -> list[str]:
        """Raise :class:`ConfigError` for an unusable combination; return warnings."""
        host, _port = split_address(self.address, "address")
        if (self.cert is None) != (self.key is None):
            raise ConfigError("cert and key go together: give both for TLS, or neither")
        if self.client_ca is not None and self.cert is None:
            raise ConfigError("client_ca (mutual TLS) needs cert and key: TLS first")
        if self.absent_wait < 0:
            raise ConfigError(f"absent_wait must be at least 0 seconds, got {self.absent_wait:g}")
        self.live_address  # noqa: B018 (checks its form)
        start_time(self.start, datetime.now().astimezone())  # its form
        if self.cert is None:
            if not is_loopback(host):
                raise ConfigError(
                    f"address {self.address!r} is not a loopback address: remote bots connect "
                    "over TLS only (give cert and key); plain text is for 127.0.0.1 alone"
                )
            return [
                f"the referee listens on {self.address} in plain text (no cert and key): "
                "only bots on this machine can reach it, and nothing is encrypted"
            ]
        return []


def parse_serve(r: Reader, table: dict[str, Any]) -> ServeSettings:
    """The ``[serve]`` table, paths resolved against the file's directory."""
    path: tuple[str | int, ...] = ("serve",)
    r.check_keys(table, SERVE_KEYS, path)
    fields: dict[str, Any] = {}
    for key in ("address", "start", "live"):
        if key in table:
            fields[key] = r.get(table, key, str, path, "a string")
    for key in ("cert", "key", "client_ca"):
        if key in table:
            text = r.get(table, key, str, path, "a file path")
            fields[key] = str((r.base / text).resolve())
    if "absent_wait" in table:
        value = table["absent_wait"]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise r.error((*path, "absent_wait"), f"expected seconds, got {value!r}")
        fields["absent_wait"] = float(value)
    settings = ServeSettings(**fields)
    try:
        settings.check()
    except ConfigError as exc:
        first = next((k for k in SERVE_KEYS if k in table and k in str(exc)), None)
        raise r.error((*path, first) if first else path, str(exc)) from None
    return settings
