"""A sequential test as a tournament: the new bot (the file's first) against the old (its second).

``format = "sprt"`` schedules the most matches the test may play (``[sprt] max_matches``), in
pairs with the seats swapped (sharing a deal with ``duplicate``), and the runner plays them in
order with the journal as ever; :class:`SprtMonitor` is fed every journaled match and tells the
runner to stop once the test has decided. The test counts pairs (pentanomial) when the two
matches of a pair share a deal, matches (trinomial) otherwise, in the schedule's order
(:class:`~tournaments.results.sprt.SequentialTest`), so a run that resumes, or that played matches
in another order, reaches the same decision on the same unit.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from tournaments.file.bots import BotEntry
from tournaments.file.config import TournamentConfig
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import JOURNAL_FILE, Journal, open_journal
from tournaments.results.sprt import EloEstimate, SequentialTest
from tournaments.results.sprt_settings import SprtSettings
from tournaments.schedule import MatchSpec, build_schedule, deal_key, journaled_sharing

SPRT_JSON = "sprt.json"
FINGERPRINTS_JSON = "sprt-bots.json"
# What a fingerprint reads of a bot's files at most: past either bound the rest is known by
# path and size only, so that a bot beside a large data set is still quick to start.
MAX_FILES = 2000
MAX_BYTES = 64 << 20
# Written by the bots' runs, never their code: hashing them would make every rerun a new bot.
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache"})
# With kept processes, a series is cut into jobs of this many matches (pairs kept whole), so
# that the lanes play the schedule nearly in order.
CHUNK = 10


class SprtMonitor:
    """The test of a ``format = "sprt"`` tournament, fed its matches as they are journaled."""

    def __init__(self, config: TournamentConfig, schedule: Sequence[MatchSpec]) -> None:
        self.new = config.bots[0].name
        self.games = {spec.key: spec.game for spec in schedule}
        self.test = SequentialTest(config.sprt, paired=config.duplicate)

    def extend(self, records: Iterable[MatchRecord]) -> None:
        """Count finished matches (the journal's, when a run starts)."""
        self.test.extend((self.games[r.key], new_score(r, self.new)) for r in records)

    def add(self, record: MatchRecord) -> None:
        """Count a match that has just been journaled."""
        self.test.add(self.games[record.key], new_score(record, self.new))

    @property
    def finished(self) -> bool:
        """The test has decided, or has counted every match it may play."""
        return self.test.finished

    def note(self) -> str:
        """The progress display's word on the test: the LLR, its bounds, and the decision."""
        return llr_text(self.test) + (f", {decision_text(self.test)}" if self.finished else "")


def new_score(record: MatchRecord, new: str) -> float:
    """The new bot's score: 1 if it won, 0 if the old one did, ½ if nobody did (both seats
    forfeited included: neither showed itself the better)."""
    winner = record.winner_bot
    if winner is None:
        return 0.5
    return 1.0 if winner == new else 0.0


def llr_text(test: SequentialTest) -> str:
    """``LLR +1.23 (-2.94, +2.94)``."""
    s = test.settings
    return f"LLR {test.value:+.2f} ({s.lower:+.2f}, {s.upper:+.2f})"


def decision_text(test: SequentialTest) -> str:
    """What the test says so far, in a few words."""
    if test.decision == "H1":
        return "H1 accepted"
    if test.decision == "H0":
        return "H0 accepted"
    if test.finished:
        return "inconclusive at the maximum"
    return "running"


@dataclass(frozen=True, slots=True)
class SprtReport:
    """A test's outcome and figures, as the command prints them and ``sprt.json`` keeps them."""

    new: str
    old: str
    settings: SprtSettings
    paired: bool
    decision: str  # H0, H1, inconclusive, running
    llr: float
    units: int  # pairs or matches counted
    matches: int  # matches counted
    wins: int  # the new bot's, over the matches counted
    draws: int
    losses: int
    counts: tuple[int, ...]  # pentanomial (0, ½, 1, 1½, 2 points) or trinomial (L, D, W)
    estimate: EloEstimate | None
    beyond: int  # matches finished but not counted
    scheduled: int  # matches the test may play

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; an infinite Elo is written as null."""

        def finite(value: float | None) -> float | None:
            return None if value is None or not math.isfinite(value) else round(value, 4)

        e = self.estimate
        return {
            "new": self.new,
            "old": self.old,
            "settings": self.settings.to_dict(),
            "statistics": "pentanomial" if self.paired else "trinomial",
            "decision": self.decision,
            "llr": round(self.llr, 4),
            "lower_bound": round(self.settings.lower, 4),
            "upper_bound": round(self.settings.upper, 4),
            "units": self.units,
            "matches": self.matches,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "counts": list(self.counts),
            "score": None if e is None else round(e.score, 6),
            "elo": None if e is None else finite(e.elo),
            "elo_ci95": None if e is None else [finite(e.low), finite(e.high)],
            "nelo": None if e is None else finite(e.nelo),
            "nelo_error95": None if e is None else finite(e.nelo_error),
            "los": None if e is None else finite(e.los),
            "matches_not_counted": self.beyond,
            "matches_scheduled": self.scheduled,
        }


def report(test: SequentialTest, new: str, old: str) -> SprtReport:
    """The report of ``test`` as it stands."""
    counted = [test.results[g] for g in range(1, test.matches + 1)]
    decision = test.decision or ("inconclusive" if test.finished else "running")
    return SprtReport(
        new=new,
        old=old,
        settings=test.settings,
        paired=test.paired,
        decision=decision,
        llr=test.value,
        units=test.units,
        matches=test.matches,
        wins=counted.count(1.0),
        draws=counted.count(0.5),
        losses=counted.count(0.0),
        counts=tuple(test.counts),
        estimate=test.estimate(),
        beyond=test.beyond,
        scheduled=test.settings.max_matches,
    )


def journal_report(journal: Journal) -> SprtReport | None:
    """The test a journal records, or None if it is not a ``format = "sprt"`` tournament."""
    identity = journal.meta("identity") or {}
    if identity.get("format") != "sprt":
        return None
    settings = SprtSettings(**identity["sprt"])
    bots = journal.bot_names()
    games = {spec.key: spec.game for spec in journal.schedule()}
    test = SequentialTest(settings, paired=bool(identity.get("duplicate")))
    test.extend((games[r.key], new_score(r, bots[0])) for r in journal.records())
    return report(test, bots[0], bots[1])


def load_sprt(directory: Path) -> SprtReport | None:
    """The test of the tournament in ``directory`` (read only), or None if it is not one."""
    journal = open_journal(directory, create=False)
    try:
        return journal_report(journal) if journal.initialised else None
    finally:
        journal.close()


def write_report(directory: Path, result: SprtReport) -> Path:
    """Write ``sprt.json`` into ``directory``; its path."""
    path = directory / SPRT_JSON
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def _elo(value: float) -> str:
    # Rounded first, so that -0.04 reads +0.0 rather than -0.0.
    return (
        f"{round(value, 1) + 0.0:+.1f}"
        if math.isfinite(value)
        else ("+inf" if value > 0 else "-inf")
    )


def _counted(r: SprtReport) -> str:
    """What the units do not say: the matches in pairs, and that the maximum was reached."""
    notes = [f"{r.matches} matches"] if r.paired else []
    if r.decision == "inconclusive":
        notes.append(f"the maximum of {r.scheduled}" if r.paired else "the maximum")
    return f" ({', '.join(notes)})" if notes else ""


def format_report(r: SprtReport) -> str:
    """The test's outcome as fastchess prints it: the decision, the LLR with its bounds, the
    Elo difference with its interval, the nElo, the LOS, the matches and the counts."""
    s = r.settings
    statistics = "pairs, pentanomial" if r.paired else "matches, trinomial"
    unit = "pair" if r.paired else "match"
    units = f"{r.units} {unit}{'' if r.units == 1 else ('s' if r.paired else 'es')}"
    verdict = {
        "H1": f"H1 accepted: {r.new} is stronger than {r.old} by about elo1 or more",
        "H0": f"H0 accepted: {r.new} is not stronger than {r.old} by more than about elo0",
        "inconclusive": "inconclusive: no bound was crossed",
        "running": "no decision yet",
    }[r.decision]
    lines = [
        f"SPRT {r.new} v {r.old}: elo0 {s.elo0:g}, elo1 {s.elo1:g} ({s.model}), "
        f"alpha {s.alpha:g}, beta {s.beta:g}; {statistics}",
        f"{verdict} after {units}{_counted(r)}",
        f"LLR {r.llr:+.2f} ({fraction(r):.1f}%), bounds ({s.lower:+.2f}, {s.upper:+.2f})",
    ]
    e = r.estimate
    if e is not None and not math.isfinite(e.elo):
        what = "won" if e.elo > 0 else "lost"
        lines.append(f"Elo {_elo(e.elo)}: {r.new} {what} every match counted, no finite estimate")
    elif e is not None:
        los = "-" if e.los is None else f"{100 * e.los:.1f}%"
        half = f"+/- {e.error:.1f} " if math.isfinite(e.error) else ""
        lines.append(
            f"Elo {_elo(e.elo)} {half}[{_elo(e.low)}, {_elo(e.high)}], "
            f"nElo {_elo(e.nelo)} +/- {e.nelo_error:.1f}, LOS {los}"
        )
    total = r.wins + r.draws + r.losses
    points = r.wins + r.draws / 2
    share = f" ({100 * points / total:.1f}%)" if total else ""
    lines.append(
        f"Matches {total}: {r.new} {r.wins}-{r.draws}-{r.losses} (W-D-L), points {points:g}{share}"
    )
    if r.paired:
        lines.append("Pairs by points 0, 1/2, 1, 3/2, 2: " + ", ".join(map(str, r.counts)))
    if r.beyond:
        lines.append(
            f"Not counted: {r.beyond} finished match{'' if r.beyond == 1 else 'es'} after the "
            "decision (or after an unfinished one)"
        )
    return "\n".join(lines)


def fraction(r: SprtReport) -> float:
    """How far the LLR has gone to the bound it leans to, in percent (fastchess)."""
    bound = r.settings.upper if r.llr >= 0 else r.settings.lower
    return 100.0 * r.llr / bound


# --- the test's directory and what it tests -------------------------------------------------


def _stem(bot: BotEntry) -> str:
    """A readable word for a bot: the module (``-m``) or the first file its command names, else
    its program, without directories or extension."""
    argv = bot.command
    word = argv[0]
    if "-m" in argv[:-1]:
        word = argv[argv.index("-m") + 1].rsplit(".", 1)[-1]
    else:
        word = next((a for a in argv[1:] if _on_disk(bot, a) is not None), word)
    return re.sub(r"[^A-Za-z0-9_-]+", "_", Path(word).stem).strip("_")[:30] or "bot"


def default_out(new: BotEntry, old: BotEntry) -> Path:
    """``runs/sprt/<new>-vs-<old>-<hash>``: the directory of a test of this pair by default. The
    words say which bots; the hash of the two command lines keeps apart two pairs that differ
    only in their arguments (``--depth 3`` against ``--depth 4``), and the same pair always
    finds its own test again."""
    both = json.dumps([list(new.command), list(old.command)]).encode()
    tag = hashlib.sha256(both).hexdigest()[:8]
    return Path("runs") / "sprt" / f"{_stem(new)}-vs-{_stem(old)}-{tag}"


def _on_disk(bot: BotEntry, arg: str) -> Path | None:
    """The file or directory a command-line argument names, if it exists."""
    if arg.startswith("-") or not arg:
        return None
    path = Path(bot.cwd or ".") / arg
    try:
        return path if path.exists() else None
    except OSError:  # a name too long, say: not a file
        return None


def _module(bot: BotEntry) -> Path | None:
    """The file or package of ``python -m a.b``, relative to the bot's working directory."""
    argv = bot.command
    if "-m" not in argv[:-1]:
        return None
    base = Path(bot.cwd or ".") / argv[argv.index("-m") + 1].replace(".", "/")
    return next((p for p in (base.with_suffix(".py"), base) if p.exists()), None)


def _files(root: Path) -> Iterator[Path]:
    """The files under ``root`` (itself if it is one), in a fixed order."""
    if root.is_file():
        yield root
        return
    for path in sorted(root.iterdir()):
        if path.is_dir() and not path.is_symlink():
            if path.name not in SKIPPED_DIRS:
                yield from _files(path)
        elif path.is_file():
            yield path


def fingerprint(bot: BotEntry) -> str:
    """A hash of what the test runs as ``bot``: its command line and its files (those under its
    ``dir``, else those its command line names, ``python -m``'s module included), read up to
    :data:`MAX_FILES` files and :data:`MAX_BYTES` bytes."""
    digest = hashlib.sha256(json.dumps(list(bot.command)).encode())
    if bot.dirs:
        roots = [Path(d) for d in bot.dirs]
    else:
        named = [_on_disk(bot, a) for a in bot.command]
        roots = [p for p in (*named, _module(bot)) if p is not None]
    files = budget = 0
    for root in roots:
        for path in _files(root):
            size = path.stat().st_size
            digest.update(f"\0{path}\0{size}\0".encode())
            files, budget = files + 1, budget + size
            if files <= MAX_FILES and budget <= MAX_BYTES:
                digest.update(path.read_bytes())
    return digest.hexdigest()


def fingerprints(config: TournamentConfig) -> dict[str, str]:
    """Each bot's :func:`fingerprint`, by name."""
    return {bot.name: fingerprint(bot) for bot in config.bots}


def _stored_test(directory: Path) -> dict[str, Any] | None:
    """The identity of the test journaled in ``directory``, or None if none was started."""
    if not (directory / JOURNAL_FILE).is_file():
        return None
    journal = open_journal(directory, create=False)
    try:
        return journal.meta("identity") if journal.initialised else None
    finally:
        journal.close()


def start_afresh(directory: Path) -> None:
    """Remove the test in ``directory`` so that it starts over (``--fresh``); a directory that
    holds something other than a test is left alone and named."""
    if not directory.exists():
        return
    identity = _stored_test(directory)
    if identity is None or identity.get("format") != "sprt":
        raise ConfigError(f"{directory} holds no sequential test: not removed")
    shutil.rmtree(directory)


def check_fingerprints(directory: Path, config: TournamentConfig) -> None:
    """Keep the test's bots' fingerprints in ``directory``; raise :class:`ConfigError` if the
    test journaled there was played by bots that have changed since: its matches are another
    bot's, and counting on would mix them with this one's."""
    path = directory / FINGERPRINTS_JSON
    now = fingerprints(config)
    stored = _stored_test(directory)
    if stored is not None and stored.get("format") != "sprt":
        return  # another tournament's directory: the journal refuses it and says why
    if stored is not None and path.exists():
        before = json.loads(path.read_text(encoding="utf-8"))
        changed = [name for name, value in now.items() if before.get(name) != value]
        if changed:
            raise ConfigError(
                f"{' and '.join(changed)} changed since the test in {directory} was started "
                "(command or files): use --fresh to start it over, or another --out"
            )
        return
    # A new test, or one journaled before fingerprints were kept: these bots are its own.
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(now, indent=2) + "\n", encoding="utf-8")


