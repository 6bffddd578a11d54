"""Per-bot resource limits: what the organiser allows each bot, and how the referee holds it there.

A :class:`Limits` value says how much CPU time, memory, how many processes and how much output a
bot's process group may use, and how large a message a bot may send (docs/referee.md, "Resource
limits"; a tournament file's ``[limits]`` table). Three mechanisms enforce it:

1. **At launch**, every bot starts through ``referee/bots/preexec.py``
   (:func:`referee.bots.process.limited_command`), which sets RLIMIT_CPU, RLIMIT_FSIZE (the output
   file), RLIMIT_AS when asked, no core dumps, and a parent-death signal, and then ``exec``s the
   bot. The kernel enforces these per process, at once, and every child inherits them.
2. **While it runs**, a :class:`~referee.bots.watch.GroupWatch` (one per event loop) reads ``/proc``
   every :data:`~referee.bots.watch.POLL_INTERVAL` seconds and sums, over each bot's processes, the
   CPU time, the resident memory and the number of processes, and checks the size of its output
   file. A bot over a limit is killed at once (SIGKILL to each of its processes) and the reason is
   kept (:attr:`~referee.bots.watch.Guard.breach`), so the crash it causes is recorded as
   ``crashed`` with a reason that names the limit (:func:`describe_exit`). A bot's processes are
   those of its session (the bot starts a session of its own), their descendants, and any process
   whose environment carries the bot's secret token, which catches a child that started a session of
   its own.
3. **At the end**, :meth:`~referee.bots.watch.Guard.close` kills every process of the bot that is
   still there, found the same way, after the match runner has stopped the process group.

Weaknesses, documented for organisers: the watch is a poll, so a bot can overshoot the memory,
process or CPU limit for up to one interval (a process killed by RLIMIT_CPU or RLIMIT_FSIZE is
stopped at once); resident memory counts shared pages once per process; a process that leaves
the bot's session *and* scrubs its environment before the next poll escapes the watch; the
per-user RLIMIT_NPROC is not used, because it counts every process of the user (the referee's
included) and does not apply to root. For hard isolation run bots in containers or cgroups.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.errors import ConfigError

if TYPE_CHECKING:
    from referee.bots.watch import Guard

MIB = 1 << 20
KIB = 1 << 10

DEFAULT_CPU_SECONDS = 1800.0
DEFAULT_MEMORY = 2048 * MIB
DEFAULT_ADDRESS_SPACE = 0
DEFAULT_PROCESSES = 64
DEFAULT_OUTPUT = 16 * MIB
DEFAULT_MESSAGE = 64 * KIB
DEFAULT_CPUS = 1.0
DEFAULT_OPEN_FILES = 256
# gRPC refuses a message above this on its own (and cuts the stream); up to it the referee reads
# the message and refuses it with a PROTOCOL_ERROR fault that the bot is told about.
GRPC_HARD_LIMIT = 4 * MIB


@dataclass(frozen=True, slots=True)
class Limits:
    """What each bot's process group may use; 0 means no limit (docs/referee.md)."""

    cpu_seconds: float = DEFAULT_CPU_SECONDS  # CPU time of the group over its life
    memory_bytes: int = DEFAULT_MEMORY  # resident memory of the group, summed over processes
    address_space_bytes: int = DEFAULT_ADDRESS_SPACE  # RLIMIT_AS, per process
    processes: int = DEFAULT_PROCESSES  # processes in the group at once
    output_bytes: int = DEFAULT_OUTPUT  # the bot's output file (stdout and stderr)
    message_bytes: int = DEFAULT_MESSAGE  # the largest message a bot may send; never 0
    cpus: float = DEFAULT_CPUS  # cores' worth of CPU at once (a cgroup's bandwidth limit)
    open_files: int = DEFAULT_OPEN_FILES  # RLIMIT_NOFILE: files and sockets per process

    def validate(self) -> Limits:
        """Return ``self`` or raise :class:`ConfigError` naming the bad limit."""
        for name in (
            "cpu_seconds",
            "memory_bytes",
            "address_space_bytes",
            "processes",
            "cpus",
            "open_files",
        ):
            if getattr(self, name) < 0:
                raise ConfigError(f"the {name.replace('_', ' ')} limit must not be negative")
        if self.output_bytes < 0:
            raise ConfigError("the output limit must not be negative")
        if not 0 < self.message_bytes <= GRPC_HARD_LIMIT:
            raise ConfigError(
                f"the message size limit must be between 1 byte and {GRPC_HARD_LIMIT // KIB} KiB, "
                f"got {self.message_bytes} bytes"
            )
        return self

    @property
    def polled(self) -> bool:
        """Whether a limit needs the watch's poll (rather than the kernel alone)."""
        return bool(self.cpu_seconds or self.memory_bytes or self.processes or self.output_bytes)

    def to_dict(self) -> dict[str, float]:
        """The tournament file's ``[limits]`` keys and values."""
        return {
            "cpu_seconds": self.cpu_seconds,
            "memory_mb": self.memory_bytes / MIB,
            "address_space_mb": self.address_space_bytes / MIB,
            "processes": self.processes,
            "output_mb": self.output_bytes / MIB,
            "message_kb": self.message_bytes / KIB,
            "cpus": self.cpus,
            "open_files": self.open_files,
        }

    def with_keys(self, values: Mapping[str, object]) -> Limits:
        """A copy with ``[limits]`` keys (those of :meth:`to_dict`) replaced; values may be
        numbers or their text (``--limit memory_mb=512``). Raises :class:`ConfigError`."""
        changes: dict[str, Any] = {}
        for key, value in values.items():
            if key not in LIMIT_KEYS:
                raise ConfigError(f"unknown limit {key!r}; known: {', '.join(LIMIT_KEYS)}")
            attr, scale = LIMIT_KEYS[key]
            try:
                if isinstance(value, bool) or not isinstance(value, int | float | str):
                    raise ValueError(value)
                number = float(value)
                if not math.isfinite(number):
                    raise ValueError(value)
            except ValueError:
                raise ConfigError(f"limit {key}: expected a number, got {value!r}") from None
            if number < 0:
                raise ConfigError(f"limit {key}: must not be negative (0: no limit), got {value}")
            if key in ("processes", "open_files") and number != int(number):
                raise ConfigError(f"limit {key}: expected a whole number, got {value}")
            changes[attr] = number if scale == 0 else round(number * scale)
        limits = dataclasses.replace(self, **changes)
        if "message_kb" in values and not 0 < limits.message_bytes <= GRPC_HARD_LIMIT:
            raise ConfigError(
                f"limit message_kb: must be more than 0 and at most {GRPC_HARD_LIMIT // KIB}, "
                f"got {values['message_kb']}"
            )
        return limits.validate()


