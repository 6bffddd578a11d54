"""The sandbox's command line (referee/bots/sandbox.py), and a bot's socket (process.py).

The command line is read as bwrap reads it and held to what the sandbox is for
(docs/security.md): new namespaces, a read-only view of the host at real paths, one writable
socket, a private /tmp, an environment built from nothing, the bot's own uid without privileges.
The settings, the directories a bot sees as its own, the uid leases and the machine probe are
checked here too, without running bwrap."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

import referee
import sample_bots
from referee.bots import forwarder
from referee.bots.confine import Confinement
from referee.bots.limits import Limits
from referee.bots.process import BotProcess
from referee.bots.sandbox import (
    BASE_PATH,
    ENV_SANDBOX_DIRS,
    FORWARDER_WAIT,
    SOCKET_IN_SANDBOX,
    SYSTEM_LINKS,
    TCP_PORT_IN_SANDBOX,
    HiddenPathError,
    SandboxPlan,
    SandboxSettings,
    Transport,
    UidLease,
    _uid_overlap,
    bot_dirs,
    check_bot,
    check_dirs,
    probe,
    runtime_paths,
    sandbox_environment,
    shown_dirs,
)
from referee.bots.spec import BotSpec
from referee.errors import ConfigError
from referee.server import RefereeServer
from tests.support.sandbox_helpers import SANDBOX, opponent


def test_the_tcp_forwarder_listens_on_loopback_and_sends_at_once(tmp_path: Path) -> None:
    """socat forwards a bot's TCP connection to its socket. Without TCP_NODELAY, Nagle's
    algorithm holds back each small message until the previous one is acknowledged, and a
    bot that answers every request pays a delayed acknowledgement per decision."""
    plan = SandboxPlan(SandboxSettings(), 71000, tmp_path / "s.sock", str(tmp_path), [], {}, "tcp")
    argv = plan.argv(["bot"])
    listen = next(word for word in argv if word.startswith("TCP-LISTEN:"))
    assert listen.startswith(f"TCP-LISTEN:{TCP_PORT_IN_SANDBOX},")
    assert {"bind=127.0.0.1", "nodelay"} <= set(listen.split(",")[1:])
    assert argv[-1] == "bot"


@pytest.mark.slow  # the sandbox's probe runs bwrap; sockets are chowned to sandbox uids
def test_a_uid_leased_again_gets_a_socket_of_its_own(tmp_path: Path) -> None:
    """A uid is leased again as soon as its bot is gone, before the referee has closed that
    bot's seat (in a tournament of two lanes, the other lane's next bot may get it). Closing the
    first seat (gRPC removes the path it listened on) leaves the next bot's socket in place."""

    async def main() -> None:
        confinement = Confinement.prepare(SANDBOX, [tmp_path])
        server = RefereeServer(tcp=False)
        try:
            seats = []
            for k in range(2):
                process = BotProcess(opponent(), tmp_path / f"{k}.log", Limits(), confinement)
                path = process.prepare()
                assert path is not None and process.lease is not None
                ticket = server.issue_ticket(f"seat {k}")
                await server.listen_unix(ticket, path, process.uid)
                process.lease.release()  # as BotProcess.stop does once the bot is gone
                seats.append((process, ticket, path))
            (first, first_seat, _), (second, _, path) = seats
            assert first.uid == second.uid
            await server.close_seat(first_seat)
            assert path.exists()
        finally:
            await server.stop(0)
            confinement.close()

    asyncio.run(main())


# --- The command line's promises -------------------------------------------------------------
#
# bwrap's options are read as (option, arguments) pairs. Only the options below may appear: an
# option the sandbox does not know (a writable --bind-try, a --share-net, a misspelt name that
# bwrap would refuse) fails the parse itself.
ARITY = {
    "--ro-bind": 2,
    "--bind": 2,
    "--symlink": 2,
    "--setenv": 2,
    "--dir": 1,
    "--perms": 1,
    "--size": 1,
    "--tmpfs": 1,
    "--proc": 1,
    "--dev": 1,
    "--hostname": 1,
    "--chdir": 1,
    "--seccomp": 1,
}
FLAGS = frozenset(
    {
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    }
)
Option = tuple[str, tuple[str, ...]]
TOKEN = "token-0f9c2e"  # stands for the seat's secret token in the plans below
UID = 64123


def parse(options: Sequence[str]) -> list[Option]:
    """bwrap's options as (option, arguments), each option one bwrap knows and the sandbox uses."""
    parsed: list[Option] = []
    index = 0
    while index < len(options):
        name = options[index]
        assert name in ARITY or name in FLAGS, f"unexpected bwrap option {name!r} in {options}"
        count = ARITY.get(name, 0)
        arguments = tuple(options[index + 1 : index + 1 + count])
        assert len(arguments) == count, (name, arguments)
        parsed.append((name, arguments))
        index += 1 + count
    return parsed


def targets(parsed: Sequence[Option], name: str) -> list[str]:
    """Where each ``name`` option puts something in the sandbox (its last argument)."""
    return [arguments[-1] for option, arguments in parsed if option == name]


def under(path: str, top: str) -> bool:
    return path == top or Path(top) in Path(path).parents


