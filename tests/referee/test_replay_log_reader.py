"""The replay-log reader reports foreign records by line instead of failing."""

from __future__ import annotations

import pytest

from referee.replay_log import read_log


@pytest.mark.parametrize("kind", ['["header"]', '{"a": 1}', "7", "null"])
def test_a_record_type_that_is_not_a_string_is_a_problem_on_its_line(kind: str) -> None:
    log = read_log([f'{{"type": {kind}}}\n'])
    assert log.problems and log.problems[0][0] == 1
    assert "unknown record type" in log.problems[0][1]
