"""The sandbox uids of the tests that look for their bots' processes by uid.

Such a test checks that no process of its uids is left, so its uids must be its own: no other
test running at the same time, and no other ginref on the machine (which leases the default
range, 64000 on), may lease them. ``scripts/test`` runs the suite in several pytest-xdist worker
processes, so each worker gets ranges of its own, numbered from its name (gw0, gw1...).
"""

from __future__ import annotations

import os

from referee.bots.sandbox import SandboxSettings

FIRST_UID = 71000
RANGE = 100  # uids in a range: far more than the bots one test runs at once
# What each range of a worker is for.
SANDBOX_TESTS = 0  # tests/bots/test_sandbox_*.py
HOSTILE_TESTS = 1  # tests/bots/test_hostile_bots.py
RANGES_PER_WORKER = 2


def worker() -> int:
    """This process's number among pytest-xdist's workers; 0 when the suite runs in one."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(name.removeprefix("gw"))


def own_uids(use: int) -> SandboxSettings:
    """The sandbox settings of this worker's range for ``use`` (SANDBOX_TESTS, HOSTILE_TESTS)."""
    first = FIRST_UID + (worker() * RANGES_PER_WORKER + use) * RANGE
    return SandboxSettings(uid_base=first, uid_count=RANGE)
