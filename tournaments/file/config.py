"""Tournament files: TOML in, a validated :class:`TournamentConfig` out (docs/tournaments.md).

A file declares the bots, the rules, the format, the master seed, concurrency, time controls,
the fault policy and the bots' resource limits; the command line overrides any of them
(:meth:`TournamentConfig.with_keys`).
Every mistake is reported as :class:`~tournaments.file.toml_lines.TournamentFileError` naming the
file, the line and the key (:mod:`tournaments.file.toml_lines`).
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from referee.bots.limits import LIMIT_KEYS, Limits
from referee.bots.sandbox import SandboxMode, SandboxSettings
from referee.engine.errors import RulesError
from referee.engine.rules import (
    PARAMETERS,
    PROFILES,
    Rules,
    unknown_profile_message,
)
from referee.errors import ConfigError, GinRefError
from referee.settings import (
    DEFAULT_BANK,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_EXIT_GRACE,
    DEFAULT_KILL_GRACE,
    DEFAULT_MOVE_TIME,
    DEFAULT_RETRIES,
    RefereeOptions,
)
from tournaments.file.bots import BotEntry, parse_bot, parse_sandbox
from tournaments.file.deals import SHARED_SET, DealSet, load_deals
from tournaments.file.serve import SERVE_KEYS, ServeSettings, parse_serve
from tournaments.file.sprt import SPRT_KEYS, parse_sprt
from tournaments.file.toml_lines import Reader, TournamentFileError
from tournaments.results.sprt_settings import SprtSettings
from tournaments.teams import (
    TeamEntry,
    challenger_problem,
    field_problem,
    parse_teams,
    self_teams,
)

FORMATS = ("round-robin", "double-round-robin", "gauntlet", "sprt")
PROCESSES = ("fresh", "keep")
DEFAULT_FILE = "default.toml"
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_MAX_SEED = 2**63 - 1


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A whole tournament; build with :func:`load_file` or :func:`load_default`."""

    name: str
    bots: tuple[BotEntry, ...]
    profile: str = "standard"
    rule_overrides: tuple[tuple[str, Any], ...] = ()
    format: str = "round-robin"
    matches: int = 2  # per pairing and round (cutechess -games)
    rounds: int = 1  # cycles through the pairings (cutechess -rounds)
    duplicate: bool = False
    challengers: tuple[str, ...] = ()
    seed: int | None = None  # master seed; None: drawn at the first run, kept in the journal
    concurrency: int | None = None  # None: the number of cores
    workers: int | None = None  # referee processes; None: the cores (at most -j); 0: in-process
    processes: str = "fresh"
    recover: bool = True
    move_time: float = DEFAULT_MOVE_TIME
    bank: float = DEFAULT_BANK
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    ponder: bool = False  # bots may think on their opponents' time (else frozen)
    retries: int = DEFAULT_RETRIES
    exit_grace: float = DEFAULT_EXIT_GRACE
    kill_grace: float = DEFAULT_KILL_GRACE
    limits: Limits = dataclasses.field(default_factory=Limits)
    sandbox: SandboxSettings = dataclasses.field(default_factory=SandboxSettings)
    out: str | None = None  # None: runs/<name>
    source: str = "<default>"
    check_bots: bool = True  # start each bot once, before play, and require its Hello
    teams: tuple[TeamEntry, ...] = ()  # [[teams]] (partnerships); none: each bot with itself
    serve: ServeSettings = dataclasses.field(default_factory=ServeSettings)  # ginref serve
    sprt: SprtSettings = dataclasses.field(default_factory=SprtSettings)  # format = "sprt"
    deals: DealSet | None = None  # a deal set's seeds, played in order; None: the deal key's
    shared_deals: bool | None = None  # game k of all pairings on one deal (schedule.shares_deals)

    @property
    def local_bots(self) -> tuple[BotEntry, ...]:
        """The bots the referee starts itself (not ``remote``)."""
        return tuple(b for b in self.bots if not b.remote)

    @property
    def rules(self) -> Rules:
        """The profile with the overrides applied (validated); a combination that one more
        override would allow says which (the file's were checked where they stand)."""
        try:
            return Rules.profile(self.profile, **dict(self.rule_overrides))
        except RulesError as exc:
            if not exc.needs:
                raise
            raise RulesError(f"{exc}: add {exc.fix(option=True)}") from None

    @property
    def players(self) -> int:
        """Seats at each match: 2, 3 (R10.1) or 4 in two partnerships (R10.2)."""
        return self.rules.players

    @property
    def team_entries(self) -> tuple[TeamEntry, ...]:
        """The partnerships: the file's teams, or each bot with itself (none below 4 players)."""
        if self.players != 4:
            return ()
        return self.teams or self_teams([b.name for b in self.bots])

    @property
    def entrants(self) -> list[str]:
        """Who the standings rank and the format pairs: the bots, or with partnerships the
        teams, in the file's order."""
        if self.players == 4:
            return [t.name for t in self.team_entries]
        return [b.name for b in self.bots]

    @property
    def options(self) -> RefereeOptions:
        """The referee's clock, fault policy and process handling."""
        return RefereeOptions(
            move_time=self.move_time,
            bank=self.bank,
            connect_timeout=self.connect_timeout,
            ponder=self.ponder,
            retries=self.retries,
            exit_grace=self.exit_grace,
            kill_grace=self.kill_grace,
            limits=self.limits,
            sandbox=self.sandbox,
        ).validate()

    @property
    def out_dir(self) -> Path:
        """Where the journal, the logs and the standings go."""
        return Path(self.out) if self.out else Path("runs") / self.name

    @property
    def inputs(self) -> list[Path]:
        """The tournament's file and its deal set: what no bot may see, with its directory."""
        paths = [Path(self.source)] if Path(self.source).is_file() else []
        return paths + ([Path(self.deals.path)] if self.deals is not None else [])

    @property
    def protected(self) -> list[Path]:
        """What no bot may see: the tournament's directory and :attr:`inputs`."""
        return [self.out_dir, *self.inputs]

    def bot(self, name: str) -> BotEntry:
        """The bot called ``name``."""
        for entry in self.bots:
            if entry.name == name:
                return entry
        raise ConfigError(f"no bot is called {name!r}")

    def with_changes(self, **changes: Any) -> TournamentConfig:
        """A copy with fields replaced (command-line overrides), validated again."""
        return dataclasses.replace(self, **changes).validate()

    def with_keys(self, values: Mapping[str, Any]) -> TournamentConfig:
        """A copy with values set by their keys in the file (the command line's options, see
        :func:`key_changes`), validated again."""
        return self.with_changes(**key_changes(self, values))

    def validate(self) -> TournamentConfig:
        """Check what the loader cannot check field by field; return ``self``."""
        names = [b.name for b in self.bots]
        if len(self.bots) < 2:
            raise ConfigError(f"a tournament needs at least two bots, got {len(self.bots)}")
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ConfigError(f"bot names must be unique: {', '.join(dup)}")
        if self.format not in FORMATS:
            raise ConfigError(f"format {self.format!r} is not one of: {', '.join(FORMATS)}")
        if self.processes not in PROCESSES:
            raise ConfigError(f"processes {self.processes!r} is not one of: fresh, keep")
        if self.matches < 1 or self.rounds < 1:
            raise ConfigError("matches and rounds must be at least 1")
        rules = self.rules
        if self.duplicate and self.matches % 2 and rules.players == 2:
            raise ConfigError(
                f"duplicate deals play every deal twice, so matches per pairing must be even, "
                f"got {self.matches}"
            )
        problem = field_problem(rules.players, names, self.team_entries, bool(self.teams))
        if problem:
            raise ConfigError(problem)
        problem = challenger_problem(rules.players, self.entrants, self.challengers, self.format)
        if problem:
            raise ConfigError(problem)
        if self.format == "sprt":
            problem = self._sprt_problem()
            if problem:
                raise ConfigError(problem)
        if self.concurrency is not None and self.concurrency < 1:
            raise ConfigError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.workers is not None and self.workers < 0:
            raise ConfigError(f"workers must be 0 (in-process) or more, got {self.workers}")
        if self.seed is not None and not 0 <= self.seed <= _MAX_SEED:
            raise ConfigError(f"seed must be between 0 and 2^63-1, got {self.seed}")
        if self.deals is not None and self.shared_deals is False:
            raise ConfigError(SHARED_SET)
        if self.deals is not None:
            self.deals.check_players(rules.players)  # a deal of decks names its first dealer
        self.options  # noqa: B018
        return self

    def _sprt_problem(self) -> str | None:
        """What keeps this tournament from being a sequential test, or None."""
        if self.players != 2 or len(self.bots) != 2:
            return (
                "format sprt tests one bot against another: it needs exactly two bots and two "
                f"players, got {len(self.bots)} bots and {self.players} players"
            )
        if self.rounds != 1 or self.challengers:
            return "format sprt plays up to [sprt] max_matches: rounds and challengers do not apply"
        return self.sprt.problem()

    def _rules_identity(self) -> dict[str, Any]:
        """The rules as the identity holds them: a parameter added since a journal was written
        is left out while it has its default, so that the journal still resumes."""
        rules = self.rules.to_dict()
        if rules["deal_order"] == "non_dealer_first":
            del rules["deal_order"]
        return rules

    def identity(self) -> dict[str, Any]:
        """What decides the schedule and every match: a resumed run must agree on all of it."""
        # Teams only where there are partnerships: a two-player journal keeps its identity.
        teams = {"teams": [t.to_dict() for t in self.team_entries]} if self.players == 4 else {}
        return {
            "bots": [b.to_dict() for b in self.bots],
            "rules": self._rules_identity(),
            "format": self.format,
            "matches": self.matches,
            "rounds": self.rounds,
            "duplicate": self.duplicate,
            "challengers": list(self.challengers),
            "seed": self.seed,
            "processes": self.processes,
            "recover": self.recover,
            # Pondering changes what a bot may do: a tournament with it is another one (and a
            # journal from before it keeps its identity).
            "time": {
                "move_time": self.move_time,
                "bank": self.bank,
                **({"ponder": True} if self.ponder else {}),
            },
            "faults": {"retries": self.retries},
            **teams,
            # Only for a test: older journals keep their identity.
            **({"sprt": self.sprt.to_dict()} if self.format == "sprt" else {}),
            **({"deals": self.deals.identity()} if self.deals is not None else {}),
            **({} if self.deals is not None or self.shared_deals else {"shared_deals": False}),
        }

    def to_dict(self) -> dict[str, Any]:
        """Everything, JSON-ready (kept in the journal)."""
        return {
            "name": self.name,
            **self.identity(),
            "concurrency": self.concurrency,
            "workers": self.workers,
            "connect_timeout": self.connect_timeout,
            "exit_grace": self.exit_grace,
            "kill_grace": self.kill_grace,
            "limits": self.limits.to_dict(),
            "sandbox": {
                "mode": self.sandbox.mode,
                "uid_base": self.sandbox.uid_base,
                "uid_count": self.sandbox.uid_count,
                "tmp_mb": self.sandbox.tmp_bytes / (1 << 20),
                "binds": list(self.sandbox.binds),
            },
            "out": str(self.out_dir),
            "source": self.source,
            "check_bots": self.check_bots,
            **({"deals_file": self.deals.path} if self.deals is not None else {}),
        }