@dataclass
class Tree:
    """A bot's directories on the host and the plan that launches it."""

    bot: Path  # its own directory
    inner: Path  # a directory inside it, named too
    shared: Path  # another directory it is given
    jdk: Path  # an extra bind of the settings
    socket: Path
    cwd: Path
    plan: SandboxPlan


def tree(tmp_path: Path, cwd: Path | None = None, transport: Transport = "unix") -> Tree:
    bot = tmp_path / "bots" / "alice"
    inner = bot / "lib"
    shared = tmp_path / "shared"
    jdk = tmp_path / "jdk"
    for path in (inner, shared, jdk / "bin"):
        path.mkdir(parents=True)
    settings = SandboxSettings(
        tmp_bytes=8 << 20,
        # System paths are in every sandbox already; a missing path cannot be bound.
        binds=(str(jdk), "/usr/share", "/etc/ssl", "/proc/sys", str(tmp_path / "missing")),
    )
    socket = tmp_path / "sockets" / "alice.sock"
    cwd = cwd if cwd is not None else tmp_path / "work"
    env = {"PATH": "/usr/bin", "GINREF_TOKEN": TOKEN, "GINREF_ADDRESS": "unix:x", "A": "a b"}
    plan = SandboxPlan(
        settings,
        UID,
        socket,
        str(cwd),
        [inner, bot, shared],
        env,
        transport,
        extra=[jdk / "bin", shared, Path("/usr/lib")],
    )
    return Tree(bot, inner, shared, jdk, socket, cwd, plan)


def test_every_namespace_is_new_and_the_sandbox_dies_with_the_referee(tmp_path: Path) -> None:
    """Shared pid, ipc, network, uts or cgroup namespaces would let a bot signal, reach or
    see the referee and the other bot; without --die-with-parent a bot outlives a killed
    referee, and without --new-session it can push keystrokes into the referee's terminal."""
    flags = {name for name, _ in parse(tree(tmp_path).plan.split_argv(["bot"])[0])}
    assert flags >= FLAGS - {"--clearenv"}


def test_the_only_writable_mount_is_the_bots_own_socket(tmp_path: Path) -> None:
    """Everything a bot may write to on the host is its socket; the address it is told is the
    place that socket is bound to."""
    t = tree(tmp_path)
    parsed = parse(t.plan.split_argv(["bot"])[0])
    assert [a for name, a in parsed if name == "--bind"] == [(str(t.socket), SOCKET_IN_SANDBOX)]
    assert t.plan.address() == f"unix:{SOCKET_IN_SANDBOX}"


def test_host_paths_are_bound_read_only_at_their_own_paths_once(tmp_path: Path) -> None:
    """A bot sees the system, its own directories and the extra binds, read-only and at their
    real paths (so that paths in its command and configuration hold); a directory inside
    another bound one is not bound again (the second bind would only repeat the first), and
    nothing below the system directories or /proc is bound on top of them."""
    t = tree(tmp_path)
    parsed = parse(t.plan.split_argv(["bot"])[0])
    binds = [a for name, a in parsed if name == "--ro-bind"]
    assert all(source == target for source, target in binds), binds
    sources = [source for source, _ in binds]
    assert len(sources) == len(set(sources)), sources
    system = {name for name in ("/usr", "/etc", "/opt") if os.path.isdir(name)}
    links = {n for n in SYSTEM_LINKS if os.path.isdir(n) and not os.path.islink(n)}
    assert {"/usr", "/etc"} <= system
    assert set(sources) == system | links | {str(t.bot), str(t.shared), str(t.jdk)}


def test_the_system_links_are_as_on_the_host(tmp_path: Path) -> None:
    """Programs and the dynamic linker are found through /bin, /lib64...: each is in the
    sandbox as it is on the host, a symlink to the same place or the same directory."""
    parsed = parse(tree(tmp_path).plan.split_argv(["bot"])[0])
    links = {a[1]: a[0] for name, a in parsed if name == "--symlink"}
    bound = targets(parsed, "--ro-bind")
    for name in SYSTEM_LINKS:
        if os.path.islink(name):
            assert links.get(name) == os.readlink(name), (name, links)
        elif os.path.isdir(name):
            assert name in bound and name not in links, name
        else:
            assert name not in links and name not in bound, name
    assert any(os.path.islink(name) or os.path.isdir(name) for name in SYSTEM_LINKS)


def test_tmp_is_a_private_tmpfs_of_the_configured_size_open_to_all(tmp_path: Path) -> None:
    """/tmp (also HOME) is the bot's only scratch space: a fresh tmpfs of tmp_bytes (its pages
    count against the bot's memory, its size bounds them), writable by the bot's uid with the
    sticky bit. It is mounted before anything below /tmp, which it would otherwise hide: a
    bot's directories (pytest's usually are) or its working directory may lie there."""
    t = tree(tmp_path, cwd=Path("/tmp/ginref-plan-test/work"))
    parsed = parse(t.plan.split_argv(["bot"])[0])
    at = [i for i, (name, _) in enumerate(parsed) if name == "--tmpfs"]
    assert [parsed[i][1] for i in at] == [("/tmp",)]
    assert set(parsed[at[0] - 2 : at[0]]) == {("--size", (str(8 << 20),)), ("--perms", ("1777",))}
    mounts = ("--tmpfs", "--dir", "--ro-bind", "--bind")
    below = [i for i, (name, a) in enumerate(parsed) if name in mounts and under(a[-1], "/tmp")]
    assert len(below) > 1 and "/tmp/ginref-plan-test/work" in targets(parsed, "--dir")
    assert min(below) == at[0], [parsed[i] for i in below]


