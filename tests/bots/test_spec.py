"""A bot's command line as the command line gives it: split as a shell would, with
``{python}`` the interpreter ginref runs on, as in a tournament file."""

from __future__ import annotations

import sys

import pytest

from ginref.sprt_command import bot_entry
from referee.bots.spec import BotSpec, expand_python
from referee.errors import ConfigError
from tournaments.file.config import parse_text


def test_python_in_braces_is_the_interpreter_ginref_runs_on() -> None:
    spec = BotSpec.parse("{python} -m sample_bots.greedy_bot --depth '{python}'")
    assert spec.command == (
        sys.executable,
        "-m",
        "sample_bots.greedy_bot",
        "--depth",
        sys.executable,
    )
    assert spec.name == "greedy_bot"
    # Only a whole word: a path that holds it is the user's own.
    assert BotSpec.parse("run {python}3 x{python}").command == ("run", "{python}3", "x{python}")


def test_every_command_line_and_the_file_expand_it_alike() -> None:
    text = "{python} bots/x.py {python}"
    expected = (sys.executable, "bots/x.py", sys.executable)
    assert expand_python(text.split()) == expected
    assert bot_entry("x", text).command == expected
    file = f'[[bots]]\nname = "a"\ncommand = "{text}"\n[[bots]]\nname = "b"\ncommand = "b"\n'
    assert parse_text(file).bots[0].command == expected


def test_a_command_that_cannot_be_split_is_told() -> None:
    with pytest.raises(ConfigError, match="cannot parse the bot command"):
        BotSpec.parse("{python} 'open")
