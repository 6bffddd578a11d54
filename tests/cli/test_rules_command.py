"""`ginref rules`, and one "did you mean" line for a misspelt profile, parameter or value."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.reference import PARAMETER_DOCS, PROFILE_DOCS, format_value
from referee.engine.rules import PARAMETERS, PROFILES, Rules
from referee.errors import RulesError


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def one_error_line(*args: str) -> str:
    """Run a command that must fail on a user mistake: exit 1, one line, no traceback."""
    code, out = run(*args)
    lines = out.strip().splitlines()
    assert code == 1 and len(lines) == 1 and lines[0].startswith("Error: "), out
    return lines[0]


# --- ginref rules ----------------------------------------------------------------------------


def test_rules_lists_every_profile_with_what_it_is_for() -> None:
    code, out = run("rules")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert listed == list(PROFILES)
    for name in PROFILES:
        line = next(x for x in out.splitlines() if x.split()[:1] == [name])
        assert line.endswith(PROFILE_DOCS[name].purpose)


@pytest.mark.parametrize("profile", list(PROFILES))
def test_rules_profile_shows_every_parameter_and_marks_what_differs_from_standard(
    profile: str,
) -> None:
    code, out = run("rules", profile)
    assert code == 0
    rows = {
        m.group(1): (m.group(2), bool(m.group(3)))
        for m in re.finditer(r"^  (\w+) +(\S+)(  \*)?$", out, re.MULTILINE)
    }
    assert list(rows) == list(PARAMETERS)
    values, standard = Rules.profile(profile).to_dict(), Rules.profile("standard").to_dict()
    for name, (shown, marked) in rows.items():
        assert shown == format_value(values[name]), name
        assert marked == (values[name] != standard[name]), name
    if profile == "openspiel":
        assert rows["defender_play"] == ("declared", True)


@pytest.mark.parametrize("spelling", ["defender_play", "defender-play"])
def test_rules_parameter_explains_values_rules_and_each_profile(spelling: str) -> None:
    code, out = run("rules", spelling)
    assert code == 0
    doc = PARAMETER_DOCS["defender_play"]
    assert out.startswith(f"defender_play: {doc.summary}\n")
    assert "Rules: R6.6 " in out
    assert max(map(len, out.splitlines())) <= 80  # wrapped to fit an 80-column terminal
    flat = " ".join(out.split())
    for value, meaning in doc.values:
        assert f"{value} {' '.join(meaning.split())}" in flat, value
    profiles = out.split("In each profile:\n")[1]
    shown = dict(line.split() for line in profiles.strip().splitlines())
    assert shown == {p: Rules.profile(p).defender_play for p in PROFILES}
    assert shown["openspiel"] == "declared"


def test_rules_explains_a_numeric_parameter_with_none() -> None:
    code, out = run("rules", "max_discard_draws")
    assert code == 0
    assert "  none " in out and "openspiel     50" in out and "standard      none" in out


@pytest.mark.parametrize(
    ("name", "meant"),
    [("opensiel", "openspiel"), ("walrule", "wall_rule"), ("defendr_play", "defender_play")],
)
def test_rules_with_an_unknown_name_suggests_the_nearest(name: str, meant: str) -> None:
    line = one_error_line("rules", name)
    assert f"{name!r} is neither a rule profile nor a rule parameter; did you mean {meant}?" in line


def test_rules_with_a_name_like_nothing_points_to_the_list() -> None:
    line = one_error_line("rules", "xyzzy")
    assert "'xyzzy' is neither" in line and "ginref rules lists the profiles" in line


# --- did you mean, everywhere a name is given ------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--profile", "okalhoma"), "unknown profile 'okalhoma'; did you mean oklahoma?"),
        (("--set", "wal_rule=dead"), "unknown rule parameter 'wal_rule'; did you mean wall_rule?"),
        (
            ("--set", "wall_rule=fiftieth_card_pagatt"),
            "wall_rule = 'fiftieth_card_pagatt' is not one of: dead, fiftieth_card_pagat, "
            "fiftieth_card_gamecolony, rlcard; did you mean fiftieth_card_pagat?",
        ),
        (
            ("--set", "defender_play=declare"),
            "defender_play = 'declare' is not one of: auto_optimal, declared, auto_greedy, "
            "declared_melds; did you mean declared?",
        ),
    ],
)
def test_match_options_suggest_the_nearest_name(args: tuple[str, ...], expected: str) -> None:
    assert expected in one_error_line("match", "bot-a", "bot-b", *args)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--profile", "pagatt"), "unknown profile 'pagatt'; did you mean pagat?"),
        (("--set", "targt=50"), "unknown rule parameter 'targt'; did you mean target?"),
        (
            ("--set", "shutout=total"),
            "shutout = 'total' is not one of: none, game_bonus_doubled, "
            "total_doubled, hand_points_doubled; did you mean total_doubled?",
        ),
    ],
)
def test_tournament_options_suggest_the_nearest_name(
    args: tuple[str, ...], expected: str, tmp_path: Path
) -> None:
    line = one_error_line("tournament", "--out", str(tmp_path / "t"), *args)
    assert expected in line
    assert not (tmp_path / "t").exists()


BOTS = '[[bots]]\nname = "a"\ncommand = "x"\n[[bots]]\nname = "b"\ncommand = "y"\n'


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ('[rules]\nprofile = "neller"\n', "t.toml:2: rules.profile: unknown profile 'neller'; "),
        (
            "[rules.set]\nknock_limt = 5\n",
            "t.toml:2: rules.set.knock_limt: unknown rule parameter 'knock_limt'; "
            "did you mean knock_limit?",
        ),
        (
            '[rules.set]\ndeal_mode = "eleven"\n',
            "t.toml:2: rules.set.deal_mode: deal_mode = 'eleven' is not one of: upcard, "
            "eleven_card; did you mean eleven_card?",
        ),
        ("[rules]\ntarget = 50\n", "t.toml:2: rules.target: a rule parameter goes in [rules.set]"),
    ],
)
def test_a_tournament_file_names_the_line_and_the_nearest_name(
    rules: str, expected: str, tmp_path: Path
) -> None:
    path = tmp_path / "t.toml"
    path.write_text(rules + BOTS)
    line = one_error_line("tournament", str(path), "--out", str(tmp_path / "out"))
    assert expected in line.replace(str(path), "t.toml")


def test_rules_from_dict_suggests_the_nearest_name() -> None:
    data = Rules.profile("openspiel").to_dict()
    message = r"^unknown profile 'open_spiel'; did you mean openspiel\?$"
    with pytest.raises(RulesError, match=message):
        Rules.from_dict({**data, "profile_name": "open_spiel"})
    data.pop("payoff")
    message = r"^unknown rule parameter 'payof'; did you mean payoff\?$"
    with pytest.raises(RulesError, match=message):
        Rules.from_dict({**data, "payof": "points"})
    with pytest.raises(RulesError, match=r"did you mean zero_sum\?$"):
        Rules.from_dict({**data, "payoff": "zerosum"})
