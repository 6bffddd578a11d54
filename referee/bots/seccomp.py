"""The sandbox's seccomp filter: what a bot's processes may not ask of the kernel.

A bot runs without capabilities, and the filter (classic BPF over ``struct seccomp_data``, as
``bwrap --seccomp`` loads it) takes away what would still let it reach beyond its sandbox:

- **New namespaces.** A user namespace of its own would give it every capability there, and
  much more of the kernel to attack: ``unshare`` and ``setns`` fail with EPERM, ``clone`` with
  ``CLONE_NEWUSER`` too, and ``clone3`` (whose flags a filter cannot read) with ENOSYS, which
  makes the C library fall back to ``clone``.
- **Channels to other sandboxes.** Two bots (two instances of one bot, in two matches) share
  the kernel and every read-only file of the host. The filter closes the channels that such
  sharing opens without a timing measurement:

  - the kernel's key store (``add_key``, ``request_key``, ``keyctl``: ENOSYS, as on a kernel
    built without it; it is per uid, not per namespace, and outlives the process);
  - file locks on shared files (``flock``; ``fcntl``'s ``F_SETLK``, ``F_SETLKW`` and the OFD
    ones): they succeed at once and lock nothing, so no bot can hold a lock another can see or
    wait on; ``F_GETLK`` and ``F_OFD_GETLK`` fail with ENOLCK;
  - notification of another process's use of a shared file: ``inotify`` (ENOSYS), ``fanotify``
    (EPERM), ``fcntl(F_NOTIFY)`` (EINVAL, as without dnotify);
  - questions about the page cache of shared files: ``cachestat`` (ENOSYS) and ``preadv2`` with
    ``RWF_NOWAIT`` (EOPNOTSUPP, as on a file that does not support it);
  - ``io_uring`` (which would run these calls where the filter does not see them),
    ``perf_event_open`` and ``bpf`` (ENOSYS; Docker's default profile denies them too).

- **Other system call tables.** A call through another ABI than the machine's own (a 32-bit
  program on x86_64 or aarch64, or x86_64's x32 numbers) fails with ENOSYS, so that none of the
  above can be asked for under another number.

What stays open between two processes on one machine is timing (of the CPU, the caches, the
page cache) and the kernel's global counters (``/proc/stat``, ``/proc/meminfo``): that is why
a tournament never plays two matches that share a deal with the same bot at once
(docs/security.md).
"""

from __future__ import annotations

import errno
import os
import struct
from dataclasses import dataclass

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_BIT = 0x40000000  # x86_64's x32 ABI: the same architecture, these numbers

# System call numbers by architecture.
_SYSCALLS: dict[str, dict[str, int]] = {
    "x86_64": {
        "clone": 56,
        "fcntl": 72,
        "flock": 73,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "inotify_init": 253,
        "inotify_add_watch": 254,
        "unshare": 272,
        "inotify_init1": 294,
        "perf_event_open": 298,
        "fanotify_init": 300,
        "fanotify_mark": 301,
        "setns": 308,
        "bpf": 321,
        "preadv2": 327,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "clone3": 435,
        "cachestat": 451,
    },
    "aarch64": {
        "fcntl": 25,
        "inotify_init1": 26,
        "inotify_add_watch": 27,
        "flock": 32,
        "unshare": 97,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "clone": 220,
        "perf_event_open": 241,
        "fanotify_init": 262,
        "fanotify_mark": 263,
        "setns": 268,
        "bpf": 280,
        "preadv2": 286,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "clone3": 435,
        "cachestat": 451,
    },
}

# Denied outright, with the error the caller sees.
_DENIED: dict[str, int] = {
    "unshare": errno.EPERM,
    "setns": errno.EPERM,
    "clone3": errno.ENOSYS,
    "add_key": errno.ENOSYS,
    "request_key": errno.ENOSYS,
    "keyctl": errno.ENOSYS,
    "inotify_init": errno.ENOSYS,
    "inotify_init1": errno.ENOSYS,
    "inotify_add_watch": errno.ENOSYS,
    "fanotify_init": errno.EPERM,
    "fanotify_mark": errno.EPERM,
    "cachestat": errno.ENOSYS,
    "io_uring_setup": errno.ENOSYS,
    "io_uring_enter": errno.ENOSYS,
    "io_uring_register": errno.ENOSYS,
    "perf_event_open": errno.ENOSYS,
    "bpf": errno.ENOSYS,
}
_CHANNELS = frozenset(set(_DENIED) - {"unshare", "setns", "clone3"})

