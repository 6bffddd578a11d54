"""Fixtures shared by the referee's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.referee_helpers import env_pidfile, no_process_left


@pytest.fixture
def pidfile(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Test bots record their pids under this prefix; none may be alive after the test."""
    prefix = env_pidfile(monkeypatch, tmp_path)
    yield prefix
    no_process_left(prefix)
