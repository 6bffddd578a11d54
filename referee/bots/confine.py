"""What a run confines its bots with: the sandbox (or none) and cgroups (or the ``/proc`` watch).

A :class:`Confinement` is made once per run (a match, a tournament, ``replay --ask``): it
checks that the machine can build the sandbox (:func:`referee.bots.sandbox.probe`, or a
:class:`~referee.errors.ConfigError` that says in one line why not), finds the cgroup layout
(:func:`referee.bots.cgroup.detect_layout`; where there is none, bots fall back to the
``/proc`` watch and :attr:`Confinement.warnings` says so), and keeps the paths no bot may
see (results, journal, the tournament file) and the private directory of the bots' sockets.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from referee.bots import cgroup
from referee.bots.sandbox import (
    SandboxSettings,
    check_bot,
    check_dirs,
    probe,
    runtime_paths,
)
from referee.bots.spec import BotSpec
from referee.errors import ConfigError

_probed: dict[SandboxSettings, str | None] = {}
_layout: cgroup.Layout | str | None = None


def machine_layout() -> cgroup.Layout | str:
    """This process's cgroup layout (detected once), or why there is none."""
    global _layout
    if _layout is None:
        _layout = cgroup.detect_layout()
        if isinstance(_layout, cgroup.Layout):
            atexit.register(cgroup.remove_parents, _layout)
    return _layout


def sandbox_problem(settings: SandboxSettings) -> str | None:
    """Why the sandbox cannot be built here (probed once per settings), or None."""
    if settings not in _probed:
        _probed[settings] = probe(settings)
    return _probed[settings]


@dataclass(slots=True)
class Confinement:
    """A run's sandbox settings, cgroup layout, protected paths and socket directory."""

    settings: SandboxSettings
    layout: cgroup.Layout | None
    protected: tuple[Path, ...] = ()
    warnings: list[str] = field(default_factory=list)
    runtime: list[Path] = field(default_factory=list)
    socket_root: Path | None = None

    @staticmethod
    def prepare(
        settings: SandboxSettings, protected: Iterable[Path] = (), bots: Iterable[BotSpec] = ()
    ) -> Confinement:
        """Check the machine, the binds and ``bots`` (none may see a protected path) and make
        the socket directory; raise :class:`ConfigError` if the sandbox is asked for and cannot
        be built, or a bot cannot be sandboxed."""
        settings = settings.validate()
        warnings: list[str] = []
        if settings.enabled:
            problem = sandbox_problem(settings)
            if problem is not None:
                raise ConfigError(
                    f"cannot sandbox the bots: {problem}; to run trusted bots unsandboxed, "
                    "use --sandbox none"
                )
        else:
            warnings.append(
                "bots run unsandboxed (--sandbox none): they can read and change anything "
                "the referee's user can; use this only for bots you trust"
            )
        layout = machine_layout()
        if isinstance(layout, cgroup.Layout) and layout.v2 is None:
            warnings.append(
                "bots are not frozen between their turns: this machine has no cgroup v2 "
                "hierarchy, and a bot frozen by cgroup v1's freezer would outlive a killed "
                "referee (docs/security.md)"
            )
        if isinstance(layout, str):
            warnings.append(
                f"no cgroups: {layout}; bots' resources are held by polling /proc instead, "
                "which a bot can outrun (docs/security.md)"
            )
        confinement = Confinement(
            settings,
            layout if isinstance(layout, cgroup.Layout) else None,
            tuple(p.resolve() for p in protected),
            warnings,
        )
        if settings.enabled:
            check_dirs(None, [Path(b).resolve() for b in settings.binds], confinement.protected)
            for bot in bots:
                check_bot(bot, confinement.protected)
            confinement.runtime = runtime_paths()
            base = "/run" if os.access("/run", os.W_OK) else None
            root = Path(tempfile.mkdtemp(prefix="ginref-", dir=base))
            # Bots' uids may pass through, to their own socket's directory, but not list it.
            root.chmod(0o711)
            confinement.socket_root = root
        return confinement

    def socket_dir(self, uid: int) -> Path:
        """A new directory for one bot's socket, owned by its uid and closed to others.

        Its name is the bot's own, not its uid's: a uid is leased again as soon as its bot is
        gone, while that bot's listener may still be closing (and removing its socket)."""
        assert self.socket_root is not None
        path = Path(tempfile.mkdtemp(prefix=f"{uid}-", dir=self.socket_root))
        os.chown(path, uid, uid)
        return path

    def close(self) -> None:
        """Remove the socket directory."""
        if self.socket_root is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(self.socket_root)
            self.socket_root = None
