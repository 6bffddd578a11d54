"""The option table (ginref/option_table.py): each option on each command that names it, as
declared; the command line over the tournament file over the default; keys the file has."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

import ginref.tournament_command
from ginref.cli import main
from ginref.option_spec import DECLARED, UNSET, Given, Option, with_options
from ginref.option_table import (
    ABSENT_WAIT,
    CONCURRENCY,
    ELO1,
    LIMIT,
    MOVE_TIME,
    SANDBOX,
    SEED,
    TABLE,
)
from referee.settings import DEFAULT_MOVE_TIME
from tournaments.file.config import TournamentConfig, parse_text


def commands(group: click.Group = main, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    """Every command of ``ginref``, subcommands too, with its full name."""
    for name, command in group.commands.items():
        yield prefix + name, command
        if isinstance(command, click.Group):
            yield from commands(command, f"{prefix}{name} ")


def test_each_option_is_on_each_command_that_names_it_as_declared() -> None:
    seen = 0
    for full_name, command in commands():
        if command.callback not in DECLARED:
            continue
        name, entries = DECLARED[command.callback]
        options = [entry.on(name) for entry in entries]
        params = [p for p in command.params if isinstance(p, click.Option)]
        assert [p.name for p in params] == [o.name for o in options], full_name
        for param, option in zip(params, options, strict=True):
            where = f"{full_name} {option.flags[-1]}"
            flags = [f for flag in option.flags for f in flag.split("/")]
            assert sorted(param.opts + param.secondary_opts) == sorted(flags), where
            assert param.help == option.help, where
            if option.default is not UNSET:
                assert param.default == option.default, where
            assert bool(param.show_default) == option.show_default, where
            assert param.required == option.required and param.multiple == option.multiple
            seen += 1
    assert seen > 80  # every command's options, not a few


def test_every_option_of_every_command_comes_from_the_table() -> None:
    for full_name, command in commands():
        options = [p for p in command.params if isinstance(p, click.Option)]
        if options:
            assert command.callback in DECLARED, full_name


def users(option: Option[Any]) -> set[str]:
    """The commands (as the table names them) that have ``option``."""
    return {name for name, entries in DECLARED.values() if option in entries}


def test_every_entry_and_each_of_its_variants_is_used() -> None:
    for option in TABLE:
        assert users(option), f"{option.flags[-1]} is on no command"
        for command in option.variants:
            assert command in users(option), f"{option.flags[-1]}: a variant for {command}"


def test_shared_options_are_declared_once_with_each_commands_default() -> None:
    # --seed: the master seed of tournament, sprt and serve, match's own, and deals make's.
    assert users(SEED) == {"deals make", "match", "serve", "sprt", "tournament"}
    defaults = {command: MOVE_TIME.on(command).default for command in users(MOVE_TIME)}
    assert defaults == {
        "match": DEFAULT_MOVE_TIME,
        "sprt": DEFAULT_MOVE_TIME,
        "tournament": None,  # the file's
        "serve": None,
    }
    assert users(SANDBOX) == {"match", "sprt", "tournament", "serve", "replay"}


FILE = """
name = "t"
{seed}
[[bots]]
name = "a"
command = "true"

[[bots]]
name = "b"
command = "true"
{time}
{sandbox}
"""


def played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file: str, *args: str
) -> TournamentConfig:
    """The config ``ginref tournament`` would play, from ``file`` and ``args``."""
    played: list[TournamentConfig] = []
    monkeypatch.setattr(ginref.tournament_command, "confine", lambda *_: None)
    monkeypatch.setattr(
        ginref.tournament_command, "play_and_report", lambda config, *_: played.append(config)
    )
    path = tmp_path / "t.toml"
    path.write_text(file)
    result = CliRunner().invoke(main, ["tournament", str(path), *args])
    assert result.exit_code == 0, result.output
    return played[0]


@pytest.mark.parametrize(
    ("in_file", "option", "seed", "move_time", "mode"),
    [
        (False, False, None, DEFAULT_MOVE_TIME, "bwrap"),  # neither: the default
        (True, False, 7, 3.0, "none"),  # the file's
        (True, True, 9, 1.5, "bwrap"),  # the command line's over the file's
        (False, True, 9, 1.5, "bwrap"),  # the command line's over the default
    ],
)
def test_the_command_line_beats_the_file_which_beats_the_default(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    in_file: bool,
    option: bool,
    seed: int | None,
    move_time: float,
    mode: str,
) -> None:
    file = FILE.format(
        seed="seed = 7" if in_file else "",
        time="[time]\nmove_time = 3" if in_file else "",
        sandbox='[sandbox]\nmode = "none"' if in_file else "",
    )
    args = ["--seed", "9", "--move-time", "1.5", "--sandbox", "bwrap"] if option else []
    config = played(tmp_path, monkeypatch, file, *args)
    assert (config.seed, config.move_time, config.sandbox.mode) == (seed, move_time, mode)


def test_a_table_and_a_list_add_to_the_files() -> None:
    config = parse_text(FILE.format(seed="", time="", sandbox="") + "[limits]\ncpus = 2\n")
    given = Given("tournament", {LIMIT: ("memory_mb=512",), ABSENT_WAIT: 5.0, SANDBOX: None})
    changed = given.apply(config)
    assert (changed.limits.cpus, changed.limits.to_dict()["memory_mb"]) == (2, 512)
    assert changed.serve.absent_wait == 5.0 and changed.sandbox == config.sandbox
    assert Given("sprt", {ELO1: 20.0}).apply(config.with_changes(format="sprt")).sprt.elo1 == 20.0


def test_an_option_naming_a_key_the_file_has_not_fails_at_once() -> None:
    with pytest.raises(ValueError, match=r"--x: 'time.move_tme' is not a key of the tournament"):
        Option(("--x",), help="", key="time.move_tme")
    with pytest.raises(ValueError, match=r"'sandbox.uid_base' is not a key"):
        Option(("--x",), help="", key="seed", variants={"serve": {"key": "sandbox.uid_base"}})


def test_two_options_of_one_command_cannot_share_a_flag_or_a_name() -> None:
    with pytest.raises(ValueError, match=r"tournament: options share the flag -j"):
        with_options("tournament", CONCURRENCY, Option(("-j", "--jobs"), help="again"))
    with pytest.raises(ValueError, match=r"tournament: options share the name seed"):
        with_options("tournament", SEED, Option(("-s", "--seed"), help="again"))
