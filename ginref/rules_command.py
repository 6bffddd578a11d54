"""``ginref rules``: the profiles, one profile's parameters, or one parameter explained.

The text comes from :mod:`referee.engine.reference`, the source docs/rules.md is checked against;
the ``format_*`` functions are pure and print nothing.
"""

from __future__ import annotations

import textwrap

import click

from referee.engine.reference import (
    PARAMETER_DOCS,
    PROFILE_DOCS,
    ParameterDoc,
    ProfileDoc,
    lookup,
    profile_values,
)
from referee.engine.rules import PARAMETERS, PROFILES, did_you_mean

_DOCS = "docs/rules.md"


def format_profiles() -> str:
    """One line per profile: its name and what it is for."""
    width = max(map(len, PROFILES))
    lines = [f"{name:<{width}}  {PROFILE_DOCS[name].purpose}" for name in PROFILES]
    return "\n".join(
        [
            "Rule profiles:",
            *(f"  {line}" for line in lines),
            "",
            "ginref rules PROFILE lists a profile's parameters; ginref rules PARAMETER",
            f"explains one; {_DOCS} has the rules.",
        ]
    )


def format_profile(name: str) -> str:
    """Every parameter of profile ``name`` with its value; ``*`` marks a value unlike standard's."""
    values = profile_values(name)
    standard = profile_values("standard")
    width = max(map(len, PARAMETERS))
    lines = [f"Profile {name}: {PROFILE_DOCS[name].purpose}"]
    if name != "standard":
        lines.append("(* = differs from standard)")
    for param in PARAMETERS:
        mark = "  *" if values[param] != standard[param] else ""
        lines.append(f"  {param:<{width}}  {values[param]}{mark}")
    return "\n".join(lines)


_COLUMNS = 80  # the text is read in terminals of any width: it fits the narrowest usual one


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, _COLUMNS, subsequent_indent=indent, break_on_hyphens=False)


def format_parameter(doc: ParameterDoc) -> str:
    """What parameter ``doc`` decides, its values and their meaning, its rules and profiles,
    in lines of at most 80 columns."""
    width = max(len(value) for value, _ in doc.values)
    lines = [*_wrap(f"{doc.name}: {doc.summary}"), f"Rules: {', '.join(doc.rules)} in {_DOCS}"]
    lines.append("Values:")
    for value, meaning in doc.values:
        lines += _wrap(f"  {value:<{width}}  {meaning}", " " * (width + 4))
    if doc.note:
        lines += _wrap(doc.note)
    lines.append("In each profile:")
    pwidth = max(map(len, PROFILES))
    lines += [f"  {p:<{pwidth}}  {profile_values(p)[doc.name]}" for p in PROFILES]
    return "\n".join(lines)


def format_entry(doc: ParameterDoc | ProfileDoc) -> str:
    """A parameter or a profile, whichever ``doc`` is."""
    if isinstance(doc, ParameterDoc):
        return format_parameter(doc)
    return format_profile(doc.name)


def unknown_name_message(name: str) -> str:
    """One line for a NAME that is neither a profile nor a parameter."""
    hint = did_you_mean(name, [*PROFILES, *PARAMETER_DOCS]) or " (ginref rules lists the profiles)"
    return f"{name!r} is neither a rule profile nor a rule parameter{hint}"


@click.command("rules")
@click.argument("name", required=False)
def rules_command(name: str | None) -> None:
    """List the rule profiles, show a PROFILE's parameters, or explain a PARAMETER.

    Without NAME: every profile and what it is for. With a profile's name (e.g. openspiel): all
    its parameters, * marking those that differ from standard. With a parameter's name (e.g.
    wall_rule): what it decides, its values, its rule numbers and its value in each profile.
    """
    if name is None:
        click.echo(format_profiles())
        return
    doc = lookup(name)
    if doc is None:
        raise click.ClickException(unknown_name_message(name))
    click.echo(format_entry(doc))
