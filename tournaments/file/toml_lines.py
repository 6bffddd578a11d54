"""TOML with line numbers: where each key of a tournament file is, for errors that name it.

:mod:`tomllib` gives line numbers only for syntax errors, so :class:`KeyLines` finds the line of
each key path by scanning the text, and :class:`Reader` reads typed values, raising
:class:`TournamentFileError` with the file, the line and the key, e.g.
``sample.toml:14: bots[2].command: must not be empty``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.errors import ConfigError


class TournamentFileError(ConfigError):
    """A tournament file that does not parse or holds a bad value; names the key and line."""


_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_PART = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_KEY = re.compile(rf"^\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")
_INLINE_KEY = re.compile(rf"[{{,]\s*({_PART})\s*=")


def _split_key(text: str) -> list[str]:
    parts = re.findall(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""", text)
    return [p[1:-1] if p[:1] in "\"'" else p for p in parts]


class KeyLines:
    """The line of each key path of a TOML text, e.g. ``("bots", 1, "command")`` -> 14."""

    def __init__(self, text: str) -> None:
        self.lines: dict[tuple[str | int, ...], int] = {}
        counts: dict[tuple[str, ...], int] = {}
        table: tuple[str | int, ...] = ()
        for number, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header and not _KEY.match(line):
                names = tuple(_split_key(header.group(2)))
                # A sub-table of an array of tables (``[bots.env]``) belongs to its last element.
                resolved: list[str | int] = []
                for depth, name in enumerate(names):
                    resolved.append(name)
                    prefix = names[: depth + 1]
                    if prefix in counts and depth + 1 < len(names):
                        resolved.append(counts[prefix] - 1)
                if header.group(1) == "[[":
                    index = counts.get(names, 0)
                    counts[names] = index + 1
                    resolved.append(index)
                table = tuple(resolved)
                self.lines.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key:
                keypath: tuple[str | int, ...] = (*table, *_split_key(key.group(1)))
                self.lines.setdefault(keypath, number)
                rest = line[key.end() :]
                for inner in _INLINE_KEY.finditer(rest):
                    self.lines.setdefault((*keypath, *_split_key(inner.group(1))), number)

    def line(self, path: Sequence[str | int]) -> int | None:
        """The line of ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None


def _path_text(path: Sequence[str | int]) -> str:
    out = ""
    for part in path:
        out += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


class Reader:
    """Typed access to a parsed TOML document that reports the key and line of each error."""

    def __init__(self, source: str, text: str, base: Path) -> None:
        self.source = source
        self.keys = KeyLines(text)
        self.base = base

    def error(self, path: Sequence[str | int], message: str) -> TournamentFileError:
        """The error ``message`` about the key at ``path``, naming the file and its line."""
        line = self.keys.line(path)
        where = f"{self.source}:{line}" if line else self.source
        key = _path_text(path)
        return TournamentFileError(f"{where}: {key}: {message}" if key else f"{where}: {message}")

    def check_keys(
        self, table: Mapping[str, Any], allowed: Sequence[str], path: Sequence[str | int]
    ) -> None:
        """Refuse a key of ``table`` that is not ``allowed``, suggesting the closest one."""
        for key in table:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                known = f"; known keys: {', '.join(allowed)}"
                raise self.error((*path, key), f"unknown key{hint}{known}")

    def get(
        self,
        table: Mapping[str, Any],
        key: str,
        kind: type | tuple[type, ...],
        path: Sequence[str | int],
        what: str,
    ) -> Any:
        """``table[key]`` if it is of ``kind`` (an int is a fine float), else an error."""
        value = table[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # TOML booleans are not numbers here, and an integer is a fine float.
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok, value = True, float(value)
        if not ok:
            raise self.error((*path, key), f"expected {what}, got {value!r}")
        return value
