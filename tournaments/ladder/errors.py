"""The errors of a season: what an entrant or the organiser is told, in one line."""

from __future__ import annotations

from referee.errors import ConfigError, GinRefError

# The steps a submission goes through, in order; a failure names its step.
STEPS = ("upload", "unpack", "manifest", "build", "validate")


class LadderError(ConfigError):
    """A mistake in a season's file, directory or command line: one line, exit 2."""


class SubmissionError(GinRefError):
    """A submission failed at ``step``: reported to its entrant with the exit status (if a
    command ran) and the tail of its output; the pool is never touched."""

    def __init__(
        self, step: str, message: str, *, status: str | None = None, tail: str = ""
    ) -> None:
        assert step in STEPS, step
        self.step = step
        self.message = message
        self.status = status  # "exit 2", "killed: SIGKILL (time limit 300 s)", ...
        self.tail = tail  # the last lines of the command's output
        super().__init__(f"{step}: {message}")
