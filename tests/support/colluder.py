"""Two instances of one bot that try to talk to each other through the kernel
(tests/bots/test_sandbox_channels.py).

Usage: ``python tests/support/colluder.py send|receive`` with the referee's launch environment;
the sender is given ``COLLUDE_SLOT``, a number below 64 the receiver must not learn but through
a channel. For each channel the sender marks slot ``s`` (a key named for it, a lock on byte or
file ``s``, an open of file ``s``) before it connects and again at each of its decisions; the
receiver watches every slot from before it connects and looks at each of its decisions, and
prints ``RECEIVED <channel> <slot>`` for what it saw, once per channel. A match alternates
decisions, so the receiver looks after the sender has marked, without any sleep.

The shared files are what both sandboxes see read-only: ``/usr/share/doc/*/copyright``, which
no program opens (64 to be opened, 64 to be locked, and 16 whose directories are watched).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import glob
import os
import random
import select
import signal
import struct
import sys
from collections.abc import Callable

from sample_bots.client import pb, run_bot

LIBC = ctypes.CDLL(None, use_errno=True)
SLOTS = 64
SYS = {"add_key": 248, "keyctl": 250, "fanotify_init": 300, "fanotify_mark": 301}
KEY_SPEC_USER_KEYRING = -4
KEYCTL_SETPERM, KEYCTL_READ = 5, 11
F_OFD_GETLK, F_OFD_SETLK = 36, 37
F_NOTIFY, DN_ACCESS, DN_MULTISHOT = 1026, 0x1, 0x80000000
IN_OPEN = 0x20
FAN_OPEN, FAN_CLASS_NOTIF, FAN_REPORT_FID = 0x20, 0, 0x200
FAN_MARK_ADD, AT_FDCWD = 0x1, -100
DNOTIFY_SLOTS = 16  # one real-time signal each


def shared_files(part: int) -> list[str]:
    """Files both instances see, the same list in both: ``part`` 0 to be opened (inotify,
    fanotify), 1 to be locked (which opens them too: the receiver must not notify itself), 2
    whose directories are watched (dnotify)."""
    files, seen = [], set()
    for path in sorted(glob.glob("/usr/share/doc/*/copyright")):
        inode = os.stat(path).st_ino  # some are links to one file: a slot is one inode
        if inode not in seen:
            seen.add(inode)
            files.append(path)
    if len(files) < 3 * SLOTS:
        raise SystemExit(f"only {len(files)} shared files")
    return files[part * SLOTS : (part + 1) * SLOTS]


def say(*words: object) -> None:
    print(*words, flush=True)


def errtext() -> str:
    code = ctypes.get_errno()
    return f"{errno.errorcode.get(code, code)}"


class _Flock(ctypes.Structure):
    _fields_ = (
        ("l_type", ctypes.c_short),
        ("l_whence", ctypes.c_short),
        ("l_start", ctypes.c_long),
        ("l_len", ctypes.c_long),
        ("l_pid", ctypes.c_int),
    )


def lock_call(fd: int, command: int, kind: int, start: int) -> _Flock:
    lock = _Flock(kind, os.SEEK_SET, start, 1, 0)
    if LIBC.fcntl(fd, command, ctypes.byref(lock)) != 0:
        raise OSError(ctypes.get_errno(), errtext())
    return lock


class Sender:
    """Marks one slot on every channel and keeps its marks (locks) for the whole match."""

    def __init__(self, slot: int) -> None:
        self.slot = slot
        self.files = shared_files(0)
        self.locks = shared_files(1)
        self.dirs = shared_files(2)
        self.held: list[int] = []

    def early(self) -> None:
        self.try_("key", self.key)
        self.try_("flock", self.flock)
        self.try_("posix", lambda: self.byte_lock(fcntl.F_SETLK))
        self.try_("ofd", lambda: self.byte_lock(F_OFD_SETLK))

    def at_decision(self) -> None:
        # Opens and reads of the slot's file (inotify, fanotify) and of its directory (dnotify).
        with contextlib.suppress(OSError):
            with open(self.files[self.slot], "rb") as handle:
                handle.read(1)
            with open(self.dirs[self.slot % DNOTIFY_SLOTS], "rb") as handle:
                handle.read(1)

    def try_(self, what: str, action: Callable[[], None]) -> None:
        try:
            action()
            say(f"SENT {what}")
        except OSError as exc:
            say(f"NOT SENT {what}: {exc}")

    def key(self) -> None:
        serial = LIBC.syscall(
            SYS["add_key"],
            b"user",
            f"ginref-collude-{self.slot}".encode(),
            b"x",
            1,
            KEY_SPEC_USER_KEYRING,
        )
        if serial < 0:
            raise OSError(ctypes.get_errno(), errtext())
        # Everyone may view, read and search it.
        if LIBC.syscall(SYS["keyctl"], KEYCTL_SETPERM, serial, 0x3F3F3F3F) != 0:
            raise OSError(ctypes.get_errno(), errtext())

    def flock(self) -> None:
        fd = os.open(self.locks[self.slot], os.O_RDONLY)
        self.held.append(fd)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def byte_lock(self, command: int) -> None:
        fd = os.open(__file__ if command == fcntl.F_SETLK else self.locks[0], os.O_RDONLY)
        self.held.append(fd)
        lock_call(fd, command, fcntl.F_RDLCK, self.slot)


class Receiver:
    """Watches every slot on every channel; says what it saw."""

    def __init__(self) -> None:
        self.files = shared_files(0)
        self.locks = shared_files(1)
        self.dirs = shared_files(2)
        self.found: set[str] = set()
        self.inotify: int | None = None
        self.fanotify: list[int] = []
        self.signals: list[int] = []

    def early(self) -> None:
        with contextlib.suppress(OSError):
            self.watch_inotify()
        with contextlib.suppress(OSError):
            self.watch_fanotify()
        with contextlib.suppress(OSError):
            self.watch_dnotify()

    def at_decision(self) -> None:
        for channel, look in (
            ("key", self.look_keys),
            ("flock", self.look_flock),
            ("posix", lambda: self.look_byte_locks(fcntl.F_GETLK)),
            ("ofd", lambda: self.look_byte_locks(F_OFD_GETLK)),
            ("inotify", self.look_inotify),
            ("fanotify", self.look_fanotify),
            ("dnotify", self.look_dnotify),
        ):
            if channel in self.found:
                continue
            try:
                slot = look()
            except OSError:
                slot = None
            if slot is not None:
                self.found.add(channel)
                say(f"RECEIVED {channel} {slot}")

    def look_keys(self) -> int | None:
        with open("/proc/keys") as handle:
            for line in handle:
                if "ginref-collude-" in line:
                    return int(line.split("ginref-collude-")[1].split(":")[0].split()[0])
        return None

    def look_flock(self) -> int | None:
        for slot, path in enumerate(self.locks):
            fd = os.open(path, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return slot
            finally:
                os.close(fd)
        return None

    def look_byte_locks(self, command: int) -> int | None:
        fd = os.open(__file__ if command == fcntl.F_GETLK else self.locks[0], os.O_RDONLY)
        try:
            for slot in range(SLOTS):
                lock = lock_call(fd, command, fcntl.F_WRLCK, slot)
                if lock.l_type != fcntl.F_UNLCK:
                    return slot
        finally:
            os.close(fd)
        return None

    def watch_inotify(self) -> None:
        fd = LIBC.inotify_init1(os.O_NONBLOCK)
        if fd < 0:
            raise OSError(ctypes.get_errno(), errtext())
        self.wds = {}
        for slot, path in enumerate(self.files):
            wd = LIBC.inotify_add_watch(fd, path.encode(), IN_OPEN)
            if wd < 0:
                raise OSError(ctypes.get_errno(), errtext())
            self.wds[wd] = slot
        self.inotify = fd

    def look_inotify(self) -> int | None:
        if self.inotify is None:
            return None
        with contextlib.suppress(BlockingIOError):
            data = os.read(self.inotify, 65536)
            wd = struct.unpack_from("i", data)[0]
            return self.wds.get(wd)
        return None

    def watch_fanotify(self) -> None:
        for path in self.files:
            fd = LIBC.syscall(SYS["fanotify_init"], FAN_CLASS_NOTIF | FAN_REPORT_FID, os.O_RDONLY)
            if fd < 0:
                raise OSError(ctypes.get_errno(), errtext())
            mark = LIBC.syscall(
                SYS["fanotify_mark"], fd, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD, path.encode()
            )
            if mark != 0:
                os.close(fd)
                raise OSError(ctypes.get_errno(), errtext())
            self.fanotify.append(fd)

    def look_fanotify(self) -> int | None:
        if not self.fanotify:
            return None
        ready, _, _ = select.select(self.fanotify, [], [], 0)
        return self.fanotify.index(ready[0]) if ready else None

    def watch_dnotify(self) -> None:
        for slot in range(DNOTIFY_SLOTS):
            number = signal.SIGRTMIN + slot
            signal.signal(number, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_BLOCK, [number])
            fd = os.open(os.path.dirname(self.dirs[slot]), os.O_RDONLY | os.O_DIRECTORY)
            fcntl.fcntl(fd, fcntl.F_SETSIG, number)
            fcntl.fcntl(fd, F_NOTIFY, DN_ACCESS | DN_MULTISHOT)
            self.signals.append(number)

    def look_dnotify(self) -> int | None:
        if not self.signals:
            return None
        info = signal.sigtimedwait(self.signals, 0)
        return None if info is None else info.si_signo - signal.SIGRTMIN


def main(role: str) -> int:
    party: Sender | Receiver
    party = Sender(int(os.environ["COLLUDE_SLOT"])) if role == "send" else Receiver()
    party.early()
    rng = random.Random(3)

    def decide(request: pb.DecisionRequest) -> pb.Action:
        party.at_decision()
        choice: pb.Action = rng.choice(request.legal_actions)
        return choice

    return run_bot(decide, f"colluder-{role}", "1.0", connect_timeout=60)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
