"""A submission's build in the sandbox: what it sees and may write, and each limit it can break
(time, memory, disk, the network it does not have), reported with its status and tail."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.bots.confine import sandbox_problem
from tests.support.sandbox_helpers import SANDBOX, assert_nothing_left
from tournaments.ladder.build import BuildLimits, build, tail_text, tree_size
from tournaments.ladder.errors import SubmissionError

LIMITS = BuildLimits(time_s=60, memory_bytes=256 << 20, disk_bytes=16 << 20, pids=64)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sandbox_problem(SANDBOX) is not None, reason="no sandbox here"),
]


@pytest.fixture
def season(tmp_path: Path) -> Iterator[Path]:
    """A season's directory with two versions: ``a/1`` is built, ``b/1`` another entrant's."""
    (tmp_path / "season.toml").write_text("secret = 1\n")
    for name in ("a", "b"):
        (tmp_path / "versions" / name / "1").mkdir(parents=True)
    (tmp_path / "versions" / "b" / "1" / "secret.py").write_text("theirs")
    (tmp_path / "versions" / "a" / "1" / "bot.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "submissions").mkdir()
    assert_nothing_left()
    yield tmp_path
    assert_nothing_left()  # the build's every process is gone, whatever ended it


def run(season: Path, command: str, limits: BuildLimits = LIMITS) -> SubmissionError | str:
    """Build ``a/1`` with ``command``; the error, or the log's text."""
    log = season / "submissions" / "a.log"
    try:
        build(season / "versions" / "a" / "1", command, limits, SANDBOX, log)
    except SubmissionError as exc:
        assert exc.step == "build"
        return exc
    return log.read_text()


def test_a_build_compiles_in_its_directory_which_comes_back_to_root(season: Path) -> None:
    here = season / "versions" / "a" / "1"
    log = run(season, "cc bot.c -o bot && chmod 4755 bot && chmod 600 bot.c && echo built; id -u")
    assert isinstance(log, str), log
    lines = log.splitlines()
    assert (
        lines[0]
        == "build: cc bot.c -o bot && chmod 4755 bot && chmod 600 bot.c && echo built; id -u"
    )
    assert lines[1] == "built"
    assert int(lines[2]) in range(SANDBOX.uid_base, SANDBOX.uid_base + SANDBOX.uid_count)
    assert lines[3].startswith("build: exit 0 after ")
    # Root's again, readable by every bot's uid, writable by none, never setuid.
    for name, mode in (("bot", 0o755), ("bot.c", 0o644), (".", 0o755)):
        info = (here / name).stat()
        assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (0, mode), name
    # The tmpfs it was built in is gone, and nothing was left beside the directory.
    assert not os.path.ismount(here)
    assert sorted(p.name for p in here.parent.iterdir()) == ["1"]


def test_a_compile_error_reports_its_status_and_tail(season: Path) -> None:
    (season / "versions" / "a" / "1" / "bot.c").write_text("int main(void) { return x; }\n")
    error = run(season, "echo compiling; cc -c bot.c")
    assert isinstance(error, SubmissionError)
    assert error.status == "exit 1"
    assert error.message == "the build failed: exit 1"
    assert error.tail.startswith("compiling\n")
    assert "x’ undeclared (first use in this function)" in error.tail
    log = (season / "submissions" / "a.log").read_text()
    assert "x’ undeclared (first use in this function)" in log
    assert log.splitlines()[-1].startswith("build: exit 1 after ")


def test_the_time_limit_kills_the_whole_tree(season: Path) -> None:
    limits = BuildLimits(time_s=1, memory_bytes=LIMITS.memory_bytes, disk_bytes=LIMITS.disk_bytes)
    error = run(season, "echo waiting; (sleep 1000 &); sleep 1000", limits)
    assert isinstance(error, SubmissionError)
    assert error.status == "killed by SIGKILL: over the time limit of 1 s"
    assert error.tail == "waiting"
    # The fixture checks that neither sleep is left.


def test_no_network(season: Path) -> None:
    error = run(
        season, "{python} -c \"import socket; socket.create_connection(('1.1.1.1', 80), 5)\""
    )
    assert isinstance(error, SubmissionError)
    assert error.status == "exit 1"
    assert "Network is unreachable" in error.tail


def test_writing_over_the_disk_cap_fails_and_leaves_at_most_the_cap(season: Path) -> None:
    error = run(season, "for i in 1 2 3; do head -c 10000000 /dev/zero > f$i; done")
    assert isinstance(error, SubmissionError)
    assert error.status is not None
    assert error.status.endswith("its directory reached the disk limit of 16 MiB")
    assert "No space left on device" in error.tail
    size, _ = tree_size(season / "versions" / "a" / "1")
    assert size <= LIMITS.disk_bytes


def test_the_memory_limit(season: Path) -> None:
    error = run(season, '{python} -c "x = bytearray(1 << 30)"')
    assert isinstance(error, SubmissionError)
    assert error.status is not None
    assert "the memory limit of 256 MiB" in error.status


def test_what_a_build_sees(season: Path) -> None:
    command = (
        "cat ../../b/1/secret.py || echo no-other; "
        "test -e ../../../season.toml || echo no-season; "
        "touch /usr/x || echo system-read-only; "
        'touch "$GINREF_PROTO/x" || echo image-read-only; '
        "ls $GINREF_PROTO/ginrummy/v1; "
        "echo t > /tmp/t && echo tmp-writable; "
        "test -d $NODE_PATH/@grpc/grpc-js && echo node-modules"
    )
    log = run(season, command)
    assert isinstance(log, str), log
    for word in (
        "no-other",
        "no-season",
        "system-read-only",
        "image-read-only",
        "ginrummy.proto",
        "tmp-writable",
        "node-modules",
    ):
        assert word in log.splitlines(), (word, log)
    assert "theirs" not in log


def test_the_tail_is_the_last_lines_and_bytes() -> None:
    data = b"".join(f"line {i}\n".encode() for i in range(100))
    assert tail_text(data).splitlines() == [f"line {i}" for i in range(40, 100)]
    long = b"x" * 10_000 + b"\nend\n"
    assert tail_text(long) == "end"


def test_files_that_do_not_fit_the_disk_cap_fail_before_the_build(season: Path) -> None:
    here = season / "versions" / "a" / "1"
    (here / "data.bin").write_bytes(bytes(LIMITS.disk_bytes + 1))
    error = run(season, "echo never runs")
    assert isinstance(error, SubmissionError)
    assert error.message == "the archive's files do not fit in the disk limit of 16 MiB"
    # The directory is as it was, not mounted over; nothing is left beside it.
    assert not os.path.ismount(here)
    assert sorted(p.name for p in here.iterdir()) == ["bot.c", "data.bin"]
    assert sorted(p.name for p in here.parent.iterdir()) == ["1"]