# --- a larger or smaller maximum ------------------------------------------------------------


def resize(directory: Path, config: TournamentConfig) -> tuple[TournamentConfig, str | None]:
    """``config`` for the test journaled in ``directory`` when only ``--max-matches`` differs
    from the journal's: an undecided test takes the new maximum (its schedule grows or shrinks
    to it, as fishtest extends a test), a decided one keeps its own (its verdict stands), and a
    maximum below the matches already played is an error. Also a note for the user, or None.
    Any other difference is left to the journal's check, which names it."""
    stored = _stored_test(directory)
    if stored is None or stored.get("format") != "sprt":
        return config, None
    if config.seed is None and stored.get("seed") is not None:
        config = config.with_changes(seed=stored["seed"])  # as the runner resumes it
    config = journaled_sharing(config, stored)
    old, new = stored["sprt"]["max_matches"], config.sprt.max_matches
    same = json.loads(json.dumps(config.with_keys({"sprt.max_matches": old}).identity()))
    if new == old or same != stored:
        return config, None
    journal = open_journal(directory, create=False)
    try:
        games = {spec.key: spec.game for spec in journal.schedule()}
        played = max((games[k] for k in journal.finished_keys()), default=0)
        if new < played:
            raise ConfigError(
                f"--max-matches {new} is less than the {played} matches the test in "
                f"{directory} has played; give at least {played + played % 2}"
            )
        test = journal_report(journal)
        if test is not None and test.decision in ("H0", "H1"):
            note = f"the test has decided ({test.decision}): --max-matches {new} changes nothing"
            return config.with_keys({"sprt.max_matches": old}), note
        journal.upgrade()
        _set_maximum(journal, config, old)
    finally:
        journal.close()
    return config, f"the test's maximum is now {new} matches (it was {old})"


def _set_maximum(journal: Journal, config: TournamentConfig, old: int) -> None:
    """Rewrite the journal's identity and schedule for ``config``'s maximum. The matches added
    are those the schedule of the larger test has after the first ``old``: the same keys and
    seats, dealt from the master seed when there is one, else from a new secret key (the old
    one is kept nowhere), which is as good as any for matches no bot has seen."""
    new = config.sprt.max_matches
    added = build_schedule(config, deal_key(config.seed))[old:] if new > old else []
    journal.reschedule(config.identity(), config.to_dict(), min(old, new), added)
