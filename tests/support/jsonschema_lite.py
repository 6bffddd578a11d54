"""The subset of JSON Schema (draft 2020-12) that docs/replay-log.schema.json uses.

The project has no JSON Schema library among its dependencies; this checks every keyword the
schema uses and refuses any other, so the schema cannot silently say more than is checked.
"""

from __future__ import annotations

import re
from typing import Any

_KEYWORDS = {
    "$schema", "$id", "$ref", "$defs", "title", "description",
    "type", "const", "enum", "properties", "required", "additionalProperties",
    "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum", "minLength",
    "pattern", "oneOf", "anyOf",
}  # fmt: skip
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def errors(value: Any, schema: dict[str, Any], root: dict[str, Any], path: str = "$") -> list[str]:
    """Every violation of ``schema`` by ``value`` (empty: valid)."""
    unknown = set(schema) - _KEYWORDS
    if unknown:
        raise ValueError(f"unsupported schema keywords {sorted(unknown)} at {path}")
    out: list[str] = []
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        out += errors(value, root["$defs"][name], root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](value) for t in types):
            return [*out, f"{path}: {value!r} is not of type {schema['type']}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: {value!r} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} not in {schema['enum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        out += [f"{path}: missing {k!r}" for k in schema.get("required", []) if k not in value]
        for key, item in value.items():
            if key in props:
                out += errors(item, props[key], root, f"{path}.{key}")
            elif schema.get("additionalProperties", True) is False:
                out.append(f"{path}: unexpected key {key!r}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 1 << 30):
            out.append(f"{path}: {len(value)} items")
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else schema.get("items")
            if sub is not None:
                out += errors(item, sub, root, f"{path}[{i}]")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < schema.get("minimum", float("-inf")):
            out.append(f"{path}: {value} < {schema['minimum']}")
        if value > schema.get("maximum", float("inf")):
            out.append(f"{path}: {value} > {schema['maximum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            out.append(f"{path}: shorter than {schema['minLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{path}: {value!r} does not match {schema['pattern']}")
    for key, needed in (("oneOf", 1), ("anyOf", None)):
        if key in schema:
            passing = sum(not errors(value, s, root, path) for s in schema[key])
            if (needed is None and passing == 0) or (needed == 1 and passing != 1):
                out.append(f"{path}: {passing} of the {key} alternatives match")
    return out