def test_directories_the_sandbox_makes_are_0755_and_come_before_what_they_hold(
    tmp_path: Path,
) -> None:
    """bwrap makes the parents of a mount point private to root, and the bot runs under its own
    uid: it could not reach its directories, its working directory or its socket. So each
    directory that holds one is made with --perms 0755 first, or is itself bound from the host
    (where the host's modes show), or lies in /tmp or the system. Nothing is made below a
    read-only bind once that bind is in place (bwrap cannot write there)."""
    t = tree(tmp_path)
    parsed = parse(t.plan.split_argv(["bot"])[0])
    made = targets(parsed, "--dir")
    bound = targets(parsed, "--ro-bind")
    for index, (name, arguments) in enumerate(parsed):
        if name == "--dir":
            assert parsed[index - 1] == ("--perms", ("0755",)), arguments
        if name == "--perms":
            assert parsed[index + 1][0] in ("--dir", "--tmpfs"), parsed[index + 1]
    assert len(made) == len(set(made)), made
    places = [*made, *bound, *targets(parsed, "--bind"), *targets(parsed, "--chdir")]
    for place in places:
        for parent in Path(place).parents:
            if parent == Path("/") or any(under(str(parent), s) for s in ("/tmp", "/usr", "/etc")):
                continue
            assert str(parent) in made or str(parent) in bound, (place, parent)
    for place in (str(t.cwd), "/run/ginref", "/run", str(tmp_path)):
        assert place in made, place
    for first, (name, arguments) in enumerate(parsed):
        if name != "--ro-bind":
            continue
        for later, other in parsed[first + 1 :]:
            if later in ("--dir", "--ro-bind", "--bind"):
                assert not under(other[-1], arguments[1]), (arguments, later, other)


def test_proc_and_dev_are_the_sandboxs_own(tmp_path: Path) -> None:
    """The host's /proc would show the referee's and the other bot's processes, its /dev every
    device: the bot gets a /proc of its own pid namespace and a minimal /dev, once each."""
    parsed = parse(tree(tmp_path).plan.split_argv(["bot"])[0])
    assert targets(parsed, "--proc") == ["/proc"]
    assert targets(parsed, "--dev") == ["/dev"]


def test_no_directory_is_made_where_something_is_mounted(tmp_path: Path) -> None:
    """/ and the private /tmp exist already, and a bound directory comes from the host: making
    one of them again is at best useless, and /tmp must keep its mode 1777."""
    parsed = parse(tree(tmp_path).plan.split_argv(["bot"])[0])
    mounted = {"/", "/tmp", *targets(parsed, "--ro-bind"), *targets(parsed, "--bind")}
    assert not mounted & set(targets(parsed, "--dir")), targets(parsed, "--dir")


