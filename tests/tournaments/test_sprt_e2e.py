"""``ginref sprt`` and ``format = "sprt"`` end to end with real bot processes: a test that
accepts H1 on a deal set's deals, stops, verifies and resumes without playing; one from a
tournament file that accepts H0 counting single matches; the exit status of each verdict; a
default directory per pair of bots; a rerun refused when a bot's file changed; a larger
maximum that extends an inconclusive test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from ginref.tournament_command import EXIT_H0, EXIT_H1, EXIT_INCONCLUSIVE
from tests.support.referee_helpers import TESTBOT
from tournaments.file.deals import load_deals
from tournaments.journal.store import open_journal

pytestmark = pytest.mark.slow  # real tests of real bot processes

GREEDY = "python -m sample_bots.greedy_bot"
FIRST = f"python {TESTBOT} first"  # always the first legal action: loses to the greedy bot


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def journaled(out: Path) -> list[tuple[str, int]]:
    journal = open_journal(out, create=False)
    try:
        return [(r.key, r.seed) for r in journal.records()]
    finally:
        journal.close()


def test_a_test_accepts_h1_on_a_deal_set_stops_and_resumes_without_playing(
    tmp_path: Path,
) -> None:
    deals = tmp_path / "deals.txt"
    assert run("deals", "make", "30", "--out", str(deals), "--seed", "5")[0] == 0
    out = tmp_path / "out"
    args = ["sprt", GREEDY, FIRST, "--elo0", "0", "--elo1", "100", "--max-matches", "60"]
    args += ["--deals", str(deals), "-j", "2", "--out", str(out), "--no-progress"]
    code, output = run(*args)
    assert code == EXIT_H1 == 0, output
    assert "H1 accepted: new is stronger than old" in output
    report = json.loads((out / "sprt.json").read_text())
    assert report["decision"] == "H1" and report["statistics"] == "pentanomial"
    assert report["llr"] >= report["upper_bound"]
    assert report["wins"] == report["matches"] < 60  # it stopped on its decision
    played = journaled(out)
    assert report["matches"] <= len(played) <= report["matches"] + 2  # + what was in flight
    # Pair j plays the set's seed j, both its matches.
    seeds = load_deals(deals).seeds
    for key, seed in played:
        game = int(key.rsplit(".", 1)[1])
        assert seed == seeds[(game - 1) // 2]
    assert run("verify", str(out))[0] == 0  # every log re-adjudicates, the journal agrees
    code, again = run(*args)
    assert code == 0 and "H1 accepted" in again
    assert "this run played 0" in again and journaled(out) == played
    # A decided test stays decided: a larger maximum plays nothing.
    larger = [("120" if a == "60" else a) for a in args]
    code, again = run(*larger)
    assert code == EXIT_H1 and "--max-matches 120 changes nothing" in again
    assert journaled(out) == played
    code, standings = run("standings", str(out))
    assert code == 0 and "LLR +" in standings


def test_a_file_test_counting_matches_accepts_h0(tmp_path: Path) -> None:
    file = tmp_path / "t.toml"
    file.write_text(
        'name = "t"\nformat = "sprt"\nseed = 3\n[sprt]\nelo0 = 0\nelo1 = 150\nmax_matches = 40\n'
        f'\n[[bots]]\nname = "worse"\ncommand = "{FIRST}"\n'
        f'\n[[bots]]\nname = "better"\ncommand = "{GREEDY}"\n'
    )
    out = tmp_path / "out"
    code, output = run("tournament", str(file), "--out", str(out), "-j", "2", "--no-progress")
    assert code == EXIT_H0, output  # the verdict, as ginref sprt gives it
    assert "matches, trinomial" in output
    assert "H0 accepted: worse is not stronger than better" in output
    assert "LLR -" in output and "Test over:" in output


# Two matches, one deal each: too few to cross a bound, so the test ends inconclusive at once.
SHORT = ["--elo0", "0", "--elo1", "100", "--max-matches", "2", "--no-duplicate", "-j", "2"]


def test_the_exit_status_tells_h0_from_an_inconclusive_test(tmp_path: Path) -> None:
    code, output = run("sprt", FIRST, GREEDY, *SHORT, "--out", str(tmp_path / "a"), "-q")
    assert code == EXIT_INCONCLUSIVE, output
    assert "inconclusive: no bound was crossed after 2 matches (the maximum)\n" in output
    args = ["--elo0", "0", "--elo1", "150", "--max-matches", "60", "--seed", "3", "-j", "2"]
    args += ["--processes", "keep"]  # up to 60 matches: not two bot start-ups each
    code, output = run("sprt", FIRST, GREEDY, *args, "--out", str(tmp_path / "b"), "-q")
    assert code == EXIT_H0, output
    assert "H0 accepted" in output


def test_each_pair_has_its_own_default_directory_and_resumes_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    other = f"python {TESTBOT} play"
    assert run("sprt", GREEDY, FIRST, *SHORT, "--no-progress")[0] == EXIT_INCONCLUSIVE
    code, output = run("sprt", GREEDY, other, *SHORT, "--no-progress")
    assert code in (EXIT_H1, EXIT_H0, EXIT_INCONCLUSIVE), output  # not an error
    tests = sorted(p.name for p in (tmp_path / "runs" / "sprt").iterdir())
    assert len(tests) == 2 and all(t.startswith("greedy_bot-vs-testbot-") for t in tests)
    code, again = run("sprt", GREEDY, FIRST, *SHORT, "--no-progress")
    assert code == EXIT_INCONCLUSIVE and "this run played 0" in again


def test_a_bot_whose_file_changed_is_refused_until_the_test_starts_afresh(
    tmp_path: Path,
) -> None:
    (tmp_path / "bot").mkdir()  # its own directory: the sandbox lets it see no other
    bot = tmp_path / "bot" / "bot.py"
    bot.write_text(TESTBOT.read_text())
    out = tmp_path / "out"
    args = ["sprt", GREEDY, f"python {bot} first", *SHORT, "--out", str(out), "--no-progress"]
    assert run(*args)[0] == EXIT_INCONCLUSIVE
    played = journaled(out)
    bot.write_text(TESTBOT.read_text() + "# a new idea\n")
    code, output = run(*args)
    assert code == 1
    assert (
        output == f"Error: old changed since the test in {out} was started (command or files): "
        "use --fresh to start it over, or another --out\n"
    )
    assert journaled(out) == played  # nothing was mixed in
    code, output = run(*args, "--fresh")
    assert code == EXIT_INCONCLUSIVE and "this run played 2" in output
    assert run(*args)[0] == EXIT_INCONCLUSIVE  # the new bot's test resumes as ever


def test_a_larger_maximum_extends_an_inconclusive_test_and_one_below_the_played_is_refused(
    tmp_path: Path,
) -> None:
    args = ["sprt", GREEDY, FIRST, *SHORT[:4], "--no-duplicate", "-j", "2", "--seed", "3"]
    args += ["--no-progress"]
    out = tmp_path / "out"
    assert run(*args, "--max-matches", "2", "--out", str(out))[0] == EXIT_INCONCLUSIVE
    code, output = run(*args, "--max-matches", "6", "--out", str(out))
    assert code == EXIT_INCONCLUSIVE, output
    assert "Note: the test's maximum is now 6 matches (it was 2)." in output
    assert "this run played 4" in output
    assert "inconclusive: no bound was crossed after 6 matches (the maximum)\n" in output
    assert json.loads((out / "sprt.json").read_text())["matches_scheduled"] == 6
    # The same matches on the same deals as a test of six from the start.
    whole = tmp_path / "whole"
    assert run(*args, "--max-matches", "6", "--out", str(whole))[0] == EXIT_INCONCLUSIVE
    assert sorted(journaled(out)) == sorted(journaled(whole))
    assert run("verify", str(out))[0] == 0
    code, output = run(*args, "--max-matches", "4", "--out", str(out))
    assert code == 1
    assert output == (
        f"Error: --max-matches 4 is less than the 6 matches the test in {out} has played; "
        "give at least 6\n"
    )
