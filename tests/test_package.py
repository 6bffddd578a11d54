"""The package surface: lazy re-exports, and what importing the wire code costs."""

from __future__ import annotations

import subprocess
import sys

import referee


def test_every_exported_name_resolves() -> None:
    for name in referee.__all__:
        assert getattr(referee, name) is not None, name


def test_importing_the_wire_code_does_not_load_the_engine() -> None:
    code = (
        "import sys, referee.wire.ginrummy_pb2; "
        "print(any(m in sys.modules for m in ('referee.engine.match', 'referee.engine.melds')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"
