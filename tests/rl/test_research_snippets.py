"""Every Python snippet of docs/research.md runs as it is written: it imports what it uses."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each snippet in an interpreter of its own, some playing matches

RESEARCH = Path(__file__).resolve().parents[2] / "docs" / "research.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", RESEARCH.read_text(), re.S)


def test_the_page_has_its_snippets() -> None:
    assert len(SNIPPETS) >= 3


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.splitlines()[0] for s in SNIPPETS])
def test_a_snippet_runs_in_a_fresh_interpreter(snippet: str, tmp_path: Path) -> None:
    # A fresh interpreter in an empty directory: nothing imported before it, no file beside it.
    done = subprocess.run(
        [sys.executable, "-c", snippet], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
