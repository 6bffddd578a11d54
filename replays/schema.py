"""Every line of a replay log against the log's JSON Schema, with :mod:`jsonschema`.

The schema (:func:`referee.replay_log.load_schema`) says a line is one of the record types;
checking a record against its own type's definition (``$defs/<type>``) rather than the
top-level ``oneOf`` names the field that is wrong instead of "not valid under any of the given
schemas". A record of no known type is checked against the whole schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from referee.replay_log import load_schema


@cache
def _validator(record_type: str | None) -> Draft202012Validator:
    schema = load_schema()
    if record_type is None:
        return Draft202012Validator(schema)
    return Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{record_type}"})


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every ``$ref`` replaced by the definition it names (the schema has no
    cycles): resolving references is most of what validating a record costs."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, defs) for k, v in node.items() if k != "$ref"}
    if "$ref" in node:
        out = {**_inline(defs[str(node["$ref"]).removeprefix("#/$defs/")], defs), **out}
    return out


@cache
def _quick(record_type: str) -> Draft202012Validator:
    """A validator of one record type with its references inlined: the same verdict as
    :func:`_validator`'s, five times as fast; the error message comes from the other."""
    defs = load_schema()["$defs"]
    return Draft202012Validator(_inline(defs[record_type], defs))


@cache
def _record_types() -> frozenset[str]:
    """The record types: the definitions the top-level ``oneOf`` refers to."""
    refs = (str(item.get("$ref", "")) for item in load_schema()["oneOf"])
    return frozenset(ref.removeprefix("#/$defs/") for ref in refs)


def _schema_path(record_type: str | None, error: ValidationError) -> str:
    parts = [str(p) for p in error.absolute_schema_path]
    if parts[:1] == ["$ref"]:
        parts = parts[1:]
    if record_type is not None and parts[:1] != ["$defs"]:
        parts = ["$defs", record_type, *parts]
    return "/".join(parts) or "(root)"


def _field(error: ValidationError) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)


def schema_problem(record: Any) -> str | None:
    """The first way ``record`` breaks the schema, in one line, or None when it follows it.

    ``schema $defs/match_result/properties/margin/minimum: margin: -12 is less than the
    minimum of 0``: the schema path, then the field and what is wrong with it.
    """
    kind = record.get("type") if isinstance(record, dict) else None
    known = kind if isinstance(kind, str) and kind in _record_types() else None
    if known is not None and _quick(known).is_valid(record):
        return None
    errors = _validator(known).iter_errors(record)
    # A known type's errors come in document order (the first bad card of a deck first); an
    # unknown one's are the top-level oneOf's, where best_match picks the telling one.
    error = next(errors, None) if known is not None else best_match(errors)
    if error is None:
        return None
    where = _field(error).lstrip(".")
    message = str(error.message)
    message = message if len(message) <= 200 else message[:197] + "..."
    return f"schema {_schema_path(known, error)}: " + (f"{where}: " if where else "") + message


def schema_problems(records: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, str]]:
    """``(line, problem)`` for each numbered record that breaks the schema."""
    for line, record in records:
        problem = schema_problem(record)
        if problem is not None:
            yield line, problem
