"""The ``ginref`` command line: the only module that imports click.

Each command parses its arguments, calls the library, formats the result with the pure
functions of :mod:`tournaments.report` and prints it. Errors raised on purpose by ginref
(:class:`referee.errors.GinRefError`) and usage errors are printed plainly with a non-zero exit
status, never as a traceback.
"""

from __future__ import annotations

import dataclasses
import secrets
import sys
from pathlib import Path

import click

from ginref.options import confine, referee_options
from ginref.tournament_command import (
    EXIT_NOT_CONNECTED,
    standings_command,
    tournament_command,
)
from referee.bots.limits import Limits
from referee.bots.sandbox import SANDBOX_MODES, SandboxSettings
from referee.bots.spec import BotSpec
from referee.engine.rules import PROFILES, Rules, parse_assignments
from referee.errors import GinRefError
from referee.options import RefereeOptions
from referee.series import run_match
from referee.timeline import Timeline, load_replay
from replays.ask import ask, position_at
from replays.html import render_html
from replays.verify import (
    check_file,
    difference_warning,
    find_logs,
    format_check,
)
from replays.view import Style, can_print, format_answer, format_position, format_replay
from tournaments.audit import audit_report, is_tournament
from tournaments.report import format_match_outcome, format_not_started

_MAX_SEED = 2**64 - 1


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="ginref")
def main() -> None:
    """Referee and tournament runner for two-player Gin Rummy bots."""


@main.command("match")
@click.argument("bot_a")
@click.argument("bot_b")
@click.option(
    "--profile",
    "-p",
    default="standard",
    show_default=True,
    help=f"Rule profile: {', '.join(PROFILES)}.",
)
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a rule parameter of the profile (repeatable), e.g. --set target=150.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, _MAX_SEED),
    default=None,
    help="Match seed (every deal derives from it). Default: a random one, printed.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="ginref-logs",
    show_default=True,
    help="Directory for the replay log and the bots' output files.",
)
@click.option(
    "--tcp",
    "tcp_bots",
    multiple=True,
    type=click.Choice(["a", "b"]),
    help="Bot A or B reaches the referee over TCP, through a forwarder in its sandbox: for a "
    "gRPC library that cannot dial a Unix socket (Debian's grpc-java). Repeatable.",
)
@referee_options(tournament=False)
def match_command(
    bot_a: str,
    bot_b: str,
    profile: str,
    assignments: tuple[str, ...],
    seed: int | None,
    out_dir: str,
    tcp_bots: tuple[str, ...],
    move_time: float,
    bank: float,
    connect_timeout: float,
    retries: int,
    limit_items: tuple[str, ...],
    sandbox: str | None,
) -> None:
    """Play one match between two bots and print the result.

    BOT_A (seat 0) and BOT_B (seat 1) are command lines, split like a shell would, e.g.
    "python -m sample_bots.random_bot". Each bot finds the referee's address and its secret
    token in GINREF_ADDRESS and GINREF_TOKEN (docs/referee.md). Exit status 3 when a bot could
    not start and connect (its seat forfeits; the error says why).
    """
    try:
        rules = Rules.profile(profile, **parse_assignments(assignments))
        bots = tuple(
            dataclasses.replace(BotSpec.parse(text), transport="tcp" if key in tcp_bots else "unix")
            for key, text in (("a", bot_a), ("b", bot_b))
        )
        options = RefereeOptions(
            move_time=move_time,
            bank=bank,
            connect_timeout=connect_timeout,
            retries=retries,
            limits=Limits().with_keys(parse_assignments(limit_items)),
            sandbox=SandboxSettings(mode="none" if sandbox == "none" else "bwrap"),
        ).validate()
        if seed is None:
            seed = secrets.randbelow(2**31)
        confinement = confine(options.sandbox, [Path(out_dir)], bots)
        try:
            outcome = run_match(
                bots[0], bots[1], rules, seed, out_dir, options, confinement=confinement
            )
        finally:
            confinement.close()
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(format_match_outcome(outcome))
    problems = format_not_started(outcome)
    for line in problems:
        click.echo(f"Error: {line}", err=True)
    if problems:
        sys.exit(EXIT_NOT_CONNECTED)


# --- replays ------------------------------------------------------------------------------------