_TOP_KEYS = (
    "name",
    "format",
    "matches",
    "rounds",
    "duplicate",
    "challengers",
    "seed",
    "concurrency",
    "workers",
    "processes",
    "recover",
    "check_bots",
    "out",
    "rules",
    "time",
    "faults",
    "limits",
    "sandbox",
    "bots",
    "teams",
    "serve",
    "sprt",
    "deals",
    "shared_deals",
)
_TABLES = ("rules", "time", "faults", "limits", "sandbox", "bots", "teams", "serve", "sprt")
RULES_KEYS = ("profile", "players", "set")
TIME_KEYS = ("move_time", "bank", "connect_timeout", "ponder")
FAULT_KEYS = ("retries", "exit_grace", "kill_grace")

# The file's keys that a command line may set too (ginref/option_table.py names each option's
# key), with the TournamentConfig field each one sets. Built from the keys the parser reads, so
# that an option cannot name a key the file does not have.
SETTABLE_KEYS: dict[str, str] = {
    **{key: key for key in _TOP_KEYS if key not in _TABLES},
    "rules.profile": "profile",
    "rules.set": "rule_overrides",
    **{f"time.{key}": key for key in TIME_KEYS},
    **{f"faults.{key}": key for key in FAULT_KEYS},
    "limits": "limits",
    "sandbox.mode": "sandbox",
    "sandbox.binds": "sandbox",
    **{f"serve.{key}": "serve" for key in SERVE_KEYS},
    **{f"sprt.{key}": "sprt" for key in SPRT_KEYS},
}


