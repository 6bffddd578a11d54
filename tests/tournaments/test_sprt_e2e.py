"""``ginref sprt`` and ``format = "sprt"`` end to end with real bot processes: a test that
accepts H1 on a deal set's deals, stops, verifies and resumes without playing; one from a
tournament file that accepts H0 counting single matches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
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
    assert code == 0, output
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
    assert code == 0, output
    assert "matches, trinomial" in output
    assert "H0 accepted: worse is not stronger than better" in output
    assert "LLR -" in output and "Test over:" in output
