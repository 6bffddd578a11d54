"""The referee's options: clock, fault policy, process handling and resource limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.bots.limits import Limits
from referee.bots.sandbox import SandboxSettings
from referee.errors import ConfigError

DEFAULT_MOVE_TIME = 10.0
DEFAULT_BANK = 60.0
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_RETRIES = 0
DEFAULT_EXIT_GRACE = 2.0
DEFAULT_KILL_GRACE = 2.0


@dataclass(frozen=True, slots=True)
class RefereeOptions:
    """Clock, fault policy and process handling; times in seconds (docs/referee.md)."""

    move_time: float = DEFAULT_MOVE_TIME
    bank: float = DEFAULT_BANK
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    exit_grace: float = DEFAULT_EXIT_GRACE
    kill_grace: float = DEFAULT_KILL_GRACE
    fsync: bool = False
    # Whether bots may think on their opponents' time: off, each bot is frozen (its cgroup)
    # from its reply to its next request, so that it cannot take CPU from the one that acts.
    ponder: bool = False
    limits: Limits = field(default_factory=Limits)  # per-bot resources, message size
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)  # bwrap, or none

    def validate(self) -> RefereeOptions:
        """Return ``self`` or raise :class:`ConfigError` naming the bad option."""
        self.limits.validate()
        self.sandbox.validate()
        if not self.move_time > 0:
            raise ConfigError(f"move time must be positive, got {self.move_time}")
        for name in ("bank", "exit_grace", "kill_grace"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name.replace('_', ' ')} must not be negative")
        if not self.connect_timeout > 0:
            raise ConfigError(f"connect timeout must be positive, got {self.connect_timeout}")
        if self.retries < 0:
            raise ConfigError(f"retries must not be negative, got {self.retries}")
        return self
