"""``ginref deals make`` and ``ginref deals check``: deal sets, files of match seeds (or of
decks) that tournaments, sequential tests and ``ginref match --deals`` play in order
(docs/tournaments.md#deal-sets); and the deal set ``--deals`` gives a command."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import click

from ginref.option_spec import Given, with_options
from ginref.option_table import FORCE, OUT, SEED
from referee.errors import GinRefError
from referee.fairness import GivenDecks
from tournaments.file.deals import DealSet, deals_text, load_deals, make_seeds


@click.group("deals")
def deals_group() -> None:
    """Deal sets: files of match seeds played in order, so that two runs test bots on the
    same deals."""


@deals_group.command("make")
@click.argument("count", type=click.IntRange(1, 10_000_000))
@with_options("deals make", OUT, SEED, FORCE)
def make_command(count: int, given: Given) -> None:
    """Write a deal set of COUNT match seeds to FILE, one per line."""
    path, seed, force = Path(given.required(OUT)), given[SEED], given[FORCE]
    made_with = f"ginref deals make {count}" + ("" if seed is None else f" --seed {seed}")
    text = deals_text(make_seeds(count, seed), made_with)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = exc.strerror or exc
        raise click.ClickException(f"cannot create the folder {path.parent}: {why}") from None
    try:
        # Exclusive creation unless --force: a set a test was run with is not lost by mistake.
        flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
        with os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise click.ClickException(
            f"{path} exists: choose another --out, or --force to overwrite it"
        ) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None
    click.echo(f"Wrote {count} deals to {path}")


@deals_group.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
def check_command(file: str) -> None:
    """Read the deal set FILE; say how many deals it holds, or its first mistake."""
    try:
        deals = load_deals(file)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{file}: {len(deals.seeds)} deals (SHA-256 {deals.sha256[:16]}...)")


def deal_set(path: str | None, players: int | None = None) -> DealSet | None:
    """The deal set of ``--deals`` (None: not given), its first dealers checked against a
    match of ``players``; a mistake in it is one line, as click prints it."""
    if path is None:
        return None
    try:
        deals = load_deals(path)
        if players is not None:
            deals.check_players(players)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    return deals


def verify_deals(path: str | None) -> Callable[[int], GivenDecks | None] | None:
    """What ``ginref verify --deals`` checks decks against: the set's decks by deal."""
    deals = deal_set(path)
    return None if deals is None else deals.decks
