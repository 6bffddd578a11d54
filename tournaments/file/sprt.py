"""A tournament file's ``[sprt]`` table: the hypotheses, error rates, model and most matches of a
sequential test (``format = "sprt"``, docs/testing-bots.md)."""

from __future__ import annotations

import dataclasses
from typing import Any

from tournaments.file.toml_lines import Reader
from tournaments.results.sprt_settings import MODELS, SprtSettings

SPRT_KEYS = ("elo0", "elo1", "alpha", "beta", "model", "max_matches")


def parse_sprt(r: Reader, table: dict[str, Any]) -> SprtSettings:
    """The ``[sprt]`` table; a mistake names its key and line."""
    path: tuple[str | int, ...] = ("sprt",)
    r.check_keys(table, SPRT_KEYS, path)
    fields: dict[str, Any] = {}
    for key in ("elo0", "elo1", "alpha", "beta"):
        if key in table:
            fields[key] = r.get(table, key, float, path, "a number")
    if "model" in table:
        model = r.get(table, "model", str, path, "a string")
        if model not in MODELS:
            raise r.error((*path, "model"), f"{model!r} is not one of: {', '.join(MODELS)}")
        fields["model"] = model
    if "max_matches" in table:
        fields["max_matches"] = r.get(table, "max_matches", int, path, "a whole number")
    settings = dataclasses.replace(SprtSettings(), **fields)
    problem = settings.problem()
    if problem is not None:
        at: str | None = next(
            (k for k in SPRT_KEYS if problem.startswith(k) and k in table),
            next((k for k in SPRT_KEYS if k in problem and k in table), None),
        )
        raise r.error((*path, at) if at else path, problem)
    return settings
