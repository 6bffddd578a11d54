"""``ginref tournament`` on a terminal and into a pipe: on a pseudo-terminal the progress redraws
in place and, like the standings, fits the width (80 columns, and a wide terminal shows every
column); into a pipe it is plain lines, without escape sequences.

The pseudo-terminal's output is played into a terminal emulator (pyte) wider than the width the
command is given, so a line too long for it would show on the emulator's screen instead of
wrapping out of sight.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pyte
import pytest

from tests.support.referee_helpers import ROOT, TESTBOT

pytestmark = pytest.mark.slow  # real tournaments of real bot processes

BOUND = 300.0  # seconds without output before the test gives up: far above what a run needs
SCREEN = 240  # the emulator's columns, wider than any width the command is given


def tournament_file(tmp_path: Path) -> Path:
    # Kept processes: each bot starts once, not once a match; what is printed is the same.
    text = 'name = "term"\nseed = 4\nmatches = 4\nprocesses = "keep"\n'
    text += "[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n"
    bots = [
        ("play", "play"),
        ("first-legal-action-bot-with-a-long-name", "first"),
        ("again", "play"),
    ]
    for name, mode in bots:
        text += f'\n[[bots]]\nname = "{name}"\ncommand = "{{python}} {TESTBOT} {mode}"\n'
    path = tmp_path / "term.toml"
    path.write_text(text)
    return path


def on_terminal(argv: list[str], columns: int, cwd: Path = ROOT) -> tuple[bytes, int]:
    """Run ``argv`` in ``cwd`` on a pseudo-terminal ``columns`` wide; its output and exit
    status."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, columns, 0, 0))
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "60", "TERM": "xterm-256color"}
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, close_fds=True
    )
    os.close(slave)
    data = bytearray()
    try:
        while True:
            ready, _, _ = select.select([master], [], [], BOUND)
            assert ready, "no output for a long time"
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the command has exited and closed the terminal
                break
            if not chunk:
                break
            data += chunk
    finally:
        os.close(master)
    return bytes(data), proc.wait(timeout=BOUND)


def screen_of(data: bytes) -> list[str]:
    """The lines a terminal shows after ``data``, scrolled-off ones included."""
    screen = pyte.HistoryScreen(SCREEN, 60, history=10_000)
    pyte.ByteStream(screen).feed(data)
    while screen.history.top:
        screen.prev_page()
    lines: list[str] = []
    seen_pages = 0
    while True:
        lines += [line.rstrip() for line in screen.display]
        before = screen.history.position
        screen.next_page()
        seen_pages += 1
        if screen.history.position == before or seen_pages > 500:
            break
    while lines and not lines[-1]:
        lines.pop()
    return lines


def test_at_80_columns_the_progress_redraws_in_place_and_everything_fits(
    tmp_path: Path,
) -> None:
    file = tournament_file(tmp_path)
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file)]
    # The directory as given, relative: its line fits whatever the length of the tests' temporary
    # directory (longer under pytest-xdist, by a folder per worker).
    data, code = on_terminal([*argv, "--out", "out", "-j", "2"], 80, cwd=tmp_path)
    assert code == 0, data.decode(errors="replace")
    lines = screen_of(data)
    too_long = [line for line in lines if len(line) > 80]
    assert not too_long, "\n".join(too_long)
    # Many frames were drawn; the screen keeps one progress display, the final one.
    assert data.count(b"elapsed") >= 2
    progress = [line for line in lines if " elapsed" in line and "ETA" in line]
    assert len(progress) == 1 and "12/12" in progress[0]
    assert b"\x1b[" in data  # the cursor moved back over the display
    assert any(line.startswith("last: ") for line in lines)
    # The standings keep rank, bot, points and Elo with its interval at this width.
    head = next(line for line in lines if line.startswith("#  Bot"))
    assert "Points" in head and "Elo [95% interval]" in head
    assert "Think ms" not in head  # folded away: it does not fit
    assert any("first-legal-action-bot-with-a-long-name" in line for line in lines)
    assert "Tournament complete: 12 of 12 matches" in " ".join(lines)


def test_a_wide_terminal_shows_every_column(tmp_path: Path) -> None:
    file = tournament_file(tmp_path)
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "--out", str(out)]
    data, code = on_terminal([*argv, "-j", "2"], 200)
    assert code == 0, data.decode(errors="replace")
    lines = screen_of(data)
    assert max(len(line) for line in lines) <= 200
    head = next(line for line in lines if line.startswith("#  Bot"))
    for column in ("Played", "W-D-L", "Points", "%", "Elo [95% interval]", "Score +/-"):
        assert column in head
    for column in ("Hand pts +/-", "Hands won", "Gins", "Under", "Faults", "Think ms"):
        assert column in head
    # ginref standings on the same terminal prints the same table.
    again, code = on_terminal([sys.executable, "-m", "ginref.cli", "standings", str(out)], 200)
    assert code == 0 and head in screen_of(again)


def test_into_a_pipe_plain_lines_and_columns_as_told(tmp_path: Path) -> None:
    file = tournament_file(tmp_path)
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "-j", "2"]
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    wide = subprocess.run(
        [*argv, "--out", str(tmp_path / "wide")], cwd=ROOT, env=env, capture_output=True
    )
    assert wide.returncode == 0, wide.stderr
    text = wide.stdout.decode()
    assert "\x1b" not in text and "\r" not in text
    done = re.findall(r"^\[(\d+)/12\] ", text, flags=re.MULTILINE)
    assert sorted(int(n) for n in done) == list(range(1, 13))  # one line per finished match
    assert all(" elapsed, ETA " in line for line in text.splitlines() if line.startswith("["))
    head = next(line for line in text.splitlines() if line.startswith("#  Bot"))
    assert "Think ms" in head  # no width: every column
    # Run again, complete, it plays nothing and prints the same standings, here 80 wide.
    narrow = subprocess.run(
        [*argv, "--out", str(tmp_path / "wide")],
        cwd=ROOT,
        env={**env, "COLUMNS": "80"},
        capture_output=True,
    )
    assert narrow.returncode == 0, narrow.stderr
    assert "this run played 0" in narrow.stdout.decode()
    report = narrow.stdout.decode().split("Standings: ", 1)[1].splitlines()
    assert report[0] == "term, 12 of 12 matches"
    assert max(len(line) for line in report) <= 80


def test_a_partnership_round_shows_its_score_once_on_its_second_table_row() -> None:
    import random

    from referee.engine.game import new_game
    from referee.engine.rules import Rules
    from tests.engine.test_game import play_out
    from tournaments.outputs.console import format_group_hand_row

    game = new_game(Rules.profile("standard", players=4, target=60), 11)
    play_out(game, random.Random(4))
    rows = [(r, format_group_hand_row(r, teams=True)) for r in game.hand_results]
    assert {r.table for r, _ in rows} == {0, 1}
    for result, row in rows:
        score = "-".join(map(str, result.scores_after))
        # The first table's row ends with its points: the round is not scored yet.
        assert row.endswith(f"{result.points:>6}" + ("" if result.table == 0 else f"  {score:>11}"))
