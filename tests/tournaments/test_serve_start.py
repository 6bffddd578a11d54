"""When a hosted referee starts play (``start`` in ``[serve]``, ``--start``): the forms it takes,
what each means at a given moment, and the one line a mistake gets. The runs that wait are in
``tests/tournaments/test_serve_lobby.py``."""

from __future__ import annotations

import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.errors import ConfigError
from tournaments.file.config import TournamentFileError, parse_text
from tournaments.file.serve import ServeSettings, start_time

ONE = timezone(timedelta(hours=1))
NOW = datetime(2026, 12, 3, 13, 0, tzinfo=ONE)  # 13:00 local time, UTC+1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", NOW),
        ("14:00", datetime(2026, 12, 3, 14, 0, tzinfo=ONE)),  # today, local time
        ("13:30:15", datetime(2026, 12, 3, 13, 30, 15, tzinfo=ONE)),
        ("2026-12-04T09:30", datetime(2026, 12, 4, 9, 30, tzinfo=ONE)),  # local time
        ("2026-12-04 09:30", datetime(2026, 12, 4, 9, 30, tzinfo=ONE)),
        ("2026-12-03T13:00Z", datetime(2026, 12, 3, 14, 0, tzinfo=ONE)),  # UTC, as given
        ("2026-12-03T12:30+00:00", datetime(2026, 12, 3, 13, 30, tzinfo=ONE)),
        # In the past: now, not a wait that never ends.
        ("12:59", NOW),
        ("2026-12-02T20:00", NOW),
        ("2026-12-03T11:30Z", NOW),
        # When every remote bot is connected: no moment.
        ("all", None),
    ],
)
def test_each_form_of_the_start_is_a_moment_or_every_bot(
    text: str, expected: datetime | None
) -> None:
    assert start_time(text, NOW) == expected


@pytest.mark.parametrize("text", ["", "soon", "25:00", "14h", "2026-13-01T10:00", "All"])
def test_a_start_that_is_none_of_them_is_one_line_naming_it(text: str) -> None:
    with pytest.raises(ConfigError) as info:
        start_time(text, NOW)
    message = str(info.value)
    assert repr(text) in message and "\n" not in message
    assert "all" in message and "HH:MM" in message


def test_the_file_takes_start_in_serve_and_refuses_a_bad_one(tmp_path: Path) -> None:
    text = """
        name = "t"
        [serve]
        start = "{start}"
        [[bots]]
        name = "alice"
        remote = true
        [[bots]]
        name = "bob"
        remote = true
    """
    config = parse_text(textwrap.dedent(text.format(start="all")), "t.toml", tmp_path)
    assert config.serve.start == "all"
    assert ServeSettings().start == "now"  # today's behaviour unless told
    with pytest.raises(TournamentFileError) as info:
        parse_text(textwrap.dedent(text.format(start="later")), "t.toml", tmp_path)
    assert "t.toml:4" in str(info.value) and "'later'" in str(info.value)


def test_serve_refuses_a_bad_start_in_one_line(tmp_path: Path) -> None:
    file = tmp_path / "t.toml"
    bots = '[[bots]]\nname = "alice"\nremote = true\n[[bots]]\nname = "bob"\nremote = true\n'
    file.write_text(f'name = "t"\n{bots}')
    result = CliRunner().invoke(main, ["serve", str(file), "--start", "teatime"])
    assert result.exit_code == 1, result.output
    assert "'teatime'" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