def _with_fix(exc: GinRefError) -> str:
    """The error, and what to write in the file where one more parameter would lift it."""
    fix = exc.fix(option=False) if isinstance(exc, RulesError) else ""
    return f"{exc}: add {fix}" if fix else str(exc)


def key_changes(
    config: TournamentConfig | RefereeOptions, values: Mapping[str, Any]
) -> dict[str, Any]:
    """The fields that ``values``, by key of the file (``seed``, ``time.move_time``,
    ``sandbox.mode``, ``serve.cert``...; None: keep ``config``'s), change in ``config`` (or in
    the referee's options alone, whose fields have the same names). ``rules.set`` and
    ``limits``, mappings of names to values, add to ``config``'s; ``deals`` is a deal set's
    path; ``concurrency = 0`` is the number of cores, as in the file."""
    changes: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            continue
        field = SETTABLE_KEYS[key]
        changes[field] = _set_key(key, changes.get(field, getattr(config, field)), value)
    return changes


def _set_key(key: str, current: Any, value: Any) -> Any:
    """The field that ``current`` becomes when the key ``key`` is set to ``value``."""
    table, _, name = key.rpartition(".")
    if key == "rules.set":
        return tuple({**dict(current), **value}.items())
    if key == "limits":
        return current.with_keys(value)
    if key == "deals":
        return load_deals(value)
    if key == "concurrency":
        return value or None
    if key == "challengers":
        return tuple(value)
    if key == "sandbox.binds":
        return dataclasses.replace(current, binds=(*current.binds, *value))
    if table == "sandbox":
        mode: SandboxMode = "none" if value == "none" else "bwrap"
        return dataclasses.replace(current, mode=mode)
    if table in ("serve", "sprt"):
        return dataclasses.replace(current, **{name: value})
    return value


