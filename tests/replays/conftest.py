"""Logs of real matches (greedy v random bot processes) that the replay tests read: played once
per session, for the terminal view's tests and ginref verify's alike."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from referee.engine.rules import Rules
from referee.series import run_match
from tests.support.referee_helpers import FAST, bot
from tests.support.replay_helpers import CONFIGS, play_logs


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A log per profile and per rule set no profile has (tests/support/replay_helpers.py)."""
    return play_logs(tmp_path_factory.mktemp("logs"), CONFIGS)


@pytest.fixture(scope="session")
def standard(logs: dict[str, Path]) -> Path:
    return logs["standard"]


@pytest.fixture(scope="session")
def fault_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Logs of matches with faults: a forgiven illegal action, then a forfeit; a crash."""
    out = tmp_path_factory.mktemp("faults")
    retry = dataclasses.replace(FAST, retries=1)
    rules = Rules.profile("standard")
    return {
        "retry": run_match(bot("illegal_once"), bot(), rules, 3, out / "retry", retry).log_path,
        "illegal": run_match(bot("illegal"), bot(), rules, 3, out / "illegal", FAST).log_path,
        "crash": run_match(bot(), bot("crash", 6), rules, 3, out / "crash", FAST).log_path,
    }
