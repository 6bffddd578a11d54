"""``ginref sprt``: is a new bot stronger than an old one? A sequential test, run as a tournament.

The two command lines become a ``format = "sprt"`` tournament of two bots (docs/testing-bots.md)
that is journaled and resumed like any other: the same command with the same ``--out`` goes on
where it stopped, and a test that has decided only prints its report again.
"""

from __future__ import annotations

import re
import shlex

import click

from ginref.options import confine, progress_options, referee_options, workers_option
from ginref.tournament_command import play_and_report
from referee.bots.limits import Limits
from referee.bots.sandbox import SandboxSettings
from referee.engine.rules import PROFILES, Rules, parse_assignments
from referee.errors import ConfigError, GinRefError, RulesError
from referee.settings import DEFAULT_EXIT_GRACE, DEFAULT_KILL_GRACE
from tournaments.file.bots import BotEntry
from tournaments.file.config import PROCESSES, TournamentConfig
from tournaments.file.deals import load_deals
from tournaments.results.sprt import DEFAULT_MAX_MATCHES, MODELS, SprtSettings

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
Overrides = tuple[tuple[str, object], ...]


def bot_entry(name: str, command: str) -> BotEntry:
    """A bot of the test from its command line (split as a shell would)."""
    if not _NAME.match(name):
        raise ConfigError(f"bot name {name!r}: use 1 to 40 letters, digits, '-' or '_'")
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        raise ConfigError(f"cannot parse the bot command {command!r}: {exc}") from None
    if not argv:
        raise ConfigError(f"the command of bot {name!r} is empty")
    return BotEntry(name, argv)


def paired_rules(profile: str, overrides: dict[str, str], duplicate: bool) -> Overrides:
    """The rule overrides of a test: with duplicate deals, ``deal_order = seat0_first`` unless
    the command line says otherwise or the rules cannot have it (eleven cards, R2.5), so that
    every hand of a pair is mirrored whoever deals it (docs/testing-bots.md measures it)."""
    given: dict[str, object] = dict(overrides)
    if duplicate and "deal_order" not in given:
        try:
            Rules.profile(profile, **given, deal_order="seat0_first")
            given["deal_order"] = "seat0_first"
        except RulesError:
            pass  # the file's rules are checked, and their mistakes named, as they are
    return tuple(given.items())


@click.command("sprt")
@click.argument("bot_new")
@click.argument("bot_old")
@click.option("--elo0", type=float, default=0.0, show_default=True, help="Elo difference of H0.")
@click.option("--elo1", type=float, default=10.0, show_default=True, help="Elo difference of H1.")
@click.option(
    "--alpha", type=float, default=0.05, show_default=True, help="False positive rate (H1 wrongly)."
)
@click.option(
    "--beta", type=float, default=0.05, show_default=True, help="False negative rate (H0 wrongly)."
)
@click.option(
    "--model",
    type=click.Choice(MODELS),
    default="logistic",
    show_default=True,
    help="What elo0 and elo1 mean: logistic Elo (the standings' scale) or normalized Elo.",
)
@click.option(
    "--max-matches",
    type=click.IntRange(2),
    default=DEFAULT_MAX_MATCHES,
    show_default=True,
    help="The most matches the test plays (even); inconclusive if no bound is crossed by then.",
)
@click.option(
    "--duplicate/--no-duplicate",
    default=True,
    show_default=True,
    help="The two matches of each pair share a deal, seats swapped, dealt by seat "
    "(deal_order = seat0_first, unless --set says otherwise), and pairs are counted "
    "(pentanomial); --no-duplicate: every match its own deal, matches counted (trinomial).",
)
@click.option("--new-name", default="new", show_default=True, help="The new bot's name.")
@click.option("--old-name", default="old", show_default=True, help="The old bot's name.")
@click.option("--profile", "-p", default="standard", help=f"Rule profile: {', '.join(PROFILES)}.")
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a rule parameter of the profile (repeatable).",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    help="Master seed (every deal derives from it). Default: a secret key.",
)
@click.option(
    "--deals",
    "deals_file",
    type=click.Path(dir_okay=False),
    help="A deal set (ginref deals make): its seeds are played in order, one per pair with "
    "--duplicate, so that two tests play the same deals.",
)
@click.option(
    "-j",
    "--concurrency",
    type=click.IntRange(0),
    default=0,
    help="Matches played at once (0, the default: the number of cores).",
)
@workers_option
@click.option(
    "--processes",
    type=click.Choice(PROCESSES),
    default="fresh",
    show_default=True,
    help="fresh: new bot processes for every match; keep: one pair for a few matches.",
)
@referee_options(tournament=False)
@click.option(
    "--check-bots/--no-check-bots",
    default=True,
    show_default=True,
    help="Before play, start each bot once and wait for its Hello.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="runs/sprt",
    show_default=True,
    help="The test's directory (journal, logs, report). The same directory resumes the test.",
)
@progress_options
def sprt_command(
    bot_new: str,
    bot_old: str,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    model: str,
    max_matches: int,
    duplicate: bool,
    new_name: str,
    old_name: str,
    profile: str,
    assignments: tuple[str, ...],
    seed: int | None,
    deals_file: str | None,
    concurrency: int,
    workers: int | None,
    processes: str,
    move_time: float,
    bank: float,
    connect_timeout: float,
    ponder: bool,
    retries: int,
    limit_items: tuple[str, ...],
    sandbox: str | None,
    check_bots: bool,
    out_dir: str,
    progress: bool | None,
    quiet: bool,
) -> None:
    """Test whether BOT_NEW is stronger than BOT_OLD: play pairs of matches until the
    log-likelihood ratio crosses a bound (H0: the Elo difference is elo0; H1: it is elo1) or
    --max-matches are played, then report the decision, the LLR, the Elo difference with its
    interval and the LOS.

    BOT_NEW and BOT_OLD are command lines, as for ginref match. Every match is journaled in
    the --out directory: Ctrl-C stops cleanly and the same command resumes. The report is
    also written to DIR/sprt.json. Exit status: 0 when the test is over (H0, H1, or
    inconclusive at the maximum), 1 when nothing could start, 130 when stopped.
    """
    try:
        if new_name == old_name:
            raise ConfigError(f"the two bots need different names, both are {new_name!r}")
        overrides = paired_rules(profile, parse_assignments(assignments), duplicate)
        config = TournamentConfig(
            name="sprt",
            bots=(bot_entry(new_name, bot_new), bot_entry(old_name, bot_old)),
            profile=profile,
            rule_overrides=overrides,
            format="sprt",
            duplicate=duplicate,
            seed=seed,
            deals=None if deals_file is None else load_deals(deals_file),
            concurrency=concurrency or None,
            workers=workers,
            processes=processes,
            move_time=move_time,
            bank=bank,
            connect_timeout=connect_timeout,
            ponder=ponder,
            retries=retries,
            exit_grace=DEFAULT_EXIT_GRACE,
            kill_grace=DEFAULT_KILL_GRACE,
            limits=Limits().with_keys(parse_assignments(limit_items)),
            sandbox=SandboxSettings(mode="none" if sandbox == "none" else "bwrap"),
            out=out_dir,
            source="<ginref sprt>",
            check_bots=check_bots,
            sprt=SprtSettings(
                elo0=elo0,
                elo1=elo1,
                alpha=alpha,
                beta=beta,
                model="normalized" if model == "normalized" else "logistic",
                max_matches=max_matches,
            ),
        ).validate()
        bots = [b.spec() for b in config.local_bots]
        confinement = confine(config.sandbox, config.protected, bots)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    play_and_report(config, confinement, progress, quiet)
