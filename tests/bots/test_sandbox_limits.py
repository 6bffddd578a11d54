"""The sandbox against a bot that wants out of its limits: processes that outlive it, threads,
memory the kernel does not count as a process's, CPU, the network, privileges; and a sandboxed
tournament of every language's sample bots.

Checks from outside: the referee's verdict (a kill, and the limit it names), what the kernel
charged to the bot's cgroup, listeners the test opened that nothing reached, no process of the
tests' sandbox uids left.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from referee.bots.limits import MIB
from tests.support.referee_helpers import ROOT
from tests.support.sandbox_helpers import (
    OPTIONS,
    SANDBOX,
    GroupCpu,
    assert_attempted,
    assert_killed_for,
    assert_played_out,
    attempts,
    duel,
    options,
    played_tournament,
)

# Sandboxed bots as real processes; none may outlive its test.
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("sandbox_uids_free")]


def test_a_daemon_does_not_outlive_the_match(tmp_path: Path) -> None:
    """A double-forked ``sleep`` in a session of its own, with an empty environment and its
    descriptors closed, runs while they play (seen from outside) and is gone when the match
    returns."""
    match = duel(tmp_path, "daemon")
    assert_attempted(match.text, "daemon", ["early"])
    mine = match.spy.uid_of("attacker.py")
    daemons = [s for s in match.spy.seen.values() if s.comm == "sleep"]
    assert [s.uid for s in daemons] == [mine] and daemons[0].token is None
    assert_played_out(match)


@pytest.mark.parametrize("mode", ["threads", "forkbomb"])
def test_threads_and_processes_beyond_the_limit_kill_the_bot(mode: str, tmp_path: Path) -> None:
    """Under ``processes = 32``: 2000 threads, or a fork bomb. The kernel refuses the 33rd task;
    the referee kills the bot, and says it broke the process limit (the kernel's count)."""
    match = duel(tmp_path, mode, run_options=options(processes=32))
    # The kill may come before the attacker can say the kernel refused it: "attempting" it is.
    assert_attempted(match.text, mode, ["late"])
    assert_killed_for(match, "the process limit: it tried to have more than 32 processes")


def peak_mib(reason: str) -> int:
    found = re.search(r"peak (\d+) MiB", reason)
    assert found is not None, reason
    return int(found.group(1))


@pytest.mark.parametrize("mode", ["memfd", "shm"])
def test_memory_outside_any_process_counts_against_the_limit(mode: str, tmp_path: Path) -> None:
    """Under ``memory_mb = 128``: 2 GiB in memfds (a new one at each 16 MiB, the largest file
    it may write), or in /dev/shm (not writable) then a SysV shared memory segment. The kernel
    charges the pages to the bot's group and kills it at the limit."""
    match = duel(tmp_path, mode, run_options=options(memory_mb=128))
    assert_attempted(match.text, mode, ["late"])
    if mode == "shm":
        assert "ATTACK shm: blocked: [late] /dev/shm: EACCES" in match.text
    assert_killed_for(match, "the memory limit of 128 MiB")
    assert match.outcome.forfeit is not None
    assert peak_mib(match.outcome.forfeit.reason) <= 128


def test_a_full_tmp_stops_at_its_size(tmp_path: Path) -> None:
    """Under ``memory_mb = 128`` and the default /tmp of 64 MiB: writing 2 GiB into /tmp stops
    at 64 MiB (no space left), or, should those pages not fit beside the bot, it is killed
    for the memory limit. Nothing lands in the host's /tmp."""
    match = duel(tmp_path, "tmpfill", run_options=options(memory_mb=128))
    assert_attempted(match.text, "tmpfill", ["late"])
    assert not Path("/tmp/fill0").exists()
    if match.outcome.forfeit is not None:
        assert_killed_for(match, "the memory limit of 128 MiB")
        return
    refused = re.search(r"/tmp refused after (\d+) MiB: ENOSPC", match.text)
    assert refused is not None and int(refused.group(1)) <= SANDBOX.tmp_bytes // MIB
    assert_played_out(match)


def test_tmp_pages_count_against_the_memory_limit(tmp_path: Path) -> None:
    """A /tmp of 1 GiB under ``memory_mb = 128``: filling it gets the bot killed for the memory
    limit, not 1 GiB of the host's memory."""
    big_tmp = replace(OPTIONS, sandbox=replace(SANDBOX, tmp_bytes=1 << 30))
    run_options = replace(big_tmp, limits=options(memory_mb=128).limits)
    match = duel(tmp_path, "tmpfill", run_options=run_options)
    assert_attempted(match.text, "tmpfill", ["late"])
    assert_killed_for(match, "the memory limit of 128 MiB")


def test_spinning_processes_get_one_core_and_are_killed_for_cpu_time(tmp_path: Path) -> None:
    """Four spinning processes under ``cpus = 1`` and ``cpu_seconds = 8``: the kernel holds the
    bot's group to one core, and the bot is killed for the CPU time limit.

    Whatever the machine's load: the kernel counts a bandwidth period for each 100 ms in which
    the limited group ran, and the CPU charged to it can be at most one period's quota per
    period counted. A machine too busy to give the spinners a core changes how much they get,
    not that bound; a group without the limit has no periods counted, and one with two cores'
    quota is not the group asked for."""
    watch = GroupCpu()
    watch.start()
    try:
        # A decision of ten minutes: on any machine the spinners reach 8 s of CPU first, and
        # the bot is killed for that, not charged for its time.
        run_options = replace(options(cpus=1, cpu_seconds=8), move_time=600.0)
        match = duel(tmp_path, "spin", run_options=run_options)
    finally:
        watch.done.set()
        watch.join()
    assert_attempted(match.text, "spin", ["late"])
    assert_killed_for(match, "the CPU time limit")
    assert watch.error is None, watch.error
    assert watch.limit is not None, "the spinner's group has no CPU quota"
    _, quota, period = watch.limit
    assert quota == period, watch.limit  # one core
    first, last = watch.samples[0], watch.samples[-1]
    periods = last.periods - first.periods
    # The group cannot be killed before 8 s of CPU: its spinners ran for many periods.
    assert periods >= 10, watch.samples
    # At most a period's quota in each period counted, and one period's worth of slack for
    # the periods under way at the first and the last reading.
    assert last.cpu - first.cpu <= (periods + 2) * quota / 1e6, watch.samples


def test_the_network_is_out_of_reach(tmp_path: Path) -> None:
    """TCP and UDP to 1.1.1.1 and to listeners of the test on the host's 127.0.0.1, IPv6's
    loopback, an abstract Unix socket of the test, name resolution: the listeners received
    nothing, and the bot has no interface but its own loopback."""
    name = f"ginref-attack-{os.getpid()}"
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix,
    ):
        tcp.bind(("127.0.0.1", 0))
        port = tcp.getsockname()[1]
        udp.bind(("127.0.0.1", port))
        unix.bind("\0" + name)
        for listener in (tcp, unix):
            listener.listen()
        env = {"ATTACK_PORT": str(port), "ATTACK_ABSTRACT": name}
        match = duel(tmp_path, "network", env=env)
        for sock in (tcp, udp, unix):
            sock.setblocking(False)
        for receive in (tcp.accept, unix.accept, lambda: udp.recvfrom(100)):
            with pytest.raises(BlockingIOError):
                receive()
    assert_attempted(match.text, "network")
    assert f"[late] TCP ('127.0.0.1', {port}): ECONNREFUSED" in match.text
    assert "[late] interfaces: LookupError: only ['lo']" in match.text
    assert_played_out(match)