def test_a_real_library_directory_is_bound_like_the_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a host without merged /usr, /lib (the dynamic linker, the C library) is a directory:
    the sandbox binds it read-only in place, and the other links stay as the host has them."""
    islink = os.path.islink
    monkeypatch.setattr(os.path, "islink", lambda p: False if p == "/lib" else islink(p))
    assert os.path.isdir("/lib")
    parsed = parse(tree(tmp_path).plan.split_argv(["bot"])[0])
    assert ("--ro-bind", ("/lib", "/lib")) in parsed
    links = {a[1]: a[0] for name, a in parsed if name == "--symlink"}
    assert "/lib" not in links
    for name in SYSTEM_LINKS:
        if name != "/lib" and islink(name):
            assert links.get(name) == os.readlink(name), (name, links)
    assert ("--ro-bind", ("/usr", "/usr")) in parsed  # the system is still there


def test_nothing_is_made_inside_the_read_only_system(tmp_path: Path) -> None:
    """A working directory under /usr is there already (the system is bound): a --dir below
    a read-only bind would make bwrap fail."""
    t = tree(tmp_path, cwd=Path("/usr/share"))
    parsed = parse(t.plan.split_argv(["bot"])[0])
    assert not [d for d in targets(parsed, "--dir") if under(d, "/usr")]
    assert targets(parsed, "--chdir") == ["/usr/share"]


def test_the_working_directory_is_the_bots_own(tmp_path: Path) -> None:
    """The bot starts where its spec says, whether that is inside its bound directory (where
    it sees its files) or elsewhere (where it sees an empty directory)."""
    t = tree(tmp_path, cwd=tmp_path / "bots" / "alice")
    parsed = parse(t.plan.split_argv(["bot"])[0])
    assert targets(parsed, "--chdir") == [str(t.bot)]
    assert str(t.bot) in targets(parsed, "--ro-bind")
    assert str(t.bot) not in targets(parsed, "--dir")


def test_the_environment_is_exactly_the_plans_and_never_on_the_command_line(
    tmp_path: Path,
) -> None:
    """Nothing of the referee's environment reaches a bot (--clearenv, before the bot's own
    variables are set), and the token travels in bwrap's options, which go through a pipe,
    not in what follows them, which any process can read in /proc."""
    t = tree(tmp_path)
    options, tail = t.plan.split_argv(["bot"])
    parsed = parse(options)
    names = [name for name, _ in parsed]
    assert names.count("--clearenv") == 1
    setenv = [i for i, name in enumerate(names) if name == "--setenv"]
    assert setenv and min(setenv) > names.index("--clearenv")
    assert [parsed[i][1] for i in setenv] == list(t.plan.env.items())
    assert not any(TOKEN in word for word in tail), tail


@pytest.mark.parametrize("fd", [None, 0, 9])
def test_the_seccomp_filter_is_passed_only_when_given(tmp_path: Path, fd: int | None) -> None:
    """``--seccomp FD`` makes bwrap read a filter from FD: given one, it must be the plan's fd
    (also fd 0, which is still a descriptor); without one there is none to read."""
    plan = tree(tmp_path).plan
    argv = plan.argv(["bot"], fd)
    expected = [] if fd is None else [str(fd)]
    for options in (plan.split_argv(["bot"], fd)[0], argv[1 : argv.index("--")]):
        parsed = parse(options)
        assert targets(parsed, "--seccomp") == expected
        # The filter is added to the sandbox, not put in place of any of it.
        rest = [option for option in parsed if option[0] != "--seccomp"]
        assert rest == parse(plan.split_argv(["bot"])[0])


def test_argv_is_bwrap_its_options_and_the_tail(tmp_path: Path) -> None:
    """What the launcher runs when it does not pipe the options is the same command."""
    plan = tree(tmp_path).plan
    options, tail = plan.split_argv(["bot", "x"], 5)
    assert plan.argv(["bot", "x"], 5) == ["bwrap", *options, *tail]


SETPRIV = {
    f"--reuid={UID}",
    f"--regid={UID}",
    "--clear-groups",
    "--no-new-privs",
    "--inh-caps=-all",
    "--bounding-set=-all",
}


def setpriv_and_rest(tail: Sequence[str]) -> tuple[list[str], list[str]]:
    """setpriv's options and the command it runs, from what follows bwrap's options."""
    assert tail[:2] == ["--", "setpriv"], tail
    end = tail.index("--", 2)
    return list(tail[2:end]), list(tail[end + 1 :])


def test_the_bot_runs_under_its_uid_without_groups_or_privileges(tmp_path: Path) -> None:
    """The seat's uid and gid (distinct from every other bot's), no supplementary groups (the
    referee's, root's), no capability in any set and no way to gain one (setuid programs)."""
    _, tail = tree(tmp_path).plan.split_argv(["bot", "--level", "3"])
    options, command = setpriv_and_rest(tail)
    assert sorted(options) == sorted(SETPRIV)
    assert command == ["bot", "--level", "3"]


def test_a_tcp_bot_gets_the_forwarder_then_its_command_under_the_same_uid(tmp_path: Path) -> None:
    """The forwarder's launcher runs inside the sandbox after setpriv (charged to the bot, under
    its uid): it starts socat, which connects to the bot's socket, on the port the bot is told,
    waits at most FORWARDER_WAIT for it, then becomes the bot with its arguments as given."""
    plan = tree(tmp_path, transport="tcp").plan
    _, tail = plan.split_argv(["bot", "a b"])
    options, command = setpriv_and_rest(tail)
    assert sorted(options) == sorted(SETPRIV)
    launcher = [sys.executable, "-I", "-S", str(Path(forwarder.__file__))]
    assert command[:4] == launcher
    port, wait, words = command[4:7]
    assert int(port) == TCP_PORT_IN_SANDBOX and float(wait) == FORWARDER_WAIT
    socat = command[7 : 7 + int(words)]
    assert socat[0] == "socat" and socat[-1] == f"UNIX-CONNECT:{SOCKET_IN_SANDBOX}"
    assert command[7 + int(words) :] == ["bot", "a b"]
    host, port = plan.address().split(":")
    assert host == "127.0.0.1" and int(port) == TCP_PORT_IN_SANDBOX


def test_the_hostname_is_not_the_hosts(tmp_path: Path) -> None:
    """The uts namespace is new so the bot cannot learn the machine's name: it gets another."""
    parsed = parse(tree(tmp_path).plan.split_argv(["bot"])[0])
    assert targets(parsed, "--hostname") not in ([], [socket.gethostname()])


# --- The bot's environment ---------------------------------------------------------------------


