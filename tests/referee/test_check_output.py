"""What a failed check quotes of a bot's output: its last lines, led by the one that names the
error when a runtime's report ends with lines that say little."""

from __future__ import annotations

from pathlib import Path

from referee.bot_check import TAIL_CHARS, output_tail

NODE = """node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/srv/bots/greedy.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
"""

PYTHON = """Traceback (most recent call last):
  File "/srv/bots/bot.py", line 3, in <module>
    import grpc
ModuleNotFoundError: No module named 'grpc'
"""


def test_the_line_that_names_the_error_leads(tmp_path: Path) -> None:
    out = tmp_path / "bot.log"
    out.write_text(NODE)
    assert output_tail(out) == (
        "Error: Cannot find module '/srv/bots/greedy.js' | … | Node.js v20.20.2"
    )
    out.write_text(PYTHON)
    assert output_tail(out) == (
        'File "/srv/bots/bot.py", line 3, in <module> | import grpc | '
        "ModuleNotFoundError: No module named 'grpc'"
    )


def test_the_tail_is_short_safe_and_skips_the_referees_own_note(tmp_path: Path) -> None:
    out = tmp_path / "bot.log"
    out.write_text("ginref: could not start 'x'\n")
    assert output_tail(out) == ""
    out.write_text("\x1b[31mred\x1b[0m\n" + "y" * 1000 + "\n")
    tail = output_tail(out)
    assert "\x1b" not in tail and len(tail) == TAIL_CHARS and tail.startswith("…")
    assert output_tail(tmp_path / "none.log") == ""
