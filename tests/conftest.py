"""The test suite: folders mirror the packages (engine, referee, bots, replays, tournaments,
sample_bots, cli); helpers and the hostile test bot live in ``tests/support``.

End-to-end tests (real bot processes, servers, browsers) carry the ``slow`` marker:
``pytest -m "not slow"`` runs the rest in well under a minute; ``scripts/test`` runs everything.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from referee.replay_log import ReplayLogWriter, load_schema

# No test may depend on the machine's speed: hypothesis's per-example deadline and its health
# check of slow data generation both do, so neither applies anywhere (max_examples bounds the
# time instead). A test's own @settings keeps these unless it names them.
settings.register_profile("ginref", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ginref")

LOG_SCHEMA = Draft202012Validator(load_schema())


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every ``$ref`` replaced by the definition it names (the schema has no
    cycles): resolving references is most of what validating a record costs."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, defs) for k, v in node.items() if k != "$ref"}
    if "$ref" in node:
        out = {**_inline(defs[node["$ref"].removeprefix("#/$defs/")], defs), **out}
    return out


# One validator per record type (its $defs entry, inlined): checking a record against the
# top-level oneOf tries all eight definitions, and the suite writes a great many records.
_BY_TYPE = {
    ref["$ref"].removeprefix("#/$defs/"): Draft202012Validator(_inline(ref, load_schema()["$defs"]))
    for ref in load_schema()["oneOf"]
}
_SEEN: dict[str, str | None] = {}  # a record's JSON -> what breaks the schema (None: nothing)


def schema_error(line: str) -> str | None:
    """What in one log line breaks the log's JSON Schema, or None."""
    if line in _SEEN:
        return _SEEN[line]
    record = json.loads(line)
    validator = _BY_TYPE.get(record.get("type"), LOG_SCHEMA)
    error = best_match(validator.iter_errors(record))
    found = None
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        found = f"{record.get('type')} {where}: {error.message[:300]}"
    _SEEN[line] = found
    return found


@pytest.fixture(autouse=True)
def every_log_record_follows_the_schema(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every record the referee writes in any test, checked against the log's JSON Schema.

    Records are checked as they are written (as JSON, the way a reader gets them), so each log
    the suite makes, of every profile and every fault, is held to the schema; the test fails
    at its end with the first record that breaks it.
    """
    broken: list[str] = []
    write = ReplayLogWriter.write

    def checked(self: ReplayLogWriter, record_type: str, **fields: Any) -> None:
        write(self, record_type, **fields)
        error = schema_error(json.dumps({"type": record_type, **fields}, sort_keys=True))
        if error is not None:
            broken.append(f"{self.path.name}: {error}")

    monkeypatch.setattr(ReplayLogWriter, "write", checked)
    yield
    assert broken == [], broken[0]
