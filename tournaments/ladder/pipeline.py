"""A submission from upload to acceptance: unpack, manifest, build, validate.

:func:`process` runs the steps in order on one version's directory (``bot/``: the unpacked
archive, built in place; ``validation/``: the validation match's replay log and the bots'
output), writes each step's lines to the entrant's log as it goes, and returns what the pool
needs to start the bot (:class:`Accepted`), or raises the failing step's
:class:`~tournaments.ladder.errors.SubmissionError` with everything before it kept in the log.
A failed version's ``bot/`` is removed (a build may leave up to its disk cap there); its log
and validation output stay.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from referee.bots.limits import size_text
from referee.bots.sandbox import Transport
from referee.bots.spec import BotSpec
from tournaments.file.config import TournamentConfig
from tournaments.ladder.archive import ArchiveCaps, unpack
from tournaments.ladder.build import BuildLimits, build, clear_leftovers, image_environment
from tournaments.ladder.errors import SubmissionError
from tournaments.ladder.manifest import read_manifest
from tournaments.ladder.season import Season
from tournaments.ladder.validate import GREEDY, validate

BOT = "bot"
VALIDATION = "validation"


@dataclass(frozen=True, slots=True)
class Accepted:
    """A version that passed every step: how the referee starts it in the pool's matches."""

    language: str
    run: str  # the manifest's run command as written (``{python}`` kept)
    command: tuple[str, ...]  # the same, split, ``{python}`` the interpreter ginref runs on
    cwd: Path  # where it runs: its own directory, all it sees of its own
    transport: Transport
    env: tuple[tuple[str, str], ...]  # the season's image's variables (GINREF_PROTO, NODE_PATH)
    summary: str  # how its validation match went

    def spec(self, label: str) -> BotSpec:
        """The version as a bot named ``label`` (``alice@3``)."""
        return BotSpec(self.command, label, str(self.cwd), self.env, (".",), self.transport)


def _say(log: Path, line: str) -> None:
    with open(log, "a", encoding="utf-8") as out:
        out.write(line + "\n")


def process(
    data: bytes,
    directory: Path,
    config: TournamentConfig,
    caps: ArchiveCaps,
    limits: BuildLimits,
    log: Path,
    opponent: BotSpec = GREEDY,
    label: str = "submission",
) -> Accepted:
    """Unpack ``data`` into ``directory/bot``, read its manifest, build it, validate it against
    ``opponent`` under ``config``'s rules and sandbox; each step's lines to ``log`` (started
    afresh: a version interrupted earlier starts over)."""
    directory.mkdir(parents=True, exist_ok=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("")
    home = directory / BOT
    clear_leftovers(home)
    for old in (home, directory / VALIDATION):
        shutil.rmtree(old, ignore_errors=True)
    try:
        return _steps(
            data, home, directory / VALIDATION, config, caps, limits, log, opponent, label
        )
    except SubmissionError as exc:
        if exc.status is None or exc.step != "build":  # a build that ran wrote its own lines
            _say(log, f"{exc.step}: {exc.message}")
            if exc.tail:
                _say(log, exc.tail)
        _say(log, f"failed at the {exc.step} step")
        shutil.rmtree(home, ignore_errors=True)
        raise


def _steps(
    data: bytes,
    home: Path,
    validation: Path,
    config: TournamentConfig,
    caps: ArchiveCaps,
    limits: BuildLimits,
    log: Path,
    opponent: BotSpec,
    label: str,
) -> Accepted:
    files = unpack(data, home, caps)
    count = f"{len(files)} file" + ("" if len(files) == 1 else "s")
    _say(log, f"unpack: {count} from an archive of {size_text(len(data))}")
    manifest = read_manifest(home)
    _say(log, f"manifest: {manifest.language}, run {manifest.run_text!r}")
    if manifest.build is not None:
        build(home, manifest.build, limits, config.sandbox, log)
    env = tuple(image_environment().items())
    spec = manifest.spec(home, label, env)
    _say(log, f"validate: one match against {opponent.name}")
    result = validate(spec, config, validation, opponent)
    _say(log, f"validate: no fault ({result.summary})")
    _say(log, "accepted")
    return Accepted(
        manifest.language,
        manifest.run_text,
        manifest.run,
        home,
        manifest.transport,
        env,
        result.summary,
    )


def limits_of(season: Season) -> BuildLimits:
    """A season's ``[ladder.build]`` limits."""
    given = season.ladder.build
    default = BuildLimits()
    return BuildLimits(
        time_s=float(given.get("time", default.time_s)),
        memory_bytes=int(given.get("memory", default.memory_bytes)),
        disk_bytes=int(given.get("disk", default.disk_bytes)),
        pids=int(given.get("pids", default.pids)),
    )


def process_version(data: bytes, directory: Path, season: Season, log: Path) -> Accepted:
    """:func:`process` with a season's settings, against its validation house bot."""
    opponent = season.config.bot(season.validation).spec()
    label = f"{directory.parent.name}@{directory.name}"  # versions/<entrant>/<n>
    return process(
        data,
        directory,
        season.config,
        season.caps,
        limits_of(season),
        log,
        opponent,
        label,
    )