def test_the_environment_is_built_from_nothing_and_the_contract_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot finds the interpreter ginref runs on first, then the system's programs; HOME and
    TMPDIR are its private /tmp; its own env may change those but never the launch contract
    (a bot's spec cannot forge its token or address); nothing of the referee's leaks."""
    monkeypatch.setenv("GINREF_REFEREE_SECRET", "s3cret")
    spec = BotSpec(
        ("bot",), env=(("LANG", "fr_FR.UTF-8"), ("GINREF_TOKEN", "forged"), ("OWN", "1"))
    )
    contract = {"GINREF_TOKEN": "real", "GINREF_ADDRESS": f"unix:{SOCKET_IN_SANDBOX}"}
    env = sandbox_environment(spec, contract)
    path = env["PATH"].split(":")
    assert path[0] == os.path.dirname(sys.executable)
    assert path[1:] == BASE_PATH.split(":")
    assert env["HOME"] == env["TMPDIR"] == "/tmp"
    assert env["LANG"] == "fr_FR.UTF-8" and env["OWN"] == "1"
    assert env["GINREF_TOKEN"] == "real" and env["GINREF_ADDRESS"] == contract["GINREF_ADDRESS"]
    assert set(env) == {"PATH", "HOME", "TMPDIR", "LANG", "OWN", ENV_SANDBOX_DIRS, *contract}


def test_the_base_environment_has_a_utf8_locale() -> None:
    """Without a locale a Python bot's stdio would not be UTF-8."""
    assert sandbox_environment(BotSpec(("bot",)), {})["LANG"] == "C.UTF-8"


def test_path_has_no_empty_entry_when_the_interpreter_has_no_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An empty PATH entry means the working directory: a program there would shadow the
    system's."""
    monkeypatch.setattr(sys, "executable", "python3")
    assert sandbox_environment(BotSpec(("bot",)), {})["PATH"] == BASE_PATH


# --- Settings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"mode": "docker"}, "docker"),
        ({"uid_base": 0}, "uids"),
        ({"uid_base": -5}, "uids"),
        ({"uid_count": 1}, "uids"),
        ({"uid_count": 0}, "uids"),
        ({"uid_base": 2**31 - 10, "uid_count": 11}, "uids"),
        ({"uid_base": 2**31 - 10, "uid_count": 10**9}, "uids"),
        ({"uid_base": 2**31, "uid_count": 2}, "uids"),
        ({"tmp_bytes": (1 << 20) - 1}, "/tmp"),
        ({"tmp_bytes": 0}, "/tmp"),
        ({"binds": ("/opt/jdk", "jdk")}, "'jdk'"),
    ],
)
def test_bad_settings_are_refused_by_name(changes: dict[str, Any], named: str) -> None:
    """uid 0 is root; one uid cannot keep two bots apart; uids must fit in 31 bits; a /tmp
    smaller than 1 MiB breaks ordinary programs; a relative bind has no meaning in the sandbox."""
    with pytest.raises(ConfigError, match=re.escape(named)):
        SandboxSettings(**changes).validate()


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"mode": "none"},
        {"uid_base": 1, "uid_count": 2},
        {"uid_base": 2**31 - 11, "uid_count": 11},  # the last uid is 2**31 - 1
        {"tmp_bytes": 1 << 20},
        {"binds": ("/opt/jdk", "/srv")},
    ],
)
def test_settings_at_the_edges_are_accepted(changes: dict[str, Any]) -> None:
    """The smallest and highest ranges that keep bots apart, the smallest /tmp allowed."""
    settings = SandboxSettings(**changes)
    assert settings.validate() is settings
    assert settings.enabled == (settings.mode != "none")


# --- What a bot sees as its own ------------------------------------------------------------------


def test_a_bot_may_not_see_everything_or_a_protected_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Results, the journal and the tournament file are protected: a bot's directory may not be
    one, hold one (also through a symlink), or be / or a home directory."""
    home = tmp_path / "home"
    runs = tmp_path / "a" / "runs"
    bot = tmp_path / "a" / "bot"
    for path in (home, runs, bot):
        path.mkdir(parents=True)
    (tmp_path / "via").symlink_to(tmp_path / "a")
    monkeypatch.setenv("HOME", str(home))
    protected = [tmp_path / "via" / "runs"]
    for bad in (Path("/"), home, Path("/root"), tmp_path / "a", runs, tmp_path):
        with pytest.raises(ConfigError, match="alice"):
            check_dirs("alice", [bot, bad], protected)
    check_dirs("alice", [bot, tmp_path / "a" / "runs-old", home / "bots"], protected)
    # / and home are refused for what else they hold, protected or not.
    for everything in (Path("/"), home, Path("/root")):
        with pytest.raises(ConfigError, match="alice"):
            check_dirs("alice", [everything], [])


def test_a_bots_command_is_checked_for_protected_paths_and_socat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check_bot refuses a bot whose program lies beside a protected path, and a TCP bot where
    socat (its forwarder) is missing; a Unix-socket bot does not need socat."""
    (tmp_path / "runs").mkdir()
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "run").touch()
    (tmp_path / "loose").touch()
    loose = BotSpec(("./loose",), "loose", cwd=str(tmp_path))
    with pytest.raises(ConfigError, match="loose"):
        check_bot(loose, [tmp_path / "runs"])
    own = BotSpec(("bot/run",), "own", cwd=str(tmp_path))
    tcp = replace(own, transport="tcp")
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "socat" else "/x/" + name)
    check_bot(own, [tmp_path / "runs"])
    with pytest.raises(ConfigError, match="socat"):
        check_bot(tcp, [tmp_path / "runs"])
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/" + name)
    check_bot(tcp, [tmp_path / "runs"])


def files(root: Path, *names: str) -> None:
    """Make each name below ``root``: a directory if it ends with /, else an empty file."""
    for name in names:
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()


def dirs_of(cwd: Path, *command: str, **spec: Any) -> list[Path]:
    """What a bot started in ``cwd`` with ``command`` sees as its own."""
    return bot_dirs(BotSpec(command, "b", cwd=str(cwd), **spec))


