"""The project speaks of itself only: no text about how its work was planned or tracked."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".md", ".py", ".proto", ".toml", ".js", ".go", ".cc", ".h", ".java", ".html"}
SKIP = {".venv", ".git", "node_modules", "out", "build", "__pycache__", ".hypothesis", ".mutation"}
# Phrases that refer to a work item rather than to the product ("the issue asked for ...").
PLANNING = re.compile(
    r"\b(?:the|this|that|an|our) issue\b|\bissue(?:'s| #?\d+)|\bas requested\b",
    re.IGNORECASE,
)


def project_files() -> list[Path]:
    return [
        path
        for path in ROOT.rglob("*")
        if path.suffix in SUFFIXES
        and path.is_file()
        and not SKIP.intersection(path.relative_to(ROOT).parts)
        and not path.name.endswith(("_pb2.py", "_pb2_grpc.py", "_pb2.pyi"))
    ]


def test_no_planning_words_in_code_or_docs() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in project_files()
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if PLANNING.search(line)
    ]
    assert not found, "\n".join(found)


def test_the_pattern_catches_what_it_is_for() -> None:
    assert PLANNING.search("The issue asked for every deck")
    assert PLANNING.search("Parity (the issue's test)")
    assert not PLANNING.search("`series` issues a seat ticket on the server")