@main.command("replay")
@click.argument("log", type=click.Path(dir_okay=False))
@click.option(
    "--seat",
    type=click.IntRange(0, 1),
    help="Show only what this seat saw, as the referee sent it: its cards and requests, the "
    "opponent's public moves, its faults, the results.",
)
@click.option("--hand", type=click.IntRange(1), metavar="K", help="Start at hand K.")
@click.option(
    "--step",
    is_flag=True,
    help="Wait for a key between events (c: run to the end, q: quit).",
)
@click.option(
    "--color/--no-color",
    default=None,
    help="Red suits in red. Default: when the output is a terminal.",
)
@click.option("--ascii", is_flag=True, help="Suits as letters (TD) instead of symbols (10♦).")
@click.option(
    "--ask",
    "ask_command",
    metavar="BOT_COMMAND",
    help="Start this bot, put it into the position of --at (the acting seat's view, as the "
    "referee sends it) and show the action it takes and how long it took.",
)
@click.option(
    "--at",
    "at_line",
    type=int,
    metavar="EVENT",
    help="An event: the log line number of a decision, as ginref replay shows it in its left "
    "column. Alone, prints that position; with --ask, asks the bot.",
)
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False),
    metavar="OUT.html",
    help="Write the match as one self-contained web page (cards, discard pile, showdowns, "
    "controls to step forwards and back) instead of printing it.",
)
@click.option(
    "--sandbox",
    type=click.Choice(SANDBOX_MODES),
    default="bwrap",
    show_default=True,
    help="How the --ask bot runs: in a sandbox of its own (it cannot read the log), or none.",
)
def replay_command(
    log: str,
    seat: int | None,
    hand: int | None,
    step: bool,
    color: bool | None,
    ascii: bool,
    ask_command: str | None,
    at_line: int | None,
    html_out: str | None,
    sandbox: str,
) -> None:
    """Show the match recorded in the replay log LOG, hand by hand and turn by turn.

    Every event is shown with its line number in LOG, which is the EVENT that --at takes:
    deals with both hands, each decision and the card it moved, faults, each showdown with
    melds, layoffs and deadwood, and the running score.
    """
    if ask_command is not None and at_line is None:
        raise click.UsageError("--ask needs --at EVENT (the line of a decision in the log)")
    for name, value, allowed in (
        ("--at", at_line, ()),
        ("--html", html_out, ("--hand",)),
    ):
        if value is None:
            continue
        given = {"--seat": seat, "--hand": hand, "--step": step or None, "--html": html_out}
        clash = [k for k, v in given.items() if v is not None and k != name and k not in allowed]
        if clash:
            raise click.UsageError(f"{name} cannot be combined with {', '.join(clash)}")
    try:
        timeline = load_replay(log)
        if hand is not None:
            timeline.require_hand(hand, "--hand", log)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    if color is None:
        color = sys.stdout.isatty()
    symbols = not ascii and can_print("♣♦♥♠", sys.stdout.encoding)
    style = Style(symbols=symbols, color=color)
    if at_line is not None:
        _replay_at(log, timeline, at_line, ask_command, style, sandbox)
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


@main.command("verify")
@click.argument("paths", nargs=-1, required=True, metavar="LOG|DIR ...")
@click.option("-v", "--verbose", is_flag=True, help="List every difference, not only the first.")
def verify_command(paths: tuple[str, ...], verbose: bool) -> None:
    """Re-adjudicate replay logs with the rules engine.

    Each match is rebuilt from its seed and recorded actions; every deal, legal choice, fault
    and score must be the engine's, and the deal the one committed to before play. Prints one
    line per log (for a mismatch, the first event that differs, by line number) and exits 0
    only if every log agrees. A directory means every *.jsonl file below it; a tournament's
    directory also has its journal checked against its logs (each log unchanged since the
    referee wrote it, and saying what the journal says).
    """
    logs = find_logs(paths)
    failed = 0
    for path in logs:
        check = check_file(path)
        click.echo(format_check(check, verbose=verbose))
        failed += 0 if check.ok else 1
    if len(logs) > 1:
        click.echo(f"{len(logs) - failed} of {len(logs)} logs agree with the engine")
    for directory in (Path(p) for p in paths if is_tournament(Path(p))):
        report, differences = audit_report(directory)
        click.echo("\n".join(report))
        failed += differences
    if failed:
        sys.exit(1)


main.add_command(tournament_command)
main.add_command(standings_command)


if __name__ == "__main__":  # pragma: no cover
    main()
