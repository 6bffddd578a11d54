"""``ginref sprt``: is a new bot stronger than an old one? A sequential test, run as a tournament.

The two command lines become a ``format = "sprt"`` tournament of two bots (docs/testing-bots.md)
that is journaled and resumed like any other: the same command with the same ``--out`` goes on
where it stopped, and a test that has decided only prints its report again.
"""

from __future__ import annotations

import re
import shlex

import click

from ginref.option_spec import Given, with_options
from ginref.option_table import (
    ALPHA,
    BETA,
    CHECK_BOTS,
    CONCURRENCY,
    DEALS,
    DUPLICATE,
    ELO0,
    ELO1,
    FRESH,
    MAX_MATCHES,
    MODEL,
    NEW_NAME,
    OLD_NAME,
    OUT,
    PROCESSES,
    PROFILE,
    REFEREE,
    SEED,
    SET,
    SHOWING,
    WORKERS,
)
from ginref.shared import confine
from ginref.tournament_command import play_and_report
from referee.bots.spec import expand_python
from referee.engine.rules import Rules
from referee.errors import ConfigError, GinRefError, RulesError
from tournaments.file.bots import BotEntry
from tournaments.file.config import TournamentConfig

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
Overrides = tuple[tuple[str, object], ...]


def bot_entry(name: str, command: str) -> BotEntry:
    """A bot of the test from its command line (split as a shell would)."""
    if not _NAME.match(name):
        raise ConfigError(f"bot name {name!r}: use 1 to 40 letters, digits, '-' or '_'")
    try:
        argv = expand_python(shlex.split(command))
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
@with_options(
    "sprt",
    ELO0,
    ELO1,
    ALPHA,
    BETA,
    MODEL,
    MAX_MATCHES,
    DUPLICATE,
    NEW_NAME,
    OLD_NAME,
    PROFILE,
    SET,
    SEED,
    DEALS,
    CONCURRENCY,
    WORKERS,
    PROCESSES,
    *REFEREE,
    CHECK_BOTS,
    OUT,
    FRESH,
    *SHOWING,
)
def sprt_command(bot_new: str, bot_old: str, given: Given) -> None:
    """Test whether BOT_NEW is stronger than BOT_OLD: play pairs of matches until the
    log-likelihood ratio crosses a bound (H0: the Elo difference is elo0; H1: it is elo1) or
    --max-matches are played, then report the decision, the LLR, the Elo difference with its
    interval and the LOS.

    BOT_NEW and BOT_OLD are command lines, as for ginref match. Every match is journaled in
    the --out directory: Ctrl-C stops cleanly and the same command resumes. The report is
    also written to DIR/sprt.json. A rerun whose bots changed (their command or files) is
    refused: --fresh starts the test over.

    \b
    Exit status:
      0    H1 accepted: BOT_NEW is stronger
      10   H0 accepted: BOT_NEW is not stronger
      11   inconclusive: --max-matches played, no bound crossed
      1    an error (nothing could start, the bots changed, ...)
      2    a usage error
      3    a bot never connected
      130  stopped (Ctrl-C)
    """
    # Imported here, not by every ginref command at its start (the journal's reading).
    from tournaments.sprt_run import check_fingerprints, default_out, resize, start_afresh

    try:
        new_name, old_name = given[NEW_NAME], given[OLD_NAME]
        if new_name == old_name:
            raise ConfigError(f"the two bots need different names, both are {new_name!r}")
        values = given.file_values()
        rules = values.get("rules.set", {})
        values["rules.set"] = dict(
            paired_rules(given.required(PROFILE), rules, given.required(DUPLICATE))
        )
        config = TournamentConfig(
            name="sprt",
            bots=(bot_entry(new_name, bot_new), bot_entry(old_name, bot_old)),
            format="sprt",
            source="<ginref sprt>",
        ).with_keys(values)
        if "out" not in values:
            config = config.with_keys({"out": str(default_out(*config.bots))})
        bots = [b.spec() for b in config.local_bots]
        confinement = confine(config.sandbox, config.protected, bots)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        if given[FRESH]:
            start_afresh(config.out_dir)
        check_fingerprints(config.out_dir, config)
        config, note = resize(config.out_dir, config)
        if note is not None:
            click.echo(f"Note: {note}.", err=True)
    except GinRefError as exc:
        confinement.close()
        raise click.ClickException(str(exc)) from None
    # It exits with the verdict (0 H1, 10 H0, 11 undecided), or as ginref tournament does when
    # the run is stopped (130) or a bot never connected (3).
    play_and_report(config, confinement, given)
