"""Fixtures of the bot tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.sandbox_helpers import assert_nothing_left


@pytest.fixture
def sandbox_uids_free() -> Iterator[None]:
    """No process runs under the sandbox tests' uids before the test or after it (a range of
    their own: this speaks of their bots only)."""
    assert_nothing_left()
    yield
    assert_nothing_left()