# [limits] key -> (Limits field, bytes per unit; 0: kept as a float)
LIMIT_KEYS: dict[str, tuple[str, int]] = {
    "cpu_seconds": ("cpu_seconds", 0),
    "memory_mb": ("memory_bytes", MIB),
    "address_space_mb": ("address_space_bytes", MIB),
    "processes": ("processes", 1),
    "output_mb": ("output_bytes", MIB),
    "message_kb": ("message_bytes", KIB),
    "cpus": ("cpus", 0),
    "open_files": ("open_files", 1),
}


def size_text(n: int) -> str:
    """``16 MiB``, ``64 KiB`` or ``1000 bytes``."""
    if n >= MIB and n % MIB == 0:
        return f"{n // MIB} MiB"
    if n >= KIB and n % KIB == 0:
        return f"{n // KIB} KiB"
    return f"{n} bytes"


def describe_exit(code: int, limits: Limits, guard: Guard | None, output: Path | None) -> str:
    """How a bot process ended, naming the limit that ended it, e.g. ``exited with code -24
    (SIGXCPU: it used up the CPU time limit of 2 s)``; always starts ``exited with code N``."""
    text = f"exited with code {code}"
    if guard is not None and guard.breach is not None:
        return f"{text} (the referee killed it for breaking {guard.breach})"
    if code == -signal.SIGXCPU:
        return f"{text} (SIGXCPU: it used up the CPU time limit of {limits.cpu_seconds:g} s)"
    size = 0
    if output is not None and limits.output_bytes:
        with contextlib.suppress(OSError):
            size = output.stat().st_size
    if code == -signal.SIGXFSZ or (limits.output_bytes and size >= limits.output_bytes):
        return f"{text} (its output reached the output limit of {size_text(limits.output_bytes)})"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"{text} (killed by {signal.Signals(-code).name})"
    return text
