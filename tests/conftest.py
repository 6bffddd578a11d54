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

from referee.replay_log import ReplayLogWriter
from replays.schema import schema_problem
from tests.support.certs import Certificates, make_certificates

# No test may depend on the machine's speed: hypothesis's per-example deadline and its health
# check of slow data generation both do, so neither applies anywhere (max_examples bounds the
# time instead). A test's own @settings keeps these unless it names them.
settings.register_profile("ginref", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ginref")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, then the others, each in collection order.

    ``scripts/test`` hands whole files to its pytest-xdist workers in this order: the long
    end-to-end files start early and the many quick ones fill in the end, so that neither
    worker is left alone at the end with a file of several minutes.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


_SEEN: dict[str, str | None] = {}  # a record's JSON -> what breaks the schema (None: nothing)


def schema_error(line: str) -> str | None:
    """What in one log line breaks the log's JSON Schema, or None (``ginref verify``'s check)."""
    if line not in _SEEN:
        _SEEN[line] = schema_problem(json.loads(line))
    return _SEEN[line]


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


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    """A test CA with the referee's and two clients' certificates and keys, once per module."""
    return make_certificates(tmp_path_factory.mktemp("certs"))
