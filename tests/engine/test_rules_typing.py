"""Rule parameters are typed: mypy --strict rejects a misspelt value and accepts a correct one."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from mypy import api

ROOT = Path(__file__).resolve().parents[2]

CORRECT = """
    from __future__ import annotations

    from referee.engine.rules import Rules

    def dead_wall(rules: Rules) -> bool:
        return rules.wall_rule == "dead" or rules.payoff != "zero_sum"

    STRAIGHT = Rules(deal_mode="eleven_card", first_dealer="seat1")
"""

MISSPELT = """
    from __future__ import annotations

    from referee.engine.rules import Rules

    def rlcard_wall(rules: Rules) -> bool:
        return rules.wall_rule == "rlcrad"

    ELEVEN = Rules(deal_mode="eleven_cards")
"""


def test_mypy_rejects_misspelt_rule_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "correct.py").write_text(textwrap.dedent(CORRECT))
    (tmp_path / "misspelt.py").write_text(textwrap.dedent(MISSPELT))
    # The worktree, not an installed copy: mypy does not follow the editable install's hook.
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    out, err, _status = api.run(
        [
            "--strict",
            "--config-file",
            "",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
            "--hide-error-context",
            str(tmp_path / "correct.py"),
            str(tmp_path / "misspelt.py"),
        ]
    )
    assert not err, err
    errors = re.findall(r"^(.*?):(\d+): error: (.*)$", out, re.M)
    assert all(Path(f).name == "misspelt.py" for f, _, _ in errors), out
    by_line = {int(line): message for _, line, message in errors}
    assert sorted(by_line) == [7, 9], out
    assert "Non-overlapping equality check" in by_line[7] and "'rlcrad'" in by_line[7]
    assert "'eleven_cards'" in by_line[9] and '"deal_mode"' in by_line[9]
