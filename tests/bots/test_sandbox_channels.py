"""Two instances of one bot, each in its sandbox, try to pass a secret through the kernel: its
key store, locks on files both can read, notifications of another's use of such a file.

The sender is told a slot (below 64) that only the channel can carry to the receiver; the
receiver prints what it saw (tests/support/colluder.py). Judged from outside: a channel is open
exactly when the receiver names the sender's slot, which it cannot guess but by chance (and it
names nothing it did not see). The last test runs the same pair under the filter without the
channels closed, to show that each channel it tries is real on this machine.
"""

from __future__ import annotations

import ctypes
import re
import secrets
import sys
from pathlib import Path

import pytest

import referee.bots.process
from referee.bots.seccomp import seccomp_filter
from referee.bots.spec import BotSpec
from referee.engine.rules import Rules
from referee.series import run_match
from tests.support.referee_helpers import ROOT
from tests.support.sandbox_helpers import OPTIONS, SANDBOX

pytestmark = pytest.mark.slow  # sandboxed matches of real bot processes

COLLUDER = ROOT / "tests" / "support" / "colluder.py"
KEYCTL, KEYCTL_INVALIDATE = 250, 21
CHANNELS = ("key", "flock", "posix", "ofd", "inotify", "fanotify", "dnotify")


def colluders(tmp_path: Path) -> tuple[int, str, str]:
    """A match between a sender and a receiver; the slot, and each one's output."""
    slot = secrets.randbelow(64)
    send = BotSpec(
        (sys.executable, str(COLLUDER), "send"), "sender", env=(("COLLUDE_SLOT", str(slot)),)
    )
    receive = BotSpec((sys.executable, str(COLLUDER), "receive"), "receiver")
    # One hand, not a match to 100: the bots play at random, so rarely knock (to 100, hundreds
    # of hands), and each decision of theirs marks or looks at every slot of every channel. A
    # hand alternates dozens of decisions, and one look after a mark shows a channel.
    rules = Rules.profile("standard", scope="single_hand")
    outcome = run_match(send, receive, rules, 5, tmp_path, OPTIONS)
    assert outcome.forfeit is None, outcome.forfeit
    sender = next(tmp_path.glob("*.seat0.sender.log")).read_text()
    receiver = next(tmp_path.glob("*.seat1.receiver.log")).read_text()
    return slot, sender, receiver


def received(text: str) -> dict[str, int]:
    """What the receiver says it saw, by channel."""
    return {m[1]: int(m[2]) for m in re.finditer(r"^RECEIVED (\w+) (\d+)$", text, re.M)}


def key_users() -> dict[int, int]:
    """Keys in the kernel by owner (uid), as /proc/key-users counts them (every key)."""
    users: dict[int, int] = {}
    for line in Path("/proc/key-users").read_text().splitlines():
        uid, counts = line.split(":", 1)
        users[int(uid)] = int(counts.split()[1].split("/")[0])
    return users


def sandbox_keys() -> dict[int, int]:
    low, high = SANDBOX.uid_base, SANDBOX.uid_base + SANDBOX.uid_count
    return {uid: n for uid, n in key_users().items() if low <= uid < high and n}


def test_no_channel_carries_the_slot(tmp_path: Path) -> None:
    keys_before = sandbox_keys()
    _, sender, receiver = colluders(tmp_path)
    assert "NOT SENT key: [Errno 38]" in sender  # ENOSYS: the key store is not there
    # A bot's own use of locks still works: its flock and fcntl locks succeed at once.
    for what in ("flock", "posix", "ofd"):
        assert f"SENT {what}" in sender, sender[-2000:]
    assert received(receiver) == {}, receiver[-2000:]
    # Nothing the sender tried left a key in the kernel after it was gone.
    assert sandbox_keys() == keys_before


def supported() -> set[str]:
    """The channels this kernel has, seen from outside any sandbox."""
    have = {"flock", "posix", "ofd"}
    if Path("/proc/keys").exists():
        have.add("key")
    if Path("/proc/sys/fs/inotify").is_dir():
        have.add("inotify")
    if Path("/proc/sys/fs/fanotify").is_dir():  # unprivileged fanotify came with it (5.13)
        have.add("fanotify")
    dnotify = Path("/proc/sys/fs/dir-notify-enable")
    if dnotify.exists() and dnotify.read_text().strip() == "1":
        have.add("dnotify")
    return have


def invalidate_collusion_keys() -> None:
    """Remove the keys the sender made (root may: it gave everyone every permission)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for line in Path("/proc/keys").read_text().splitlines():
        if "ginref-collude-" in line:
            libc.syscall(KEYCTL, KEYCTL_INVALIDATE, int(line.split()[0], 16))


def test_each_channel_is_real_without_the_filter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(referee.bots.process, "seccomp_filter", lambda: seccomp_filter(False))
    try:
        slot, _, receiver = colluders(tmp_path)
    finally:
        invalidate_collusion_keys()
    seen = received(receiver)
    expected = {c: slot for c in supported()}
    if "dnotify" in expected:
        expected["dnotify"] = slot % 16  # one real-time signal per directory, 16 of them
    assert seen == expected, receiver[-2000:]
