"""What differs between a journal's tournament and the one a run was given, in words.

A run refuses a journal of another tournament (:meth:`~tournaments.journal.store.Journal.
check_identity`): the organiser reads why in one sentence per difference, named as the
tournament file names it (a bot, a rule, ``matches``, ``time.move_time``) with both values,
never a dump of the identity's dictionaries.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection
from typing import Any

# What a bot's key is called in a sentence.
_BOT_FIELDS = {"command": "command", "cwd": "cwd", "env": "environment", "dir": "dir"}


def differences(
    stored: dict[str, Any], fresh: dict[str, Any], withdrawn: Collection[str] = ()
) -> list[str]:
    """Each difference between two identities as a sentence, the journal's value first; none
    when they agree. A withdrawn bot is never started: its entry may change, or go."""
    out: list[str] = []
    for key in sorted(set(stored) | set(fresh)):
        old, new = stored.get(key), fresh.get(key)
        if old == new:
            continue
        if key == "bots":
            out += _bots(old or [], new or [], withdrawn)
        elif key == "rules":
            out += _values(old or {}, new or {}, "the rule ")
        elif key == "teams":
            out.append(f"the teams differ ({_teams(old)} in the journal, {_teams(new)} now)")
        else:
            out += _values({key: old}, {key: new}, "")
    return out


def _values(old: dict[str, Any], new: dict[str, Any], prefix: str) -> list[str]:
    """Differing values by key; a table within a table by its dotted key (``time.bank``)."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        name = "the rule profile" if prefix == "the rule " and key == "profile_name" else None
        if isinstance(a, dict) and isinstance(b, dict):
            out += _values(a, b, f"{prefix}{key}.")
        else:
            out.append(
                f"{name or prefix + key} differs ({_text(a)} in the journal, {_text(b)} now)"
            )
    return out


def _bots(
    old: list[dict[str, Any]], new: list[dict[str, Any]], withdrawn: Collection[str]
) -> list[str]:
    was = {b["name"]: b for b in old}
    now = {b["name"]: b for b in new}
    out = []
    for name in was:
        if name in now:
            if name not in withdrawn:
                out += _bot(name, was[name], now[name])
        elif name not in withdrawn:  # a withdrawn bot is never started: it may leave the file
            out.append(
                f"the bot {name} is not in the file any more (a bot cannot leave a tournament "
                f"that has begun: use 'ginref withdraw FILE {name}' to take it out of play, "
                "and keep it in the file)"
            )
    for name in now:
        if name not in was:
            out.append(
                f"the bot {name} is new (a tournament takes no new bot once it has begun: "
                "start another one, in another --out directory)"
            )
    common = [n for n in was if n in now]
    if not out and common != [n for n in now if n in was]:
        out.append(
            f"the bots are in another order ({', '.join(was)} in the journal; {', '.join(now)} now)"
        )
    return out


def _bot(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    if bool(old.get("remote")) != bool(new.get("remote")):
        where = ("remote", "local") if old.get("remote") else ("local", "remote")
        return [f"the bot {name} is {where[0]} in the journal, {where[1]} now"]
    out = []
    for key in sorted((set(old) | set(new)) - {"name"}):
        a, b = old.get(key), new.get(key)
        if a != b:
            field = _BOT_FIELDS.get(key, key)
            # A command as a shell would be given it.
            shown = [shlex.join(v) if key == "command" and v else _text(v) for v in (a, b)]
            out.append(
                f"the bot {name}'s {field} differs ({shown[0]} in the journal, {shown[1]} now)"
            )
    return out


def _teams(teams: Any) -> str:
    if not teams:
        return "none"
    return ", ".join(f"{t['name']}: {' + '.join(t['bots'])}" for t in teams)


def _text(value: Any) -> str:
    """A value as the tournament file would be read aloud: no quotes, brackets or braces."""
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{k} = {_text(v)}" for k, v in value.items()) or "none"
    return str(value)