def test_bot_dirs_from_the_program_and_its_file_arguments(tmp_path: Path) -> None:
    """The program's directory if it is a path, a script's directory, a directory named with a
    slash, each part of a class path; a bare word that stands alone is a command's word, never
    a path (a flag must not widen what the bot sees); an empty class-path part is not the cwd."""
    files(tmp_path, "bots/x/run.sh", "py/bot.py", "data/", "lib/a.jar", "classes/", "word/")
    files(tmp_path, "here/bot.py", "here/app.js", "here/b.jar")
    assert dirs_of(tmp_path, "bots/x/run.sh", "--fast") == [tmp_path / "bots/x"]
    assert dirs_of(tmp_path, "python3", "word", "py/bot.py", "word") == [tmp_path / "py"]
    here = tmp_path / "here"
    for command in (("python3", "bot.py"), ("node", "app.js"), ("java", "-jar", "b.jar")):
        assert dirs_of(here, *command) == [here], command
    assert dirs_of(tmp_path, "python3", str(tmp_path / "py/bot.py")) == [tmp_path / "py"]
    assert dirs_of(tmp_path, "prog", "data/") == [tmp_path / "data"]
    cp = f"lib/a.jar{os.pathsep}classes/{os.pathsep}"
    assert dirs_of(tmp_path, "java", "-cp", cp, "Main") == [tmp_path / "classes", tmp_path / "lib"]
    # A missing or system part says nothing about the parts after it.
    cp = os.pathsep.join(["gone/x.jar", "/usr/share/java/", "lib/a.jar"])
    assert dirs_of(tmp_path, "java", "-cp", cp, "Main") == [tmp_path / "lib"]


def test_an_options_value_is_a_path_when_it_names_one(tmp_path: Path) -> None:
    """``--path data`` shows the bot ``data`` as ``--path ./data`` does, and so does
    ``--path=data``; a value that names nothing is a value, and a flag itself is never a path."""
    files(tmp_path, "agents/ppo.py", "data/w.npy", "weights.npz", "fast/")
    policy = ("python3", "agents/ppo.py:policy")
    agents, data = tmp_path / "agents", tmp_path / "data"
    for given in (("--path", "data"), ("--path=data",), ("--path", "./data"), ("-p", "data")):
        assert dirs_of(tmp_path, *policy, *given) == [agents, data], given
    assert dirs_of(tmp_path, *policy, "--weights", "weights.npz") == [tmp_path, agents]
    assert dirs_of(tmp_path, *policy, "--level", "hard", "--fast") == [agents]
    assert dirs_of(tmp_path, *policy, "fast") == [agents]  # a word standing alone
    # The file's part of ``FILE:CALLABLE`` is a path too, with or without a slash.
    assert dirs_of(tmp_path / "agents", "python3", "-m", "x.y", "ppo.py:policy") == [agents]


def test_a_bot_is_shown_its_own_directories_and_the_binds_and_told_which(
    tmp_path: Path,
) -> None:
    """What a sandboxed bot sees besides the system goes into its environment, so that its
    errors can say it: its own directories and the binds that exist."""
    files(tmp_path, "bot/run.sh", "weights/", "jdk/")
    spec = BotSpec(("bot/run.sh",), "b", cwd=str(tmp_path))
    binds = (str(tmp_path / "weights"), str(tmp_path / "gone"), str(tmp_path / "jdk"))
    shown = shown_dirs(spec, SandboxSettings(binds=binds))
    assert shown == [tmp_path / "bot", tmp_path / "jdk", tmp_path / "weights"]
    env = sandbox_environment(spec, {}, shown)
    assert env[ENV_SANDBOX_DIRS].split(os.pathsep) == [str(p) for p in shown]
    assert sandbox_environment(spec, {})[ENV_SANDBOX_DIRS] == ""


def test_a_bind_may_not_hold_a_protected_path_or_be_everything(tmp_path: Path) -> None:
    """The binds every bot sees are checked as a bot's own directories are, and say so."""
    runs = tmp_path / "runs"
    with pytest.raises(HiddenPathError, match=r"\[sandbox\] binds.*holds") as caught:
        check_dirs(None, [tmp_path], [runs / "t"])
    assert caught.value.bot is None and caught.value.path == tmp_path
    assert caught.value.secret == runs / "t"
    with pytest.raises(HiddenPathError, match="all of /"):
        check_dirs(None, [Path("/")], [])
    check_dirs(None, [tmp_path / "weights"], [runs])


def test_bot_dirs_are_real_paths_and_skip_what_every_bot_sees(tmp_path: Path) -> None:
    """Binds are at real paths (a symlinked directory is bound where it lies); the system,
    /proc and the interpreter ginref runs on are in every sandbox and are not a bot's own;
    a missing file is nothing to bind."""
    files(tmp_path, "real/run.sh")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert dirs_of(tmp_path, "link/run.sh") == [tmp_path / "real"]
    system = ("/usr/bin/env", "/usr/share/", "/etc/hostname", "/proc/self/", "/usr")
    assert dirs_of(tmp_path, *system, sys.executable, "missing.py", "gone/bot.py") == []