_CLONE_NEWUSER = 0x10000000
_RWF_NOWAIT = 0x00000008
# fcntl commands
_F_GETLK, _F_SETLK, _F_SETLKW = 5, 6, 7
_F_OFD_GETLK, _F_OFD_SETLK, _F_OFD_SETLKW = 36, 37, 38
_F_NOTIFY = 1026
_GRANTED = 0  # RET_ERRNO with errno 0: the call returns 0 and is not made

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
# BPF opcodes: load a word of seccomp_data, jumps, return
_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
# Offsets in struct seccomp_data: the call's number, the architecture, the low half of args[i].
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    return 16 + 8 * index


@dataclass(frozen=True, slots=True)
class _Jump:
    """A conditional jump to labels (``None``: the next instruction)."""

    op: int
    k: int
    true: str | None
    false: str | None = None


_Insn = tuple[int, int] | _Jump | str  # (opcode, k), a jump, or a label


def _assemble(program: list[_Insn]) -> bytes:
    """Classic BPF from instructions with labelled forward jumps."""
    at: dict[str, int] = {}
    code: list[tuple[int, int] | _Jump] = []
    for item in program:
        if isinstance(item, str):
            at[item] = len(code)
        else:
            code.append(item)
    out = bytearray()
    for index, item in enumerate(code):
        if isinstance(item, _Jump):

            def offset(label: str | None, index: int = index) -> int:
                if label is None:
                    return 0
                step = at[label] - index - 1
                if not 0 <= step <= 255:
                    raise ValueError(f"seccomp jump to {label} out of range")
                return step

            out += struct.pack("<HBBI", item.op, offset(item.true), offset(item.false), item.k)
        else:
            op, k = item
            out += struct.pack("<HBBI", op, 0, 0, k)
    return bytes(out)


def _ret_errno(code: int) -> tuple[int, int]:
    return (_RET, _RET_ERRNO | code)


def seccomp_filter(channels: bool = True, machine: str | None = None) -> bytes | None:
    """The compiled filter for ``machine`` (default: this one), as ``bwrap --seccomp`` reads it;
    None on an architecture it does not know (the bot then runs without one).

    ``channels=False`` leaves the channels between sandboxes open (new namespaces and other
    system call tables only), as the sandbox was before they were closed: the tests run it to
    show that each channel they try is real on the machine.
    """
    machine = machine or os.uname().machine
    if machine not in _AUDIT_ARCH:
        return None
    nr = _SYSCALLS[machine]
    denied = {
        name: code
        for name, code in _DENIED.items()
        if name in nr and (channels or name not in _CHANNELS)
    }
    program: list[_Insn] = [
        (_LD, _ARCH),
        _Jump(_JEQ, _AUDIT_ARCH[machine], None, "enosys"),
        (_LD, _NR),
    ]
    if machine == "x86_64":
        program.append(_Jump(_JGE, _X32_BIT, "enosys"))
    for name in sorted(denied, key=nr.__getitem__):
        program.append(_Jump(_JEQ, nr[name], f"deny_{name}"))
    program.append(_Jump(_JEQ, nr["clone"], "clone"))
    if channels:
        program += [
            _Jump(_JEQ, nr["flock"], "granted"),
            _Jump(_JEQ, nr["fcntl"], "fcntl"),
            _Jump(_JEQ, nr["preadv2"], "preadv2"),
        ]
    program += [(_RET, _RET_ALLOW), "clone", (_LD, _arg(0))]
    program += [_Jump(_JSET, _CLONE_NEWUSER, "eperm"), (_RET, _RET_ALLOW)]
    if channels:
        program += ["fcntl", (_LD, _arg(1))]
        for command in (_F_SETLK, _F_SETLKW, _F_OFD_SETLK, _F_OFD_SETLKW):
            program.append(_Jump(_JEQ, command, "granted"))
        for command in (_F_GETLK, _F_OFD_GETLK):
            program.append(_Jump(_JEQ, command, "enolck"))
        program += [_Jump(_JEQ, _F_NOTIFY, "einval"), (_RET, _RET_ALLOW)]
        program += ["preadv2", (_LD, _arg(5)), _Jump(_JSET, _RWF_NOWAIT, "eopnotsupp")]
        program += [(_RET, _RET_ALLOW)]
        program += ["granted", _ret_errno(_GRANTED), "enolck", _ret_errno(errno.ENOLCK)]
        program += ["einval", _ret_errno(errno.EINVAL)]
        program += ["eopnotsupp", _ret_errno(errno.EOPNOTSUPP)]
    for name, code in denied.items():
        program += [f"deny_{name}", _ret_errno(code)]
    program += ["eperm", _ret_errno(errno.EPERM), "enosys", _ret_errno(errno.ENOSYS)]
    return _assemble(program)