def parse_text(
    text: str, source: str = "<text>", base: Path | None = None, *, other: str | None = None
) -> TournamentConfig:
    """Parse the text of a tournament file; ``base`` resolves the bots' relative ``cwd``.
    ``other``: a table the caller reads itself (a season's ``[ladder]``), left alone here."""
    base = base or Path.cwd()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        line = f":{found.group(1)}" if found else ""
        raise TournamentFileError(f"{source}{line}: not valid TOML: {message}") from None
    r = Reader(source, text, base)
    data.pop(other or "", None)
    r.check_keys(data, _TOP_KEYS, ())
    fields: dict[str, Any] = {"source": source}

    fields["name"] = r.get(data, "name", str, (), "a string") if "name" in data else "tournament"
    if not _NAME.match(fields["name"]):
        raise r.error(("name",), "use 1 to 40 letters, digits, '-' or '_'")
    if "format" in data:
        value = r.get(data, "format", str, (), "a string")
        if value not in FORMATS:
            raise r.error(("format",), f"{value!r} is not one of: {', '.join(FORMATS)}")
        fields["format"] = value
    for key in ("matches", "rounds"):
        if key in data:
            value = r.get(data, key, int, (), "a whole number")
            if value < 1:
                raise r.error((key,), f"must be at least 1, got {value}")
            fields[key] = value
    for key in ("duplicate", "shared_deals", "recover", "check_bots"):
        if key in data:
            fields[key] = r.get(data, key, bool, (), "true or false")
    if "seed" in data:
        value = r.get(data, "seed", int, (), "a whole number")
        if not 0 <= value <= _MAX_SEED:
            raise r.error(("seed",), f"must be between 0 and 2^63-1, got {value}")
        fields["seed"] = value
    if "concurrency" in data:
        value = r.get(data, "concurrency", int, (), "a whole number")
        if value < 0:
            raise r.error(("concurrency",), f"must be 0 (the number of cores) or more, got {value}")
        fields["concurrency"] = value or None
    if "workers" in data:
        value = r.get(data, "workers", int, (), "a whole number")
        if value < 0:
            raise r.error(("workers",), f"must be 0 (in-process) or more, got {value}")
        fields["workers"] = value
    if "processes" in data:
        value = r.get(data, "processes", str, (), "a string")
        if value not in PROCESSES:
            raise r.error(("processes",), f"{value!r} is not one of: fresh, keep")
        fields["processes"] = value
    if "out" in data:
        fields["out"] = r.get(data, "out", str, (), "a directory path")
    if "deals" in data:
        text = r.get(data, "deals", str, (), "a file path")
        if not (r.base / text).is_file():
            raise r.error(("deals",), f"{text!r} is not a file ({(r.base / text).resolve()})")
        fields["deals"] = load_deals(r.base / text)  # a mistake in it names its own line
    if "challengers" in data:
        value = r.get(data, "challengers", list, (), "a list of bot names")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise r.error(("challengers", i), f"expected a bot name, got {item!r}")
        fields["challengers"] = tuple(value)

    players_path: tuple[str | int, ...] | None = None
    if "rules" in data:
        rules = r.get(data, "rules", dict, (), "a table")
        for key in rules:
            if key in PARAMETERS and key != "players":
                raise r.error(("rules", key), f"a rule parameter goes in [rules.set]: {key} = ...")
        r.check_keys(rules, RULES_KEYS, ("rules",))
        if "profile" in rules:
            value = r.get(rules, "profile", str, ("rules",), "a profile name")
            if value not in PROFILES:
                raise r.error(("rules", "profile"), unknown_profile_message(value))
            fields["profile"] = value
        profile = fields.get("profile", "standard")
        table = (
            r.get(rules, "set", dict, ("rules",), "a table of rule parameters")
            if ("set" in rules)
            else {}
        )
        # The number of players shapes the whole tournament, so it may stand in [rules] itself.
        if "players" in rules and "players" in table:
            raise r.error(("rules", "set", "players"), "given twice: here and in [rules]")
        for path in (("rules", "players"), ("rules", "set", "players")):
            holder = rules if len(path) == 2 else table
            if "players" in holder:
                players_path = path
                value = holder["players"]
                if len(path) == 2:  # a number here; [rules.set] takes text too, as ever
                    value = r.get(holder, "players", int, path[:-1], "2, 3 or 4")
                try:
                    Rules.profile(profile, players=value)
                except GinRefError as exc:
                    raise r.error(path, _with_fix(exc)) from None
        seats = {"players": rules.get("players", table.get("players", 2))}
        overrides = tuple(
            ([("players", rules["players"])] if "players" in rules else []) + list(table.items())
        )
        for key, value in table.items():
            try:
                Rules.profile(profile, **{**seats, key: value})
            except GinRefError as exc:
                raise r.error(("rules", "set", key), _with_fix(exc)) from None
        if overrides:
            fields["rule_overrides"] = overrides
    if "time" in data:
        table = r.get(data, "time", dict, (), "a table")
        r.check_keys(table, TIME_KEYS, ("time",))
        if "ponder" in table:
            fields["ponder"] = r.get(table, "ponder", bool, ("time",), "true or false")
        for key in table:
            if key == "ponder":
                continue
            value = r.get(table, key, float, ("time",), "a number of seconds")
            if value < 0 or (value == 0 and key != "bank"):
                raise r.error(("time", key), f"must be positive, got {value:g}")
            fields[key] = value
    if "faults" in data:
        table = r.get(data, "faults", dict, (), "a table")
        r.check_keys(table, FAULT_KEYS, ("faults",))
        if "retries" in table:
            value = r.get(table, "retries", int, ("faults",), "a whole number")
            if value < 0:
                raise r.error(("faults", "retries"), f"must not be negative, got {value}")
            fields["retries"] = value
        for key in ("exit_grace", "kill_grace"):
            if key in table:
                value = r.get(table, key, float, ("faults",), "a number of seconds")
                if value < 0:
                    raise r.error(("faults", key), f"must not be negative, got {value:g}")
                fields[key] = value

    if "limits" in data:
        table = r.get(data, "limits", dict, (), "a table")
        r.check_keys(table, tuple(LIMIT_KEYS), ("limits",))
        limits = Limits()
        for key in table:
            what = "a whole number" if key == "processes" else "a number"
            value = r.get(table, key, int if key == "processes" else float, ("limits",), what)
            try:
                limits = limits.with_keys({key: value})
            except GinRefError as exc:
                raise r.error(("limits", key), str(exc).removeprefix(f"limit {key}: ")) from None
        fields["limits"] = limits

    if "sandbox" in data:
        fields["sandbox"] = parse_sandbox(r, r.get(data, "sandbox", dict, (), "a table"))

    if "serve" in data:
        fields["serve"] = parse_serve(r, r.get(data, "serve", dict, (), "a table"))

    if "sprt" in data:
        if fields.get("format") != "sprt":
            raise r.error(("sprt",), 'the [sprt] table is for format = "sprt"')
        fields["sprt"] = parse_sprt(r, r.get(data, "sprt", dict, (), "a table"))

    if "bots" not in data:
        raise r.error((), "no bots: add a [[bots]] table for each bot")
    bots_value = data["bots"]
    if not isinstance(bots_value, list) or not all(isinstance(b, dict) for b in bots_value):
        raise r.error(("bots",), "expected [[bots]] tables")
    bots = [parse_bot(r, item, i) for i, item in enumerate(bots_value)]
    names = [b.name for b in bots]
    for i, bot in enumerate(bots):
        if names.index(bot.name) != i:
            raise r.error(("bots", i, "name"), f"another bot is already called {bot.name!r}")
    fields["bots"] = tuple(bots)
    players = Rules.profile(
        fields.get("profile", "standard"), **dict(fields.get("rule_overrides", ()))
    ).players
    if "teams" in data:
        fields["teams"] = parse_teams(r, data["teams"], names, players)
    teams = fields.get("teams") or (self_teams(names) if players == 4 else ())
    problem = field_problem(players, names, teams, "teams" in data)
    if problem:
        unused = next((i for i, b in enumerate(names) if f"bot {b!r} plays in no" in problem), None)
        if unused is not None:
            raise r.error(("bots", unused, "name"), problem)
        raise r.error(("teams", 0) if "teams" in data else players_path or (), problem)
    config = TournamentConfig(**fields)
    entrants = config.entrants
    for i, name in enumerate(fields.get("challengers", ())):
        if name not in entrants:
            what = "teams" if players == 4 else "bots"
            raise r.error(("challengers", i), f"{name!r} is not one of the {what}")

    try:
        return config.validate()
    except GinRefError as exc:
        message = str(exc)
        # Name the key the combination hangs on: the first of the candidates the file has.
        candidates = {
            "duplicate": ("duplicate", "matches"),
            "shared_deals": ("shared_deals",),
            "gauntlet": ("challengers", "format"),
            "sprt": ("rounds", "challengers", "format"),
        }
        for word, keys in candidates.items():
            present = [k for k in keys if k in data]
            if word in message and present:
                raise r.error((present[0],), message) from None
        raise TournamentFileError(f"{source}: {message}") from None


def load_file(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise TournamentFileError(f"cannot read the tournament file {str(p)!r}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise TournamentFileError(f"{p}: not UTF-8 text: {exc}") from None
    return parse_text(text, str(p), p.resolve().parent)


def default_text() -> str:
    """The embedded default tournament file (``tournaments/default.toml``)."""
    return resources.files("tournaments").joinpath(DEFAULT_FILE).read_text(encoding="utf-8")


def load_default() -> TournamentConfig:
    """The embedded default: a round robin of the sample bots under ``standard``."""
    return parse_text(default_text(), f"<embedded {DEFAULT_FILE}>")
