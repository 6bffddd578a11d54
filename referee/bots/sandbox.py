"""The sandbox a bot runs in: bubblewrap namespaces, a uid of its own, a read-only view.

Each sandboxed bot is started as (docs/security.md)::

    preexec.py (root: rlimits, joins the bot's cgroups, parent-death signal)
      -> bwrap (new pid, mount, ipc, net, uts and cgroup namespaces; read-only binds)
        -> setpriv (the seat's own uid and gid, no groups, no capabilities, no_new_privs)
          -> the bot

- **Its own uid**, leased from a range (:class:`UidLease`, a lock file per uid, so two ginref
  runs on one machine never share one), different from every other bot's running at the same
  time, as seen from outside too: no user namespace maps it to root. That is why the sandbox
  needs root, as isolate and nsjail-based judges do.
- **What it sees**: the system (``/usr``, ``/etc``, the library symlinks), the interpreter
  ginref runs on and its environment, ginref's client packages (``referee``, ``sample_bots``)
  and its ``proto`` directory,
  and its own directories (:func:`bot_dirs`), all read-only, at their real paths; its working
  directory exists but shows only what is bound below it; a private ``/tmp`` (also ``HOME``)
  of at most ``tmp_bytes``, whose pages count against its memory limit; a ``/proc`` of its own
  pid namespace; a minimal ``/dev``. Not the runs directory, the journal, the tournament file,
  another bot, or the referee's processes.
- **Its only route out** is the referee: a Unix socket of its own bound at
  :data:`SOCKET_IN_SANDBOX` (``GINREF_ADDRESS=unix:...``); the network namespace has only a
  loopback device. A bot whose gRPC library cannot dial a Unix socket (Debian's grpc-java)
  declares ``transport = "tcp"``: a forwarder (socat, inside its sandbox and charged to it)
  listens on 127.0.0.1 in its own network namespace and connects to its socket; its launcher
  (:mod:`referee.bots.forwarder`) starts the bot only once the forwarder listens.
- **Its environment** is built from nothing: ``PATH``, ``HOME``, ``TMPDIR``, ``LANG``, the
  bot's own ``env``, the launch contract and :data:`ENV_SANDBOX_DIRS` (what it sees besides the
  system and the runtime, so that a bot's error can say so); nothing of the referee's.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from referee.bots.spec import BotSpec
from referee.errors import ConfigError

SandboxMode = Literal["bwrap", "none"]
Transport = Literal["unix", "tcp"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("bwrap", "none")
TRANSPORTS: tuple[Transport, ...] = ("unix", "tcp")

DEFAULT_UID_BASE = 64000
DEFAULT_UID_COUNT = 1000
DEFAULT_TMP_BYTES = 64 << 20
SOCKET_IN_SANDBOX = "/run/ginref/referee.sock"
TCP_PORT_IN_SANDBOX = 50051
# The forwarder of a bot with transport = "tcp" (tests put a stand-in here), and how long its
# launcher waits for it to listen: well within the default connect timeout (10 s), so that a
# forwarder that cannot listen is a fault that says so rather than a bot that never connected.
FORWARDER: tuple[str, ...] = ("socat",)
FORWARDER_WAIT = 5.0
_LAUNCHER = Path(__file__).with_name("forwarder.py")
LOCK_DIR = Path("/run/ginref/uids")

# Read-only in every sandbox when they exist. /etc is whole: the dynamic linker's cache, the
# JVM's configuration and /etc/alternatives live there; files only root may read stay so.
SYSTEM_BINDS = ("/usr", "/etc", "/opt")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# ginref's packages a Python bot may import (the client helpers and the generated messages).
CLIENT_PACKAGES = ("referee", "sample_bots")
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
# In a sandboxed bot's environment: the directories it sees read-only besides the system, the
# interpreter and ginref's packages (its own and the binds), joined by ``os.pathsep``.
ENV_SANDBOX_DIRS = "GINREF_SANDBOX_DIRS"


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """How bots are confined (a tournament file's ``[sandbox]`` table; ``--sandbox``)."""

    mode: SandboxMode = "bwrap"
    uid_base: int = DEFAULT_UID_BASE  # the first uid bots run under
    uid_count: int = DEFAULT_UID_COUNT  # how many uids, at most bots running at once
    tmp_bytes: int = DEFAULT_TMP_BYTES  # size of each bot's private /tmp
    binds: tuple[str, ...] = ()  # extra host paths every bot sees read-only (e.g. a JDK)

    @property
    def enabled(self) -> bool:
        """Whether bots run sandboxed."""
        return self.mode != "none"

    def validate(self) -> SandboxSettings:
        """Return ``self`` or raise :class:`ConfigError` naming the bad setting."""
        if self.mode not in SANDBOX_MODES:
            raise ConfigError(f"sandbox {self.mode!r}: expected one of {', '.join(SANDBOX_MODES)}")
        if self.uid_base < 1 or self.uid_base + self.uid_count > 2**31 or self.uid_count < 2:
            raise ConfigError(
                f"sandbox uids {self.uid_base}..+{self.uid_count}: expected a range of at least "
                "2 uids above 0 and below 2**31"
            )
        if self.tmp_bytes < 1 << 20:
            raise ConfigError("the sandbox's /tmp must be at least 1 MiB")
        for path in self.binds:
            if not os.path.isabs(path):
                raise ConfigError(f"sandbox bind {path!r}: expected an absolute path")
        return self


def probe(settings: SandboxSettings) -> str | None:
    """Why this machine cannot build the sandbox, in one sentence, or None if it can."""
    if os.geteuid() != 0:
        return (
            "the sandbox runs each bot under a uid of its own, which needs root (run ginref as "
            "root, in a machine or container kept for the competition)"
        )
    for tool, package in (("bwrap", "bubblewrap"), ("setpriv", "util-linux")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian package {package})"
    probe_argv = [
        "bwrap",
        *_namespace_args(),
        "--ro-bind",
        "/usr",
        "/usr",
        *_link_args(),
        "--",
        "/usr/bin/true",
    ]
    try:
        done = subprocess.run(probe_argv, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot run: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap cannot make namespaces here: {why[-1] if why else done.returncode}"
    overlap = _uid_overlap(settings)
    if overlap is not None:
        return overlap
    return None


def _uid_overlap(settings: SandboxSettings) -> str | None:
    """A user, group or subordinate id range of this machine inside the bots' uid range."""
    low, high = settings.uid_base, settings.uid_base + settings.uid_count
    for path, what in (("/etc/passwd", "user"), ("/etc/group", "group")):
        with contextlib.suppress(OSError):
            for line in Path(path).read_text().splitlines():
                fields = line.split(":")
                if len(fields) > 2 and fields[2].isdigit() and low <= int(fields[2]) < high:
                    return (
                        f"the {what} {fields[0]} ({fields[2]}) is inside the sandbox's uid range "
                        f"{low}..{high - 1}; choose another with [sandbox] uid_base"
                    )
    for path in ("/etc/subuid", "/etc/subgid"):
        with contextlib.suppress(OSError):
            for line in Path(path).read_text().splitlines():
                fields = line.split(":")
                if len(fields) == 3 and fields[1].isdigit() and fields[2].isdigit():
                    start, count = int(fields[1]), int(fields[2])
                    if start < high and low < start + count:
                        return (
                            f"{path} gives {fields[0]} ids {start}..{start + count - 1}, which "
                            f"overlap the sandbox's uid range {low}..{high - 1}; choose another "
                            "with [sandbox] uid_base"
                        )
    return None


class UidLease:
    """A uid held for one bot's life: a lock file no other ginref process can take meanwhile."""

    def __init__(self, uid: int, handle: IO[bytes]) -> None:
        self.uid = uid
        self._handle: IO[bytes] | None = handle

    @staticmethod
    def take(settings: SandboxSettings, lock_dir: Path = LOCK_DIR) -> UidLease:
        """The first free uid of the range; raise :class:`ConfigError` if all are taken."""
        lock_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        for uid in range(settings.uid_base, settings.uid_base + settings.uid_count):
            handle = open(lock_dir / f"{uid}.lock", "wb")  # noqa: SIM115 (held until release)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            return UidLease(uid, handle)
        raise ConfigError(
            f"all {settings.uid_count} sandbox uids from {settings.uid_base} are in use"
        )

    def release(self) -> None:
        """Give the uid back (only once the bot's every process is gone)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _namespace_args() -> list[str]:
    return [
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
    ]


def _link_args() -> list[str]:
    """The merged-/usr symlinks (/bin -> usr/bin ...) as the host has them."""
    args: list[str] = []
    for name in SYSTEM_LINKS:
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    return args


def runtime_paths() -> list[Path]:
    """What every bot sees besides the system: the interpreter ginref runs on, its
    environment, and ginref's client packages."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    paths.add(Path(sys.executable).resolve().parent)
    for name in CLIENT_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            paths.update(Path(p).resolve() for p in spec.submodule_search_locations)
    # The proto, which bots in other languages compile or load (a source checkout has it).
    proto = Path(__file__).resolve().parents[2] / "proto"
    if proto.is_dir():
        paths.add(proto)
    return sorted(paths)


def _is_system(path: Path) -> bool:
    return any(path == Path(s) or Path(s) in path.parents for s in (*SYSTEM_BINDS, "/proc"))


def bot_dirs(spec: BotSpec) -> list[Path]:
    """The directories a bot sees read-only as its own: ``spec.dirs`` if given, else those its
    command names: the program's directory if it is a path, each existing file's directory and
    each existing directory among its arguments and its options' values (``--path data``,
    ``--weights=w.npy``), the package of ``-m PACKAGE``."""
    base = Path(spec.cwd) if spec.cwd is not None else Path.cwd()
    if spec.dirs:
        return sorted({(base / d).resolve() for d in spec.dirs})
    found: set[Path] = set()
    argv = list(spec.command)
    for index, word in enumerate(argv):
        if index > 0 and argv[index - 1] == "-m":
            top = word.split(".")[0]
            with contextlib.suppress(ImportError, ValueError):
                location = _module_dir(top, base)
                if location is not None:
                    found.add(location)
            continue
        # A word that stands alone is a command's word unless it looks like a path (a flag
        # must not widen what the bot sees); an option's value (``--path data``) is a path
        # whenever it names one.
        value = index > 0 and argv[index - 1].startswith("-")
        if word.startswith("-") and "=" in word:
            word, value = word.partition("=")[2], True
        parts = word.split(os.pathsep)  # a class path, or a policy's ``FILE.py:CALLABLE``
        pathlike = os.sep in word or any(p.endswith((".py", ".js", ".jar")) for p in parts)
        if index > 0 and not (pathlike or value):
            continue
        for part in parts:
            path = (base / part).resolve() if part else None
            if path is None or not path.exists() or _is_system(path) or _is_runtime(path):
                continue
            found.add(path if path.is_dir() else path.parent)
    return sorted(found)


def _is_runtime(path: Path) -> bool:
    """Whether ``path`` is inside the interpreter ginref runs on (every bot sees it anyway)."""
    prefixes = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    return any(path == p or p in path.parents for p in prefixes)


def _module_dir(top: str, base: Path) -> Path | None:
    """Where ``python -m top...`` started in ``base`` finds package ``top``."""
    local = base / top
    if (local / "__init__.py").exists() or local.with_suffix(".py").exists():
        return local.resolve() if local.is_dir() else base.resolve()
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    return Path(spec.origin).resolve().parent


def check_bot(spec: BotSpec, protected: Iterable[Path]) -> None:
    """Refuse ``spec`` if what it would see as its own holds a protected path, or if it needs
    the TCP forwarder and socat is missing."""
    check_dirs(spec.name, bot_dirs(spec), protected)
    if spec.transport == "tcp" and shutil.which("socat") is None:
        raise ConfigError(
            f"bot {spec.name}: transport = tcp needs socat, which is not installed "
            "(Debian package socat; scripts/setup installs it)"
        )


class HiddenPathError(ConfigError):
    """A bot would see a path no bot may see (results, journal, the tournament file), or all of
    ``/`` or a home: its words are a tournament file's, and a command without one (``ginref
    match``) tells it in its own from :attr:`bot`, :attr:`path` and :attr:`secret`."""

    def __init__(self, bot: str | None, path: Path, secret: Path | None) -> None:
        self.bot = bot  # None: a bind, which every bot sees
        self.path = path
        self.secret = secret  # None: ``path`` is all of / or a home
        who = (
            f"bot {bot}: it would see"
            if bot is not None
            else "[sandbox] binds: every bot would see"
        )
        if secret is None:
            advice = "give it its own dir" if bot is not None else "bind a directory below it"
            super().__init__(f"{who} all of {path}; {advice}")
        elif bot is not None:
            super().__init__(
                f"{who} {path}, which holds {secret}; give the bot a directory of its own "
                'with dir = "..." (docs/security.md)'
            )
        else:
            super().__init__(f"{who} {path}, which holds {secret}; bind a directory beside it")


def check_dirs(name: str | None, dirs: Iterable[Path], protected: Iterable[Path]) -> None:
    """Refuse a bot whose view would hold a protected path (results, journal, the file); with
    ``name`` None, the binds every bot sees."""
    guarded = [p.resolve() for p in protected]
    for path in dirs:
        if path == Path("/") or path in (Path.home(), Path("/root")):
            raise HiddenPathError(name, path, None)
        for secret in guarded:
            if secret == path or path in secret.parents:
                raise HiddenPathError(name, path, secret)


def shown_dirs(spec: BotSpec, settings: SandboxSettings) -> list[Path]:
    """What a sandboxed bot sees besides the system and the runtime: its own directories and
    the binds (those that exist), read-only."""
    binds = {Path(b).resolve() for b in settings.binds}
    return sorted({*bot_dirs(spec), *(b for b in binds if b.exists())})


@dataclass(slots=True)
class SandboxPlan:
    """Everything one sandboxed launch needs."""

    settings: SandboxSettings
    uid: int
    socket: Path | None  # the bot's socket on the host (None: a build, which plays nobody)
    cwd: str
    dirs: Sequence[Path]
    env: Mapping[str, str]
    transport: Transport = "unix"
    extra: list[Path] = field(default_factory=list)  # more read-only paths (the runtime)
    writable: Sequence[Path] = ()  # read-write over what is bound (a submission's build)

    def address(self) -> str:
        """``GINREF_ADDRESS`` inside the sandbox."""
        if self.transport == "tcp":
            return f"127.0.0.1:{TCP_PORT_IN_SANDBOX}"
        return f"unix:{SOCKET_IN_SANDBOX}"

    def argv(self, command: Sequence[str], seccomp_fd: int | None = None) -> list[str]:
        """``bwrap``, its options, then setpriv's arguments and ``command``."""
        options, tail = self.split_argv(command, seccomp_fd)
        return ["bwrap", *options, *tail]

    def split_argv(
        self, command: Sequence[str], seccomp_fd: int | None = None
    ) -> tuple[list[str], list[str]]:
        """bwrap's options (the sandbox's layout and the bot's environment, its token among
        them), and what follows them: ``--``, setpriv's arguments and ``command``. The options
        go to bwrap through a pipe (``--args``), so that no ``ps`` shows them; ``seccomp_fd``
        holds :func:`seccomp_filter`'s program."""
        binds: set[Path] = set()
        for path in [*self.extra, *self.dirs, *(Path(b) for b in self.settings.binds)]:
            if path.exists() and not _is_system(path):
                binds.add(path)
        # A bind inside another is redundant (and would hide nothing): keep the outermost.
        outer = sorted(p for p in binds if not any(q in p.parents for q in binds))
        args = _namespace_args()
        for name in SYSTEM_BINDS:
            if os.path.isdir(name):
                args += ["--ro-bind", name, name]
        args += _link_args()
        # The private /tmp first: a bot's own directory may lie below /tmp on the host.
        args += ["--size", str(self.settings.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
        made: set[Path] = {Path("/"), Path("/tmp")}
        for path in [*outer, Path(self.cwd), Path(SOCKET_IN_SANDBOX).parent]:
            for parent in reversed([path, *path.parents]):
                if parent in made or _is_system(parent):
                    continue
                made.add(parent)
                if parent == path and path in outer:
                    continue
                # Directories bwrap makes on its own are private to root: make them 0755.
                args += ["--perms", "0755", "--dir", str(parent)]
        for path in outer:
            args += ["--ro-bind", str(path), str(path)]
        for path in self.writable:
            args += ["--bind", str(path), str(path)]
        if self.socket is not None:
            args += ["--bind", str(self.socket), SOCKET_IN_SANDBOX]
        args += ["--proc", "/proc", "--dev", "/dev"]
        args += ["--hostname", "ginref-bot", "--chdir", self.cwd, "--clearenv"]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        for key, value in self.env.items():
            args += ["--setenv", key, value]
        tail = [
            "--",
            "setpriv",
            f"--reuid={self.uid}",
            f"--regid={self.uid}",
            "--clear-groups",
            "--no-new-privs",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
        ]
        if self.transport == "tcp":
            tail += tcp_launcher()
        return args, [*tail, *command]


def tcp_launcher() -> list[str]:
    """What runs a ``transport = "tcp"`` bot's command: :mod:`referee.bots.forwarder`, which
    starts :data:`FORWARDER` (listening on 127.0.0.1, connecting to the bot's socket, each
    message sent at once: without TCP_NODELAY a bot that answers every request would pay a
    delayed acknowledgement per decision) and starts the bot once it listens."""
    forward = [
        *FORWARDER,
        f"TCP-LISTEN:{TCP_PORT_IN_SANDBOX},bind=127.0.0.1,fork,reuseaddr,nodelay",
        f"UNIX-CONNECT:{SOCKET_IN_SANDBOX}",
    ]
    wait = f"{FORWARDER_WAIT:g}"
    launcher = [sys.executable, "-I", "-S", str(_LAUNCHER), str(TCP_PORT_IN_SANDBOX), wait]
    return [*launcher, str(len(forward)), *forward]


def sandbox_environment(
    spec: BotSpec, contract: Mapping[str, str], shown: Sequence[Path] = ()
) -> dict[str, str]:
    """A sandboxed bot's whole environment: a plain base, its own ``env``, the contract and
    what it is ``shown`` (:func:`shown_dirs`)."""
    bindir = os.path.dirname(sys.executable)
    env = {
        "PATH": f"{bindir}:{BASE_PATH}" if bindir else BASE_PATH,
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
    }
    env.update(spec.env)
    env.update(contract)
    env[ENV_SANDBOX_DIRS] = os.pathsep.join(str(p) for p in shown)
    return env