def test_bot_dirs_of_a_module_run_with_dash_m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m pkg.mod`` sees the package ``pkg`` where Python finds it from the bot's
    working directory (a local package or module first), or nothing if there is none."""
    files(tmp_path, "cwd/mybot/__init__.py", "cwd/solo.py", "site/lonely_xq7.py")
    files(tmp_path, "site/pkg_xq7/__init__.py", "site/pkg_xq7/play.py")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    cwd = tmp_path / "cwd"
    assert dirs_of(cwd, "python3", "-m", "mybot.main") == [cwd / "mybot"]
    # What follows the module is read like any other arguments.
    files(cwd, "data/")
    assert dirs_of(cwd, "python3", "-m", "mybot", "--in", "data/") == [cwd / "data", cwd / "mybot"]
    # A trailing -m names no module; the program before it is still a path.
    files(tmp_path, "bin/run")
    assert dirs_of(tmp_path, "bin/run", "-m") == [tmp_path / "bin"]
    assert dirs_of(cwd, "python3", "-m", "solo") == [cwd]
    assert dirs_of(cwd, "python3", "-m", "pkg_xq7.play") == [tmp_path / "site" / "pkg_xq7"]
    assert dirs_of(cwd, "python3", "-m", "lonely_xq7") == [tmp_path / "site"]
    assert dirs_of(cwd, "python3", "-m", "sample_bots.random_bot") == [
        Path(sample_bots.__file__).resolve().parent
    ]
    assert dirs_of(cwd, "python3", "-m", "no_such_module_xq7") == []
    assert dirs_of(cwd, "python3", "-m", ".relative") == []


def test_bot_dirs_given_explicitly_replace_the_guess(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``dir = ...`` in a bot's entry is what it sees, relative to its cwd (or the referee's)."""
    files(tmp_path, "bots/x/run.sh", "own/", "abs/")
    spec = {"dirs": ("own", str(tmp_path / "abs"))}
    assert dirs_of(tmp_path, "bots/x/run.sh", **spec) == [tmp_path / "abs", tmp_path / "own"]
    monkeypatch.chdir(tmp_path)
    assert bot_dirs(BotSpec(("bots/x/run.sh",), dirs=("own",))) == [tmp_path / "own"]
    assert bot_dirs(BotSpec(("bots/x/run.sh",))) == [tmp_path / "bots/x"]


def test_runtime_paths_hold_the_interpreter_and_ginrefs_client_packages() -> None:
    """A Python bot runs on ginref's interpreter and imports its client packages; a bot in
    another language reads the proto."""
    paths = runtime_paths()
    assert paths == sorted(set(paths))
    expected = {
        Path(sys.prefix).resolve(),
        Path(sys.base_prefix).resolve(),
        Path(sys.executable).resolve().parent,
        Path(referee.__file__).resolve().parent,
        Path(sample_bots.__file__).resolve().parent,
    }
    proto = Path(referee.__file__).resolve().parents[1] / "proto"
    assert proto.is_dir()
    assert set(paths) == expected | {proto}


def test_runtime_paths_without_the_sample_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """ginref may be installed without its sample bots: the rest is still found."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "sample_bots" else find_spec(name, *a),
    )
    paths = runtime_paths()
    assert Path(referee.__file__).resolve().parent in paths
    assert Path(sample_bots.__file__).resolve().parent not in paths


# --- uids ----------------------------------------------------------------------------------------


def test_uid_leases_are_exclusive_and_given_back(tmp_path: Path) -> None:
    """Two bots running at once never share a uid; a uid comes back once released; when all
    are held the next bot is refused rather than given a shared one. The lock directory is
    private (another user could hold every uid)."""
    settings = SandboxSettings(uid_base=70000, uid_count=2)
    locks = tmp_path / "run" / "uids"
    first = UidLease.take(settings, locks)
    second = UidLease.take(settings, locks)
    try:
        assert {first.uid, second.uid} == {70000, 70001}
        assert locks.stat().st_mode & 0o777 == 0o700
        with pytest.raises(ConfigError, match="70000"):
            UidLease.take(settings, locks)
        first.release()
        first.release()  # a second release is harmless
        again = UidLease.take(settings, locks)
        assert again.uid == first.uid
        again.release()
    finally:
        first.release()
        second.release()


@pytest.fixture
def etc(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Stand-ins for /etc/passwd, group, subuid and subgid (missing unless set)."""
    fake: dict[str, str] = {}
    read = Path.read_text

    def read_text(self: Path, *args: Any, **kwargs: Any) -> str:
        if str(self) in ("/etc/passwd", "/etc/group", "/etc/subuid", "/etc/subgid"):
            if str(self) not in fake:
                raise FileNotFoundError(str(self))
            return fake[str(self)]
        return read(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)
    return fake


RANGE = SandboxSettings(uid_base=64000, uid_count=10)