def test_no_privilege_can_be_gained(tmp_path: Path) -> None:
    """setuid(0), namespaces, mounts, chroot, the hostname, /etc/shadow, /proc's and /dev's
    dangerous files, device nodes, a setuid-root program: all refused; no capability, and
    no_new_privs is set. The host's name is unchanged."""
    hostname = socket.gethostname()
    match = duel(tmp_path, "privilege")
    assert_attempted(match.text, "privilege")
    for refused in ("setuid(0): EPERM", "mount tmpfs: EPERM", "read /etc/shadow: EACCES"):
        assert f"[late] {refused}" in match.text
    assert len(attempts(match.text, "privilege")) >= 2 * 20
    assert socket.gethostname() == hostname
    assert_played_out(match)


# --- every language, sandboxed --------------------------------------------------------------

BUILT = [
    ROOT / "sample_bots" / "cpp" / "out" / "random_bot",
    ROOT / "sample_bots" / "go" / "out" / "random_bot",
    ROOT / "sample_bots" / "java" / "out" / "random_bot",
    ROOT / "sample_bots" / "js" / "node_modules",
]


@pytest.fixture(scope="session")
def language_bots() -> None:
    """The non-Python sample bots, built (scripts/build-bots does nothing if they are)."""
    subprocess.run([str(ROOT / "scripts" / "build-bots")], check=True, timeout=3600)
    assert all(path.exists() for path in BUILT), BUILT
    for tool in ("node", "java"):
        assert shutil.which(tool), f"{tool} is needed by the sample bots"


def test_a_sandboxed_tournament_of_every_language(language_bots: None, tmp_path: Path) -> None:
    """tournaments/languages.toml as a gauntlet of the Python greedy bot, one match per pairing
    to 25 points, in the tests' sandbox: each of the nine other bots of five languages (Java's
    through its TCP forwarder) plays it, all 9 matches without a fault. (Each bot plays once,
    sandboxed: the round robin's 45 matches, the file's, would prove no more.)"""
    text = (ROOT / "tournaments" / "languages.toml").read_text()
    text = text.replace('cwd = ".."', f'cwd = "{ROOT}"').replace("matches = 2 ", "matches = 1 ")
    text = text.replace('format = "round-robin"', 'format = "gauntlet"')
    text = text.replace("rounds = 1\n", 'challengers = ["greedy-python"]\nrounds = 1\n', 1)
    text += f"\n[sandbox]\nuid_base = {SANDBOX.uid_base}\nuid_count = {SANDBOX.uid_count}\n"
    # A match still deals hand after hand up to its target; to the file's 100 points two random
    # bots, which seldom knock, deal dozens of hands, most of them dead: that proves nothing more.
    text += "[rules.set]\ntarget = 25\n"
    file = tmp_path / "languages.toml"
    file.write_text(text)
    records = played_tournament(file, tmp_path / "out", lanes=2, matches=9)
    assert len({bot for r in records for bot in r.seats}) == 10
