"""Every option of every ``ginref`` command, each declared once: its flags, type, default, help,
and where its value goes, the key of the tournament file that it sets or none (a plain argument
of the command).

A command names the options it uses (:func:`ginref.option_spec.with_options`): click's options
are made from this table, and the command receives their values as one
:class:`~ginref.option_spec.Given`, which sets the keyed ones in a tournament's config the way
the file sets them: the command line beats the file, which beats the default. Where a
command's option differs (another help text, a default of its own, no key), the difference is
a variant of the option, written in its entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ginref.option_spec import Option, Variant
from referee.bots.limits import LIMIT_KEYS
from referee.bots.sandbox import SANDBOX_MODES
from referee.engine.rules import PROFILES, parse_assignments
from referee.settings import (
    DEFAULT_BANK,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MOVE_TIME,
    DEFAULT_RETRIES,
)
from tournaments.file.config import FORMATS
from tournaments.file.config import PROCESSES as PROCESS_KINDS
from tournaments.live import DEFAULT_PORT
from tournaments.results.sprt_settings import MODELS, SprtSettings


def _each(commands: tuple[str, ...], variant: Variant) -> dict[str, Variant]:
    """The same variant on each of ``commands``."""
    return dict.fromkeys(commands, variant)


# The commands that read a tournament file: an option there that the file also sets has no
# default of its own (None: the file's value).
FROM_FILE = ("tournament", "serve")


def _file_default(help: str) -> dict[str, Variant]:
    """The variant of a referee option on the commands that read a tournament file."""
    text = help.removesuffix(".") + " (default: the file's)."
    return _each(FROM_FILE, Variant(default=None, show_default=False, help=text))


_DIRECTORY = click.Path(file_okay=False)
_FILE = click.Path(dir_okay=False)
_INPUT_FILE = click.Path(dir_okay=False, exists=False)
_SPRT = SprtSettings()
EXECUTORS = ("local", "ray")


def _resolved(path: str) -> str:
    """A path of the command line, relative to the working directory (the file's paths are
    relative to the file's directory), as the file's key takes it: absolute."""
    return str(Path(path).resolve())


# Shared by several commands.

SEED: Option[int | None] = Option(
    ("--seed",),
    key="seed",
    type=click.IntRange(0, 2**63 - 1),
    help="Master seed (every match seed derives from it).",
    variants={
        "match": Variant(
            key=None,
            default=None,
            help="Match seed (every deal derives from it). Default: a random one, printed.",
        ),
        "sprt": Variant(help="Master seed (every deal derives from it). Default: a secret key."),
        "serve": Variant(help="Master seed."),
        "deals make": Variant(
            key=None,
            help="Derive the set from this seed (the same set every time). Default: random seeds.",
        ),
    },
)
OUT: Option[str | None] = Option(
    ("--out",),
    key="out",
    type=_DIRECTORY,
    help="Tournament directory (journal, logs, standings). Default: the file's out, else "
    "runs/<name>. The same directory resumes the tournament.",
    variants={
        "match": Variant(
            key=None,
            default="ginref-logs",
            show_default=True,
            help="Directory for the replay log and the bots' output files.",
        ),
        "serve": Variant(
            help="Tournament directory (journal, logs, standings, tokens). Default: the file's "
            "out, else runs/<name>. The same directory resumes the tournament."
        ),
        "sprt": Variant(
            help="The test's directory (journal, logs, report). The same directory resumes the "
            "test. Default: runs/sprt/NEW-vs-OLD-HASH, from the two command lines.",
        ),
        "tokens": Variant(help="The tournament directory."),
        "deals make": Variant(
            key=None,
            type=_FILE,
            required=True,
            help="The file to write (not overwritten unless --force).",
        ),
    },
)
PROFILE: Option[str | None] = Option(
    ("--profile", "-p"),
    key="rules.profile",
    help=f"Rule profile: {', '.join(PROFILES)}.",
    variants={
        "match": Variant(key=None, default="standard", show_default=True),
        "sprt": Variant(default="standard"),
    },
)
SET: Option[tuple[str, ...]] = Option(
    ("--set",),
    key="rules.set",
    multiple=True,
    metavar="NAME=VALUE",
    convert=parse_assignments,
    help="Override a rule parameter (repeatable), on top of the file's [rules.set].",
    variants={
        "match": Variant(
            key=None,
            help="Override a rule parameter of the profile (repeatable), e.g. --set target=150.",
        ),
        "sprt": Variant(help="Override a rule parameter of the profile (repeatable)."),
    },
)
CONCURRENCY: Option[int | None] = Option(
    ("-j", "--concurrency"),
    key="concurrency",
    type=click.IntRange(0),
    default=None,
    help="Matches played at once (0: the number of cores). Default: the file's, else the "
    "number of cores.",
    variants={
        "sprt": Variant(
            default=0, help="Matches played at once (0, the default: the number of cores)."
        )
    },
)
# Not ``serve``'s: its remote bots' lobby lives in its one process.
WORKERS: Option[int | None] = Option(
    ("--workers",),
    key="workers",
    type=click.IntRange(0),
    default=None,
    help="Referee processes the matches are spread over (0: every match refereed in this "
    "process). Default: the file's, else the number of cores, never more than -j.",
)
DUPLICATE: Option[bool | None] = Option(
    ("--duplicate/--no-duplicate",),
    key="duplicate",
    default=None,
    help="Play every deal twice with the seats swapped and report paired totals.",
    variants={
        "sprt": Variant(
            default=True,
            show_default=True,
            help="The two matches of each pair share a deal, seats swapped, dealt by seat "
            "(deal_order = seat0_first, unless --set says otherwise), and pairs are counted "
            "(pentanomial); --no-duplicate: every match its own deal, matches counted "
            "(trinomial).",
        )
    },
)
DEALS: Option[str | None] = Option(
    ("--deals",),
    key="deals",
    type=_FILE,
    help="A deal set (ginref deals make): its seeds are played in order, deal by deal. "
    "Replaces the file's deals.",
    variants={
        "sprt": Variant(
            help="A deal set (ginref deals make): its seeds are played in order, one per pair "
            "with --duplicate, so that two tests play the same deals."
        ),
        "match": Variant(
            key=None,  # one match has no file; -n N's tournament is given it (ginref/cli.py)
            help="A deal set (ginref deals make, or a file of decks): the match plays its "
            "first deal; with -n N, match k plays deal k. Replaces --seed.",
        ),
        "verify": Variant(
            key=None,
            help="The deal set a match dealt from a file's decks was dealt from: each deck is "
            "checked against it (without it, such decks are left unchecked, and said so).",
        ),
    },
)
PROCESSES: Option[str | None] = Option(
    ("--processes",),
    key="processes",
    type=click.Choice(PROCESS_KINDS),
    help="fresh: new bot processes for every match; keep: one pair per pairing series.",
    variants={
        "sprt": Variant(
            default="fresh",
            show_default=True,
            help="fresh: new bot processes for every match; keep: one pair for a few matches.",
        )
    },
)
CHECK_BOTS: Option[bool | None] = Option(
    ("--check-bots/--no-check-bots",),
    key="check_bots",
    default=None,
    help="Before play, start each bot once and wait for its Hello; stop at once if one cannot "
    "(default: the file's check_bots, else on).",
    variants={
        "sprt": Variant(
            default=True,
            show_default=True,
            help="Before play, start each bot once and wait for its Hello.",
        )
    },
)

# The referee's clock, faults, limits and sandbox (match, sprt, tournament, serve).


def _referee(flag: str, key: str, help: str, **more: Any) -> Option[Any]:
    """A referee option with a default of its own, except where a tournament file gives it."""
    return Option((flag,), key=key, help=help, variants=_file_default(help), **more)


MOVE_TIME: Option[float | None] = _referee(
    "--move-time",
    "time.move_time",
    "Seconds each decision may take without touching the bank.",
    type=float,
    default=DEFAULT_MOVE_TIME,
    show_default=True,
)
BANK: Option[float | None] = _referee(
    "--bank",
    "time.bank",
    "Time bank per seat and match, in seconds (0: none).",
    type=float,
    default=DEFAULT_BANK,
    show_default=True,
)
CONNECT_TIMEOUT: Option[float | None] = _referee(
    "--connect-timeout",
    "time.connect_timeout",
    "Seconds a bot has to start and connect.",
    type=float,
    default=DEFAULT_CONNECT_TIMEOUT,
    show_default=True,
)
PONDER: Option[bool | None] = _referee(
    "--ponder/--no-ponder",
    "time.ponder",
    "Let bots think on their opponents' time; by default each bot is frozen between its turns, "
    "so that it takes no CPU from the one to act.",
    default=False,
)
RETRIES: Option[int | None] = _referee(
    "--retries",
    "faults.retries",
    "Illegal or malformed actions forgiven per seat and match (0: forfeit at once).",
    type=click.IntRange(0),
    default=DEFAULT_RETRIES,
    show_default=True,
)
LIMIT: Option[tuple[str, ...]] = Option(
    ("--limit",),
    key="limits",
    multiple=True,
    metavar="NAME=VALUE",
    convert=parse_assignments,
    help=f"A resource limit of each bot (repeatable; 0: none): {', '.join(LIMIT_KEYS)}.",
    variants=_each(
        FROM_FILE,
        Variant(
            help="A resource limit of each bot (repeatable; 0: none; on top of the file's "
            f"[limits]): {', '.join(LIMIT_KEYS)}."
        ),
    ),
)
SANDBOX: Option[str | None] = Option(
    ("--sandbox",),
    key="sandbox.mode",
    type=click.Choice(SANDBOX_MODES),
    default=None,
    help="bwrap (the default): each bot in a sandbox of its own (docs/security.md); none: "
    "unsandboxed, only for bots you trust.",
    variants={
        "replay": Variant(
            key=None,
            default="bwrap",
            show_default=True,
            help="How the --ask bot runs: in a sandbox of its own (it cannot read the log), or "
            "none.",
        )
    },
)
REFEREE = (MOVE_TIME, BANK, CONNECT_TIMEOUT, PONDER, RETRIES, LIMIT, SANDBOX)

# How a run shows itself (tournament, sprt, serve).

PROGRESS: Option[bool | None] = Option(
    ("--progress/--no-progress",),
    default=None,
    help="Live progress display. Default: on when stdout is a terminal; otherwise one line per "
    "match.",
)
QUIET: Option[bool] = Option(("-q", "--quiet"), is_flag=True, help="Print only the final report.")
SHOWING = (PROGRESS, QUIET)

# ginref match.

TCP: Option[tuple[str, ...]] = Option(
    ("--tcp",),
    multiple=True,
    type=click.Choice(["a", "b", "c", "d"]),
    help="Bot A, B, C or D reaches the referee over TCP, through a forwarder in its sandbox: "
    "for a gRPC library that cannot dial a Unix socket (Debian's grpc-java). Repeatable.",
)
BIND: Option[tuple[str, ...]] = Option(
    ("--bind",),
    key="sandbox.binds",
    multiple=True,
    type=click.Path(exists=True),
    metavar="PATH",
    convert=lambda paths: tuple(_resolved(p) for p in paths),
    help="Show every bot this file or directory too, read-only, at its own path in the "
    "sandbox (repeatable), e.g. a policy's weights; a tournament file's [sandbox] binds.",
)

# ginref tournament.

FORMAT: Option[str | None] = Option(
    ("--format",), key="format", type=click.Choice(FORMATS), help="Tournament format."
)
MATCHES: Option[int | None] = Option(
    ("-n", "--matches"),
    key="matches",
    type=click.IntRange(1),
    help="Matches per pairing and round (even with --duplicate); with three players or "
    "partnerships, sets of seatings per group and round.",
    variants={
        "match": Variant(
            key=None,
            default=1,
            show_default=True,
            help="Matches to play. More than one: the two bots' tournament, seats alternating "
            "from one match to the next, journaled in --out (the same command resumes it; "
            "default --out: ginref-logs/A-vs-B-HASH), and its standings at the end.",
        ),
        "ladder final": Variant(
            key=None,
            default=None,
            help="Matches per pairing of the final round robin. Default: the season's.",
        ),
    },
)
ROUNDS: Option[int | None] = Option(
    ("--rounds",), key="rounds", type=click.IntRange(1), help="Cycles through the pairings."
)
CHALLENGER: Option[tuple[str, ...]] = Option(
    ("--challenger",),
    key="challengers",
    multiple=True,
    metavar="NAME",
    help="A gauntlet challenger (repeatable); replaces the file's list.",
)
RECOVER: Option[bool | None] = Option(
    ("--recover/--no-recover",),
    key="recover",
    default=None,
    help="With kept processes, restart the bots after one crashes instead of forfeiting the "
    "rest of the series.",
)
EXECUTOR: Option[str] = Option(
    ("--executor",),
    type=click.Choice(EXECUTORS),
    default="local",
    show_default=True,
    help="local: every match refereed by this process; ray: each job a task on a Ray "
    "cluster's nodes (pip install 'ginref[ray]', docs/ray.md).",
)
RAY_ADDRESS: Option[str | None] = Option(
    ("--address",),
    metavar="ADDR",
    help="With --executor ray: the cluster, as ray.init takes it (HOST:PORT of its head, or "
    "auto). Default: RAY_ADDRESS, else a cluster running on this machine, else a local one "
    "started for the run (docs/ray.md).",
)


# ginref standings and ginref ratings.

REPORT_FORMAT: Option[str] = Option(
    ("--format",),
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="table: the report ginref tournament prints; csv or json: the files' contents.",
    variants={
        "ratings": Variant(
            help="table: a report like the standings'; csv: one row per bot; json: everything."
        )
    },
)

# ginref sprt: the [sprt] table's keys, each with the default of the file's, and the bots' names.


def _sprt_key(name: str, type: Any, help: str) -> Option[Any]:
    """The option that sets ``name`` of the [sprt] table (``--max-matches``: max_matches)."""
    flag = "--" + name.replace("_", "-")
    default = getattr(_SPRT, name)
    return Option(
        (flag,), key=f"sprt.{name}", type=type, default=default, show_default=True, help=help
    )


ELO0: Option[float] = _sprt_key("elo0", float, "Elo difference of H0.")
ELO1: Option[float] = _sprt_key("elo1", float, "Elo difference of H1.")
ALPHA: Option[float] = _sprt_key("alpha", float, "False positive rate (H1 wrongly).")
BETA: Option[float] = _sprt_key("beta", float, "False negative rate (H0 wrongly).")
MODEL: Option[str] = _sprt_key(
    "model",
    click.Choice(MODELS),
    "What elo0 and elo1 mean: logistic Elo (the standings' scale) or normalized Elo.",
)
MAX_MATCHES: Option[int] = _sprt_key(
    "max_matches",
    click.IntRange(2),
    "The most matches the test plays (even); inconclusive if no bound is crossed by then. "
    "A larger one resumes an undecided test and plays on.",
)
NEW_NAME: Option[str] = Option(
    ("--new-name",), default="new", show_default=True, help="The new bot's name."
)
OLD_NAME: Option[str] = Option(
    ("--old-name",), default="old", show_default=True, help="The old bot's name."
)

FRESH: Option[bool] = Option(
    ("--fresh",),
    is_flag=True,
    default=False,
    help="Remove the test in the --out directory and start it over (after the bots changed).",
)

# ginref serve: the [serve] table's keys.

SERVE_ADDRESS: Option[str | None] = Option(
    ("--address",),
    key="serve.address",
    metavar="HOST:PORT",
    help="Where remote bots connect (default: the file's [serve] address, else "
    "127.0.0.1:50051; port 0: any free port, printed at start).",
)
CERT: Option[str | None] = Option(
    ("--cert",),
    key="serve.cert",
    type=_INPUT_FILE,
    convert=_resolved,
    help="The referee's TLS certificate chain (PEM).",
)
KEY: Option[str | None] = Option(
    ("--key",),
    key="serve.key",
    type=_INPUT_FILE,
    convert=_resolved,
    help="The private key of --cert (PEM).",
)
CLIENT_CA: Option[str | None] = Option(
    ("--client-ca",),
    key="serve.client_ca",
    type=_INPUT_FILE,
    convert=_resolved,
    help="Mutual TLS: require client certificates signed by this CA (PEM).",
)
START: Option[str | None] = Option(
    ("--start",),
    key="serve.start",
    metavar="WHEN",
    help="When play starts: now; all (once every remote bot is connected); HH:MM (today, "
    "local time) or a date and time such as 2026-12-03T14:00; a time gone by is now. The "
    "absence wait counts from then (default: the file's, else now).",
)
ABSENT_WAIT: Option[float | None] = Option(
    ("--absent-wait",),
    key="serve.absent_wait",
    type=click.FloatRange(0),
    help="Seconds a remote bot may be absent when its match is due before it forfeits that "
    "match, and its later ones at once until it connects again (default: the file's, else "
    "300).",
)
LIVE: Option[str | None] = Option(
    ("--live",),
    key="serve.live",
    metavar="HOST:PORT",
    help="Address of the live page for spectators ('off': none; default: the file's, else "
    "127.0.0.1:8080).",
)

# ginref deals make.

FORCE: Option[bool] = Option(("--force",), is_flag=True, help="Overwrite FILE if it exists.")

# ginref replay and ginref verify.

SEAT: Option[int | None] = Option(
    ("--seat",),
    type=click.IntRange(0, 3),
    help="Show only what this seat saw, as the referee sent it: its cards and requests, the "
    "opponent's public moves, its faults, the results (seats 0 to 2 with three players, 0 to "
    "3 with four).",
)
HAND: Option[int | None] = Option(
    ("--hand",), type=click.IntRange(1), metavar="K", help="Start at hand K."
)
STEP: Option[bool] = Option(
    ("--step",),
    is_flag=True,
    help="Wait for a key between events (c: run to the end, q: quit).",
)
COLOR: Option[bool | None] = Option(
    ("--color/--no-color",),
    default=None,
    help="Red suits in red. Default: when the output is a terminal.",
)
ASCII: Option[bool] = Option(
    ("--ascii",), is_flag=True, help="Suits as letters (TD) instead of symbols (10♦)."
)
ASK: Option[str | None] = Option(
    ("--ask",),
    metavar="BOT_COMMAND",
    help="Start this bot, put it into the position of --at (the acting seat's view, as the "
    "referee sends it) and show the action it takes and how long it took.",
)
AT: Option[int | None] = Option(
    ("--at",),
    type=int,
    metavar="EVENT",
    help="An event: the log line number of a decision, as ginref replay shows it in its left "
    "column. Alone, prints that position; with --ask, asks the bot.",
)
HTML: Option[str | None] = Option(
    ("--html",),
    type=_FILE,
    metavar="OUT.html",
    help="Write the match as one self-contained web page (cards, discard pile, showdowns, "
    "controls to step forwards and back) instead of printing it.",
)
VERBOSE: Option[bool] = Option(
    ("-v", "--verbose"), is_flag=True, help="List every difference, not only the first."
)

# ginref live.

HOST: Option[str] = Option(
    ("--host",), default="127.0.0.1", show_default=True, help="Address to listen on."
)
PORT: Option[int] = Option(
    ("--port",),
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port to listen on (0: any free one, printed).",
)
INTERVAL: Option[float] = Option(
    ("--interval",),
    type=click.FloatRange(0.05, 60.0),
    default=1.0,
    show_default=True,
    help="Seconds between two looks at the tournament's journal and logs.",
)

# ginref ladder.

ENTRANT: Option[str] = Option(
    ("--entrant",), required=True, help="The entrant submitting (as the organiser named it)."
)
TOKEN: Option[str | None] = Option(
    ("--token",),
    default=None,
    help="The entrant's token (default: the GINREF_TOKEN environment variable).",
)
WEB: Option[str | None] = Option(
    ("--web",),
    default=None,
    metavar="HOST:PORT",
    help="Also serve the season's web app (leaderboard, uploads, replays) at HOST:PORT.",
)
TOP: Option[int | None] = Option(
    ("--top",),
    type=click.IntRange(0),
    default=None,
    help="Only the top N of the leaderboard (0: every entrant). Default: the season's.",
)
AGAIN: Option[bool] = Option(
    ("--again",), is_flag=True, help="Issue a new token to an entrant who has one (the old stops)."
)

# The whole table, in the order above (the tests walk it).
TABLE: tuple[Option[Any], ...] = tuple(
    value for value in list(globals().values()) if isinstance(value, Option)
)
