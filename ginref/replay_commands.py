"""``ginref replay`` and ``ginref verify``: read replay logs back (docs/replays.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ginref.deals_command import verify_deals
from ginref.option_spec import Given, with_options
from ginref.option_table import (
    ASCII,
    ASK,
    AT,
    COLOR,
    DEALS,
    HAND,
    HTML,
    SANDBOX,
    SEAT,
    STEP,
    VERBOSE,
)
from ginref.shared import confine
from referee.errors import GinRefError

# The replays' modules are imported by the commands that read logs: verify's schema checks
# (jsonschema), the views and the journal's audit would otherwise cost every ginref command its
# start-up time.
if TYPE_CHECKING:
    from referee.timeline import Timeline
    from replays.words import Style


@click.command("replay")
@click.argument("log", type=click.Path(dir_okay=False))
@with_options("replay", SEAT, HAND, STEP, COLOR, ASCII, ASK, AT, HTML, SANDBOX)
def replay_command(log: str, given: Given) -> None:
    """Show the match recorded in the replay log LOG, hand by hand and turn by turn.

    Every event is shown with its line number in LOG, which is the EVENT that --at takes:
    deals with both hands, each decision and the card it moved, faults, each showdown with
    melds, layoffs and deadwood, and the running score.
    """
    from referee.replay_log import truncation_warning
    from referee.timeline import load_replay
    from replays.html import render_html
    from replays.verify import difference_warning
    from replays.view import format_replay
    from replays.words import Style, can_print

    seat, hand, step, color = given[SEAT], given[HAND], given[STEP], given[COLOR]
    ask_command, at_line, html_out = given[ASK], given[AT], given[HTML]
    if ask_command is not None and at_line is None:
        raise click.UsageError("--ask needs --at EVENT (the line of a decision in the log)")
    for name, value, allowed in (
        ("--at", at_line, ()),
        ("--html", html_out, ("--hand",)),
    ):
        if value is None:
            continue
        used = {"--seat": seat, "--hand": hand, "--step": step or None, "--html": html_out}
        clash = [k for k, v in used.items() if v is not None and k != name and k not in allowed]
        if clash:
            raise click.UsageError(f"{name} cannot be combined with {', '.join(clash)}")
    try:
        timeline = load_replay(log)
        if hand is not None:
            timeline.require_hand(hand, "--hand", log)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    players = timeline.rules.players
    if seat is not None and seat >= players:
        raise click.BadParameter(
            f"{seat}: {log} is a match of {players} players, seats 0 to {players - 1}",
            param_hint="'--seat'",
        )
    cut = truncation_warning(log, timeline.log)
    if cut is not None:
        click.echo(f"Warning: {cut}", err=True)
    if color is None:
        color = sys.stdout.isatty()
    symbols = not given[ASCII] and can_print("♣♦♥♠", sys.stdout.encoding)
    style = Style(symbols=symbols, color=color)
    if at_line is not None:
        _replay_at(log, timeline, at_line, ask_command, style, given.required(SANDBOX))
        return
    if html_out is not None:
        try:
            Path(html_out).write_text(render_html(timeline, hand=hand), encoding="utf-8")
        except OSError as exc:
            raise click.ClickException(f"cannot write {html_out}: {exc.strerror}") from None
        click.echo(f"Wrote {html_out}: {len(timeline.steps)} events; open it in a browser.")
    else:
        if step:
            click.echo("(--step: any key for the next event, c to run to the end, q to quit)")
        for block in format_replay(timeline, style, seat=seat, hand=hand):
            click.echo("\n".join(block), color=color)
            if step:
                key = _read_key()
                if key in ("q", "Q", "\x03", "\x04"):
                    return
                step = key not in ("c", "C")
    warning = difference_warning(log, timeline)
    if warning is not None:
        click.echo(f"Warning: {warning}", err=True)


def _read_key() -> str:
    """One key from the terminal, or one line from a pipe ("c" at its end: run on)."""
    if sys.stdin.isatty():
        return click.getchar()
    line = sys.stdin.readline()
    return line.strip()[:1] if line else "c"


def _replay_at(
    log: str,
    timeline: Timeline,
    line: int,
    ask_command: str | None,
    style: Style,
    sandbox: str,
) -> None:
    """--at: print the position; with --ask, ask the bot and print its answer."""
    from referee.bots.sandbox import SandboxSettings
    from referee.bots.spec import BotSpec
    from replays.ask import ask, position_at
    from replays.position import format_answer, format_position

    try:
        step = position_at(timeline, line)
        bot = BotSpec.parse(ask_command) if ask_command is not None else None
    except GinRefError as exc:
        raise click.ClickException(f"{log}: {exc}") from None
    click.echo("\n".join(format_position(timeline, step, style)), color=style.color)
    if bot is None or ask_command is None:
        return
    try:
        settings = SandboxSettings(mode="none" if sandbox == "none" else "bwrap")
        confinement = confine(settings, [Path(log)])
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        answer = ask(timeline, step, bot, confinement=confinement)
    except GinRefError as exc:
        raise click.ClickException(f"{ask_command}: {exc}") from None
    finally:
        confinement.close()
    click.echo("\n".join(format_answer(step, ask_command, answer, style)), color=style.color)


@click.command("verify")
@click.argument("paths", nargs=-1, required=True, metavar="LOG|DIR ...")
@with_options("verify", VERBOSE, DEALS)
def verify_command(paths: tuple[str, ...], given: Given) -> None:
    """Re-adjudicate replay logs with the rules engine.

    Each match is rebuilt from its seed and recorded actions; every deal, legal choice, fault
    and score must be the engine's, and the deal the one committed to before play. Prints one
    line per log (for a mismatch, the first event that differs, by line number) and exits 0
    only if every log agrees. A directory means every *.jsonl file below it; a tournament's
    directory also has its journal checked against its logs (each log unchanged since the
    referee wrote it, and saying what the journal says).
    """
    from replays.verify import check_file, find_logs, format_check
    from tournaments.journal.audit import audit_report, is_tournament

    logs = find_logs(paths)
    failed = 0
    deck_file = verify_deals(given[DEALS])
    for path in logs:
        check = check_file(path, deck_file)
        click.echo(format_check(check, verbose=given[VERBOSE]))
        failed += 0 if check.ok else 1
    if len(logs) > 1:
        click.echo(f"{len(logs) - failed} of {len(logs)} logs agree with the engine")
    for directory in (Path(p) for p in paths if is_tournament(Path(p))):
        report, differences = audit_report(directory)
        click.echo("\n".join(report))
        failed += differences
    if failed:
        sys.exit(1)
