"""Resource limits (referee/bots/limits.py, referee/bots/preexec.py): the settings, the launch
wrapper, the watch over a process group, the message size, and how a limit's crash is described."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.bots.limits import DEFAULT_MESSAGE, KIB, LIMIT_KEYS, MIB, Limits, describe_exit
from referee.bots.process import limited_command
from referee.bots.watch import GroupWatch
from referee.errors import ConfigError
from referee.transport import InvalidMessage, parse_bot_message
from referee.wire import ginrummy_pb2 as pb
from tests.support.referee_helpers import alive
from tournaments.file.config import TournamentFileError, parse_text

BOTS = """
[[bots]]
name = "a"
command = "prog"

[[bots]]
name = "b"
command = "prog"
"""


# --- settings -----------------------------------------------------------------------------------


def test_the_defaults_are_documented_values() -> None:
    limits = Limits()
    assert limits.to_dict() == {
        "cpu_seconds": 1800.0,
        "memory_mb": 2048.0,
        "address_space_mb": 0.0,
        "processes": 64,
        "output_mb": 16.0,
        "message_kb": 64.0,
        "cpus": 1.0,
        "open_files": 256,
    }
    assert limits.message_bytes == DEFAULT_MESSAGE == 64 * KIB


def test_the_documented_defaults_are_the_defaults() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "referee.md").read_text()
    documented = dict(re.findall(r"^\| `(\w+)` \| \*\*([\d.]+)\*\*", text, re.M))
    assert {k: float(v) for k, v in documented.items() if k in LIMIT_KEYS} == {
        k: float(v) for k, v in Limits().to_dict().items()
    }


def test_a_limits_table_is_read_in_its_units() -> None:
    text = textwrap.dedent(
        """
        [limits]
        cpu_seconds = 30
        memory_mb = 512
        address_space_mb = 4096
        processes = 8
        output_mb = 0.5
        message_kb = 16
        """
    )
    limits = parse_text(text + BOTS, "t.toml").limits
    assert limits == Limits(
        cpu_seconds=30.0,
        memory_bytes=512 * MIB,
        address_space_bytes=4096 * MIB,
        processes=8,
        output_bytes=MIB // 2,
        message_bytes=16 * KIB,
    )
    assert parse_text(text + BOTS, "t.toml").to_dict()["limits"]["output_mb"] == 0.5
    assert parse_text("[limits]\nmemory_mb = 0\n" + BOTS, "t.toml").limits.memory_bytes == 0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("memory = 5", "t.toml:2: limits.memory: unknown key (did you mean 'memory_mb'?)"),
        ("cpu_seconds = -1", "t.toml:2: limits.cpu_seconds: must not be negative"),
        ("processes = 2.5", "t.toml:2: limits.processes: expected a whole number, got 2.5"),
        ("output_mb = 'big'", "t.toml:2: limits.output_mb: expected a number, got 'big'"),
        ("message_kb = 0", "t.toml:2: limits.message_kb: must be more than 0 and at most 4096"),
        ("message_kb = 5000", "t.toml:2: limits.message_kb: must be more than 0 and at most 4096"),
    ],
)
def test_a_bad_limit_names_the_key_and_the_line(line: str, message: str) -> None:
    with pytest.raises(TournamentFileError) as info:
        parse_text(f"[limits]\n{line}\n" + BOTS, "t.toml")
    assert str(info.value).startswith(message), str(info.value)


def test_limits_on_the_command_line() -> None:
    limits = Limits().with_keys({"memory_mb": "300", "processes": "4"})
    assert (limits.memory_bytes, limits.processes) == (300 * MIB, 4)
    with pytest.raises(ConfigError, match="unknown limit 'ram'"):
        Limits().with_keys({"ram": "1"})
    result = CliRunner().invoke(main, ["match", "a", "b", "--limit", "cpu_seconds=x"])
    assert result.exit_code != 0
    assert "Error: limit cpu_seconds: expected a number, got 'x'" in result.output


# --- the launch wrapper -------------------------------------------------------------------------


def run_limited(limits: Limits, code: str) -> subprocess.CompletedProcess[str]:
    argv = limited_command((sys.executable, "-c", code), limits)
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_the_wrapper_sets_the_limits_and_becomes_the_bot() -> None:
    limits = Limits(cpu_seconds=7.5, address_space_bytes=3000 * MIB, output_bytes=123456)
    code = (
        "import os, resource as r; "
        "print(os.getpid(), [r.getrlimit(k) for k in (r.RLIMIT_CPU, r.RLIMIT_AS, "
        "r.RLIMIT_FSIZE, r.RLIMIT_CORE)])"
    )
    argv = limited_command((sys.executable, "-c", code), limits)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=60)
    pid, rest = out.split(" ", 1)
    assert int(pid) == proc.pid  # exec: the bot is the process the referee started
    assert rest.strip() == str([(8, 9), (3000 * MIB, 3000 * MIB), (123456, 123456), (0, 0)])


def test_a_missing_program_fails_at_launch_like_a_direct_one() -> None:
    with pytest.raises(FileNotFoundError):
        limited_command(("/nonexistent/ginref-bot",), Limits())


@pytest.mark.slow
def test_a_cpu_spinner_is_stopped_by_sigxcpu() -> None:
    done = run_limited(Limits(cpu_seconds=1), "while True: pass")
    assert done.returncode == -signal.SIGXCPU


@pytest.mark.slow
def test_a_bot_dies_with_the_referee(tmp_path: Path) -> None:
    """A referee killed with SIGKILL leaves no bot behind (the parent-death signal)."""
    code = textwrap.dedent(
        """
        import subprocess, sys, time
        from referee.bots.limits import Limits
        from referee.bots.process import limited_command
        argv = limited_command(("sleep", "300"), Limits())
        bot = subprocess.Popen(argv, start_new_session=True)
        print(bot.pid, flush=True)
        time.sleep(300)
        """
    )
    referee = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert referee.stdout is not None
    bot = int(referee.stdout.readline())
    referee.kill()
    referee.wait()
    referee.stdout.close()
    until = time.monotonic() + 60  # ends as soon as the bot is gone
    while alive(bot) and time.monotonic() < until:
        time.sleep(0.01)
    assert not alive(bot)


# --- the watch ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_watch_kills_a_group_over_its_process_limit(tmp_path: Path) -> None:
    code = (
        "import subprocess, sys, time\n"
        "kids = [subprocess.Popen(['sleep', '300']) for _ in range(5)]\n"
        "print(' '.join(str(k.pid) for k in kids), flush=True)\n"
        "time.sleep(300)\n"
    )

    async def main() -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, stdout=subprocess.PIPE, start_new_session=True
        )
        assert proc.stdout is not None
        kids = [int(p) for p in (await proc.stdout.readline()).split()]
        watch = GroupWatch.current()
        guard = watch.guard(proc.pid, Limits(processes=4, cpu_seconds=0, output_bytes=0))
        watch.poll()
        assert guard.usage.processes == 6 and guard.breach is not None
        assert "the process limit: 6 processes in its group, over the limit of 4" in guard.breach
        assert await proc.wait() == -signal.SIGKILL
        text = describe_exit(-9, guard.limits, guard, None)
        assert text == f"exited with code -9 (the referee killed it for breaking {guard.breach})"
        await guard.close()
        assert not any(alive(k) for k in kids)

    asyncio.run(main())


@pytest.mark.slow
def test_exits_name_the_limit_or_the_signal(tmp_path: Path) -> None:
    limits = Limits(cpu_seconds=2, output_bytes=1000)
    out = tmp_path / "out.log"
    out.write_bytes(b"x" * 10)
    assert describe_exit(3, limits, None, out) == "exited with code 3"
    assert describe_exit(-24, limits, None, out) == (
        "exited with code -24 (SIGXCPU: it used up the CPU time limit of 2 s)"
    )
    assert describe_exit(-9, limits, None, out) == "exited with code -9 (killed by SIGKILL)"
    out.write_bytes(b"x" * 1000)  # Python ignores SIGXFSZ: its write fails, and it exits 1
    assert describe_exit(1, limits, None, out) == (
        "exited with code 1 (its output reached the output limit of 1000 bytes)"
    )


# --- messages -----------------------------------------------------------------------------------


def test_a_message_is_read_only_within_the_size_limit_and_when_it_parses() -> None:
    good = pb.BotMessage(hello=pb.Hello(token="t")).SerializeToString()
    assert isinstance(parse_bot_message(good, 100), pb.BotMessage)
    big = parse_bot_message(good, 3)
    assert isinstance(big, InvalidMessage)
    assert big.reason == (
        f"a message of {len(good)} bytes, over the maximum message size of 3 bytes"
    )
    bad = parse_bot_message(b"\xff\xff\xff", 100)
    assert isinstance(bad, InvalidMessage)
    assert "that is not a ginrummy.v1.BotMessage (DecodeError" in bad.reason
