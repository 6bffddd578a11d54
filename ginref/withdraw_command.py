"""``ginref withdraw`` and ``ginref disqualify``: a bot taken out of a tournament by its organiser.

Both write the decision to the tournament's journal (:meth:`~tournaments.journal.store.Journal.
withdraw`), where every later run, ``ginref standings`` and the report read it; what it does to
the results is :mod:`tournaments.journal.withdrawals`'.
"""

from __future__ import annotations

import click

from ginref.option_spec import Given, with_options
from ginref.option_table import OUT
from referee.errors import ConfigError, GinRefError
from tournaments.file.config import load_file


def take_out(file: str, bot: str, given: Given, kind: str) -> str:
    """Record that ``bot`` of the tournament in ``file`` is out (``kind``); what became of its
    matches, in words."""
    # Imported here, not by every ginref command at its start (the journal, the standings).
    from tournaments.journal.store import JournalError, open_journal
    from tournaments.results.standings import counted_matches

    config = given.apply(load_file(file))
    if config.format == "sprt":
        raise ConfigError(
            f"{file} is a sequential test of two bots: stop it (Ctrl-C) rather than take one out"
        )
    journal = open_journal(config.out_dir, create=False)
    try:
        if not journal.initialised:
            raise JournalError(
                f"{journal.path} holds no tournament yet (no match was scheduled): take {bot} "
                f"out of {file} instead"
            )
        journal.withdraw(bot, kind)
        matches = counted_matches(journal)
    finally:
        journal.close()
    note = next(n for n in matches.notes() if n.startswith(f"{bot} "))
    remote = any(b.name == bot and b.remote for b in config.bots)
    return (
        f"{note}. A run in progress starts no more of its matches (one in play finishes); "
        f"resuming never starts it{' nor asks for its token' if remote else ''}."
    )


@click.command("withdraw")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("bot")
@with_options("withdraw", OUT)
def withdraw_command(file: str, bot: str, given: Given) -> None:
    """Withdraw BOT from the tournament in FILE: the matches it played stand, and its matches
    not played yet are forfeits to its opponents (scored, not rated), never started.

    Works before a resume or while the tournament runs; BOT stays in FILE (or may leave it).
    To strike its results as well, use 'ginref disqualify'.
    """
    from tournaments.journal.withdrawals import WITHDRAWN

    _run(file, bot, given, WITHDRAWN)


@click.command("disqualify")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("bot")
@with_options("disqualify", OUT)
def disqualify_command(file: str, bot: str, given: Given) -> None:
    """Disqualify BOT from the tournament in FILE: every match it sat in, played or not, is
    struck from the standings (its opponents' results in them too), and it is ranked last.

    A withdrawn bot may be disqualified later; a disqualification is final.
    """
    from tournaments.journal.withdrawals import DISQUALIFIED

    _run(file, bot, given, DISQUALIFIED)


def _run(file: str, bot: str, given: Given, kind: str) -> None:
    try:
        said = take_out(file, bot, given, kind)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(said)