@pytest.mark.parametrize(
    ("file", "line", "overlaps"),
    [
        ("/etc/passwd", "alice:x:64000:100::/home/alice:/bin/sh", True),
        ("/etc/passwd", "alice:x:64009:100::/home/alice:/bin/sh", True),
        ("/etc/passwd", "alice:x:63999:100::/home/alice:/bin/sh", False),
        ("/etc/passwd", "alice:x:64010:100::/home/alice:/bin/sh", False),
        ("/etc/group", "alice:x:64005:", True),
        ("/etc/group", "alice:x:640050:", False),
        ("/etc/subuid", "alice:63990:11", True),
        ("/etc/subuid", "alice:63990:10", False),
        ("/etc/subgid", "alice:64009:65536", True),
        ("/etc/subgid", "alice:64010:65536", False),
        ("/etc/subuid", "alice:64001", False),
        ("/etc/subuid", "alice:x:64001", False),
        ("/etc/subuid", "alice:64001:many", False),
        ("/etc/passwd", "alice:x", False),
    ],
)
def test_a_machine_id_inside_the_bots_uid_range_is_found(
    etc: dict[str, str], file: str, line: str, overlaps: bool
) -> None:
    """A bot under a uid that the machine gives to a user, a group, or a user namespace of
    someone's would share that one's files and processes."""
    etc[file] = f"root:x:0:0::/root:/bin/sh\nbroken line\n{line}\n"
    found = _uid_overlap(RANGE)
    if overlaps:
        assert found is not None and "alice" in found and "uid_base" in found, found
    else:
        assert found is None, found


def test_an_overlap_is_told_with_its_kind_and_both_ranges(etc: dict[str, str]) -> None:
    """The operator must find the id to move or the range to choose: a user's overlap is told
    as a user, a group's as a group, a subordinate range with its file, each with the ids."""
    etc["/etc/group"] = "games:x:64003:"
    assert "group games (64003) is inside the sandbox's uid range 64000..64009" in (
        _uid_overlap(RANGE) or ""
    )
    etc["/etc/subgid"] = "bob:63000:1001"
    etc.pop("/etc/group")
    found = _uid_overlap(RANGE) or ""
    assert "/etc/subgid gives bob ids 63000..64000" in found, found
    assert "uid range 64000..64009" in found, found
    etc["/etc/passwd"] = "carol:x:64001:64001::/:/bin/sh"
    assert "user carol (64001)" in (_uid_overlap(RANGE) or "")


# --- The machine probe -----------------------------------------------------------------------


@dataclass
class Machine:
    """What probe finds: the effective uid, the tools installed, what bwrap does."""

    euid: int = 0
    missing: tuple[str, ...] = ()
    returncode: int = 0
    stderr: bytes = b""
    error: Exception | None = None
    ran: list[list[str]] = field(default_factory=list)


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch, etc: dict[str, str]) -> Machine:
    """The probe's view of the machine, faked (``etc`` keeps this machine's users out of it)."""
    found = Machine()

    def run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        # As subprocess.run would behave with these arguments; a probe that could wait for
        # ever would hang ginref's start.
        found.ran.append(argv)
        timeout = kwargs.get("timeout")
        assert isinstance(timeout, int | float) and 0 < timeout <= 60, kwargs
        if found.error is not None:
            raise found.error
        if kwargs.get("check") and found.returncode:
            raise subprocess.CalledProcessError(found.returncode, argv)
        stderr = found.stderr if kwargs.get("capture_output") else None
        return subprocess.CompletedProcess(argv, found.returncode, b"", stderr)

    monkeypatch.setattr(os, "geteuid", lambda: found.euid)
    monkeypatch.setattr(shutil, "which", lambda name: None if name in found.missing else name)
    monkeypatch.setattr(subprocess, "run", run)
    return found


def test_the_probe_accepts_a_machine_that_can_build_the_sandbox(machine: Machine) -> None:
    """It tries the namespaces the bots get, with the system that a program needs to start."""
    assert probe(RANGE) is None
    (argv,) = machine.ran
    assert argv[0] == "bwrap" and argv[-2:] == ["--", "/usr/bin/true"]
    parsed = parse(argv[1:-2])
    flags = {name for name, _ in parsed}
    assert flags >= FLAGS - {"--clearenv"}
    assert ("--ro-bind", ("/usr", "/usr")) in parsed
    for name in SYSTEM_LINKS:
        if os.path.islink(name):
            assert ("--symlink", (os.readlink(name), name)) in parsed


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"euid": 1000}, "root"),
        ({"missing": ("bwrap",)}, "bwrap is not installed (Debian package bubblewrap)"),
        ({"missing": ("setpriv",)}, "setpriv is not installed (Debian package util-linux)"),
        ({"error": OSError("exec format error")}, "exec format error"),
        ({"error": subprocess.TimeoutExpired("bwrap", 30)}, "bwrap cannot run"),
        ({"returncode": 1, "stderr": b"a\nb\nbwrap: No permissions\n"}, "here: bwrap: No perm"),
        ({"returncode": 1, "stderr": b"bwrap: \xff bad\n"}, "here: bwrap: \ufffd bad"),
        ({"returncode": 3}, "namespaces here: 3"),
    ],
)
def test_the_probe_says_why_a_machine_cannot_sandbox(
    machine: Machine, change: dict[str, Any], reason: str
) -> None:
    """Each reason the sandbox cannot be built is told in one sentence (ginref refuses to run
    bots it was asked to sandbox)."""
    for key, value in change.items():
        setattr(machine, key, value)
    found = probe(RANGE)
    assert found is not None and reason in found, found
    if "euid" in change or "missing" in change:
        assert machine.ran == []


def test_the_probe_refuses_a_uid_range_the_machine_uses(
    machine: Machine, etc: dict[str, str]
) -> None:
    etc["/etc/passwd"] = "alice:x:64002:64002::/:/bin/sh"
    assert "alice" in (probe(RANGE) or "")
