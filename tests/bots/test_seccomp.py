"""The seccomp filter's verdicts, read by a small interpreter of classic BPF (the sandbox tests
run the real one in the kernel: test_sandbox_channels.py, test_sandbox_deal.py)."""

from __future__ import annotations

import errno
import struct

import pytest

from referee.bots.seccomp import _AUDIT_ARCH, _SYSCALLS, seccomp_filter

ALLOW = "allow"


def run(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> str | int:
    """The filter's verdict on one call: ``"allow"`` or the errno it returns."""
    words = [nr, arch, 0, 0] + [v for a in (*args, *[0] * (6 - len(args))) for v in (a, 0)]
    data = struct.pack("<" + "I" * len(words), *words)
    insns = [struct.unpack_from("<HBBI", program, i) for i in range(0, len(program), 8)]
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = insns[pc]
        if op == 0x20:  # ld [k]
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif op in (0x15, 0x35, 0x45):  # jeq, jge, jset
            hit = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[op]
            pc += 1 + (jt if hit else jf)
        elif op == 0x06:
            if k == 0x7FFF0000:
                return ALLOW
            assert k & 0xFFFF0000 == 0x00050000, hex(k)
            return k & 0xFFFF
        else:
            raise AssertionError(f"unknown opcode {op:#x}")


@pytest.mark.parametrize("machine", sorted(_AUDIT_ARCH))
def test_the_filter_denies_what_crosses_sandboxes(machine: str) -> None:
    program = seccomp_filter(machine=machine)
    assert program is not None
    arch, nr = _AUDIT_ARCH[machine], _SYSCALLS[machine]

    def verdict(name: str, *args: int) -> str | int:
        return run(program, nr[name], arch, args)

    for name in ("add_key", "request_key", "keyctl", "inotify_init1", "cachestat", "bpf"):
        assert verdict(name) == errno.ENOSYS, name
    assert verdict("io_uring_setup") == errno.ENOSYS
    assert verdict("fanotify_init") == errno.EPERM
    assert verdict("unshare") == errno.EPERM
    assert verdict("clone", 0x10000000 | 17) == errno.EPERM  # CLONE_NEWUSER
    assert verdict("clone", 0x01200011) == ALLOW  # what fork() asks
    assert verdict("clone3") == errno.ENOSYS
    # Locks are granted without being taken; asking who holds one fails.
    assert verdict("flock", 3, 2) == 0
    for command in (6, 7, 37, 38):  # F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW
        assert verdict("fcntl", 3, command) == 0
    assert verdict("fcntl", 3, 5) == errno.ENOLCK  # F_GETLK
    assert verdict("fcntl", 3, 36) == errno.ENOLCK  # F_OFD_GETLK
    assert verdict("fcntl", 3, 1026) == errno.EINVAL  # F_NOTIFY
    assert verdict("fcntl", 3, 1) == ALLOW  # F_GETFD
    assert verdict("preadv2", 3, 0, 1, 0, 0, 0x8) == errno.EOPNOTSUPP  # RWF_NOWAIT
    assert verdict("preadv2", 3, 0, 1, 0, 0, 0x1) == ALLOW  # RWF_HIPRI
    assert run(program, 0, arch) == ALLOW  # read / io_setup: the rest is allowed


def test_other_system_call_tables_are_refused() -> None:
    program = seccomp_filter(machine="x86_64")
    assert program is not None
    x86_64 = _AUDIT_ARCH["x86_64"]
    assert run(program, 0x40000000 | 272, x86_64) == errno.ENOSYS  # x32 unshare
    assert run(program, 0, 0x40000003) == errno.ENOSYS  # i386: read
    assert run(program, 0, x86_64) == ALLOW


def test_without_channels_only_namespaces_are_denied() -> None:
    program = seccomp_filter(False, machine="x86_64")
    assert program is not None
    arch, nr = _AUDIT_ARCH["x86_64"], _SYSCALLS["x86_64"]
    assert run(program, nr["keyctl"], arch) == ALLOW
    assert run(program, nr["flock"], arch) == ALLOW
    assert run(program, nr["unshare"], arch) == errno.EPERM


def test_an_unknown_machine_has_no_filter() -> None:
    assert seccomp_filter(machine="riscv64") is None
