"""The sequential test: its LLR and Elo figures against fastchess's own test cases, its error
rates in seeded simulations, the order it counts matches in, the ``[sprt]`` table, and a run
that stops once the test decides and resumes without playing again (a scripted executor)."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ginref.cli import main
from ginref.sprt_command import bot_entry, paired_rules
from tests.support.scripted import Scripted
from tournaments.file.config import TournamentConfig, parse_text
from tournaments.file.toml_lines import TournamentFileError
from tournaments.results.sprt import SequentialTest, estimate, llr, simulate
from tournaments.results.sprt_settings import SprtSettings, elo_to_score
from tournaments.runner import TournamentRunner
from tournaments.schedule import MatchSpec, build_schedule, clash, deal_key, make_jobs
from tournaments.sprt_run import default_out, fingerprint, format_report, journal_report, report


def tri(wins: int, losses: int, draws: int) -> list[int]:
    """fastchess's ``Stats(wins, losses, draws)`` as counts by score."""
    return [losses, draws, wins]


def penta(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> list[int]:
    """fastchess's pentanomial ``Stats(ll, ld, wl, dd, wd, ww)`` as counts by pair points."""
    return [ll, ld, wl + dd, wd, ww]


# fastchess app/tests/sprt_test.cpp: the counts, the test and the LLR it expects (to 1%).
FASTCHESS_LLR = [
    (tri(36433, 36027, 68692), SprtSettings(0, 2, model="normalized"), 0.92),
    (tri(10871, 10650, 20431), SprtSettings(-1.75, 0.25, model="normalized"), 2.30),
    (tri(4250, 0, 0), SprtSettings(0, 10, model="normalized"), 120.56),
    (tri(21404, 21184, 40708), SprtSettings(0.5, 2.5), -1.57),
    (tri(57433, 57030, 106593), SprtSettings(0, 2), -2.59),
    (penta(365, 16618, 36029, 200, 16974, 390), SprtSettings(0, 2, model="normalized"), 2.25),
    (penta(127, 4883, 10311, 401, 5150, 104), SprtSettings(-1.75, 0.25, model="normalized"), 3.01),
    (penta(0, 0, 0, 0, 0, 5550), SprtSettings(0, 5, model="normalized"), 111.82),
    (penta(223, 9863, 20279, 1000, 10037, 246), SprtSettings(0.5, 2.5), -3.07),
    (penta(871, 26175, 55003, 980, 26678, 821), SprtSettings(0, 2), -4.98),
]


@pytest.mark.parametrize(("counts", "settings", "expected"), FASTCHESS_LLR)
def test_the_llr_is_fastchesss(counts: list[int], settings: SprtSettings, expected: float) -> None:
    assert float(llr(counts, settings)) == pytest.approx(expected, rel=0.01, abs=0.01)


def test_many_llrs_at_once_are_each_ones_own() -> None:
    rows = np.array([[3, 1, 7], [10, 0, 2], [0, 0, 9], [5, 5, 5]])
    at_once = llr(rows, SprtSettings(0, 50))
    one_by_one = [float(llr(row, SprtSettings(0, 50))) for row in rows]
    assert at_once == pytest.approx(one_by_one, rel=1e-9)
    assert at_once[2] > 0 > at_once[1]  # all wins lean to H1, mostly losses to H0


def test_the_elo_interval_nelo_and_los_are_fastchesss() -> None:
    # fastchess app/tests/elo_test.cpp, EloWDL 1 and 2, EloPentanomial 1 and 2.
    e = estimate(tri(76, 89, 123))
    assert e is not None
    assert e.nelo == pytest.approx(-20.76, abs=0.01) and e.nelo_error == pytest.approx(40.13, 0.01)
    assert e.los == pytest.approx(0.1553, abs=1e-4) and e.score == pytest.approx(0.477, abs=1e-3)
    e = estimate(tri(136, 96, 111))
    assert e is not None
    assert e.elo == pytest.approx(40.70, abs=0.01) and e.error == pytest.approx(30.43, abs=0.01)
    assert e.los == pytest.approx(0.9960, abs=1e-4)
    e = estimate(penta(34, 54, 31, 32, 64, 75))
    assert e is not None
    assert e.elo == pytest.approx(55.58, abs=0.01) and e.error == pytest.approx(27.65, abs=0.01)
    assert e.nelo == pytest.approx(57.94, abs=0.01) and e.nelo_error == pytest.approx(28.28, 0.01)
    e = estimate(penta(332, 433, 457, 41, 333, 334))
    assert e is not None
    assert e.elo == pytest.approx(-8.64, abs=0.01) and e.los == pytest.approx(0.0505, abs=1e-4)
    assert estimate([0, 0, 0]) is None


def test_the_bounds_are_walds_and_bad_settings_are_named() -> None:
    s = SprtSettings(alpha=0.05, beta=0.05)
    assert s.upper == pytest.approx(math.log(19)) and s.lower == pytest.approx(-math.log(19))
    assert SprtSettings(elo0=5, elo1=5).problem() == "elo0 (5) must be less than elo1 (5)"
    assert "alpha must be between 0 and 1" in str(SprtSettings(alpha=1.5).problem())
    assert "alpha + beta" in str(SprtSettings(alpha=0.6, beta=0.5).problem())
    assert "max_matches must be an even number" in str(SprtSettings(max_matches=7).problem())
    assert SprtSettings().problem() is None


# --- the error rates, simulated ---------------------------------------------------------------

# Runs per hypothesis. At H0 they are enough to tell alpha from twice alpha: a test whose true
# false-H1 rate were 2 * 0.05 (measured: 0.087 to 0.092 over 4,000 runs of each kind below)
# passes the bound of 1,500 runs with probability 0.003. At H1, 400 runs tell beta = 0.10 from
# 0.20 as surely.
RUNS_H0 = 1_500
RUNS_H1 = 400
# The measured rate may exceed the nominal one by 3 standard errors of a share of the runs
# (one-sided, 99.9%): beyond that the test is wrong, not unlucky. The seed is fixed, so the
# figures are the same on every machine and at every speed.
SLACK = 3.0


def pair_probabilities(score: float, rho: float) -> list[float]:
    """Pairs of matches won with probability ``score`` each, correlated ``rho`` (no draws)."""
    both = score * score + rho * score * (1 - score)
    neither = (1 - score) ** 2 + rho * score * (1 - score)
    return [neither, 0.0, 1.0 - both - neither, 0.0, both]


def bound(rate: float, runs: int) -> float:
    return rate + SLACK * math.sqrt(rate * (1 - rate) / runs)


UNITS = [
    ("trinomial", lambda s: [1 - s, 0.0, s]),
    ("pentanomial, pairs correlated -0.5", lambda s: pair_probabilities(s, -0.5)),
    ("pentanomial, pairs correlated +0.4", lambda s: pair_probabilities(s, 0.4)),
]
# Wide hypotheses keep the runs short; the error rates do not depend on the width.
WIDE = SprtSettings(elo0=0, elo1=60, alpha=0.05, beta=0.10, max_matches=100_000)


@pytest.mark.parametrize(("name", "unit"), UNITS)
def test_simulated_error_rates_are_within_alpha_and_beta(
    name: str, unit: Callable[[float], list[float]]
) -> None:
    rng = np.random.default_rng(20260101)
    at_h0 = simulate(unit(elo_to_score(WIDE.elo0)), WIDE, RUNS_H0, rng, chunk=64)
    at_h1 = simulate(unit(elo_to_score(WIDE.elo1)), WIDE, RUNS_H1, rng, chunk=64)
    assert at_h0.share(-1) == at_h1.share(-1) == 0.0  # every run decided before the maximum
    assert at_h0.share(1) <= bound(WIDE.alpha, RUNS_H0), name  # H1 accepted though H0 is true
    assert at_h1.share(0) <= bound(WIDE.beta, RUNS_H1), name  # H0 accepted though H1 is true
    assert at_h0.units.mean() < 2_000  # and the test is sequential: it stops early


def test_the_error_rate_test_tells_alpha_from_twice_alpha() -> None:
    # The same measurement of a test run with twice the alpha: its false-H1 rate is over the
    # bound, so a test that erred twice as often as it says could not pass the one above.
    doubled = SprtSettings(elo0=0, elo1=60, alpha=0.10, beta=0.10, max_matches=100_000)
    rng = np.random.default_rng(20260101)
    at_h0 = simulate(UNITS[0][1](0.5), doubled, RUNS_H0, rng, chunk=64)
    assert at_h0.share(1) > bound(WIDE.alpha, RUNS_H0)


def test_counting_correlated_pairs_as_matches_breaks_the_error_rate() -> None:
    # Why pairs that share a deal are counted as pairs: with their results correlated +0.6,
    # a trinomial count of the same matches accepts H1 wrongly far more often than alpha.
    settings = SprtSettings(elo0=0, elo1=60, alpha=0.05, beta=0.05, max_matches=100_000)
    as_matches = [[2, 0, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 2]]
    rng = np.random.default_rng(7)
    wrong = simulate(pair_probabilities(0.5, 0.6), settings, RUNS_H1, rng, increments=as_matches)
    right = simulate(pair_probabilities(0.5, 0.6), settings, RUNS_H1, rng)
    assert wrong.share(1) > bound(settings.alpha, RUNS_H1)
    assert right.share(1) <= bound(settings.alpha, RUNS_H1)


def game_scores(categories: list[int], paired: bool, rng: random.Random) -> list[float]:
    """Match scores, in the schedule's order, whose units are ``categories``; a pair's points
    are split between its two matches in any way that sums right (1 point: a win and a loss
    either way round, or two matches without a winner)."""
    if not paired:
        return [c / 2 for c in categories]
    splits = {0: [(0.0, 0.0)], 1: [(0.5, 0.0), (0.0, 0.5)], 2: [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)]}
    splits |= {3: [(1.0, 0.5), (0.5, 1.0)], 4: [(1.0, 1.0)]}
    return [score for c in categories for score in rng.choice(splits[c])]


@pytest.mark.parametrize(
    ("name", "settings", "probabilities", "runs"),
    [
        ("trinomial at H0", WIDE, [0.5, 0.0, 0.5], 40),
        ("pentanomial at H1", WIDE, pair_probabilities(elo_to_score(60), 0.4), 40),
        # Fewer: each normalized LLR is ten constrained fits.
        ("normalized, with draws", replace(WIDE, model="normalized"), [0.3, 0.35, 0.35], 12),
    ],
)
def test_the_class_that_decides_real_runs_decides_as_the_simulation_on_the_same_draws(
    name: str, settings: SprtSettings, probabilities: list[float], runs: int
) -> None:
    # The error rates above are measured on simulate(); here every simulated run is played
    # again through SequentialTest, from the same draws, as a run's match results: each must
    # end with the same decision, at the same unit, on the same counts.
    chunk = 256
    paired = len(probabilities) == 5
    order = random.Random(11)
    decided = {"H0": 0, "H1": 0}
    for run in range(runs):
        sim = simulate(probabilities, settings, 1, np.random.default_rng([7, run]), chunk=chunk)
        # The same generator, drawn from as simulate() draws: a chunk of units at a time.
        rng = np.random.default_rng([7, run])
        categories: list[int] = []
        while len(categories) < sim.units[0]:
            categories += [
                int(c) for c in rng.choice(len(probabilities), (1, chunk), p=probabilities)[0]
            ]
        results = list(enumerate(game_scores(categories, paired, order), start=1))
        order.shuffle(results)  # matches finish in any order
        test = SequentialTest(settings, paired=paired)
        for at in range(0, len(results), 97):
            test.extend(results[at : at + 97])
        expected = {1: "H1", 0: "H0", -1: None}[int(sim.decisions[0])]
        assert (test.decision, test.units) == (expected, int(sim.units[0])), (name, run)
        counted = np.bincount(categories[: test.units], minlength=len(probabilities))
        assert test.counts == counted.tolist(), (name, run)
        assert test.value == pytest.approx(float(llr(test.counts, settings)), rel=1e-9)
        assert test.beyond == len(results) - test.matches
        if test.decision is not None:
            decided[test.decision] += 1
    assert sum(decided.values()) == runs, name  # every run decided within its chunks


# --- counting in the schedule's order ---------------------------------------------------------


def scores(n: int, seed: int, p: float) -> list[tuple[int, float]]:
    rng = random.Random(seed)
    return [(g, 1.0 if rng.random() < p else 0.0) for g in range(1, n + 1)]


def test_the_decision_does_not_depend_on_the_order_matches_finish_in() -> None:
    settings = SprtSettings(elo0=0, elo1=60, max_matches=2000)
    results = scores(2000, 3, 0.62)
    in_order = SequentialTest(settings, paired=True)
    for game, score in results:
        in_order.add(game, score)
    shuffled = SequentialTest(settings, paired=True)
    mixed = results[:]
    random.Random(4).shuffle(mixed)
    for game, score in mixed:
        shuffled.add(game, score)
    at_once = SequentialTest(settings, paired=True)
    at_once.extend(results)
    assert in_order.decision == "H1"
    for other in (shuffled, at_once):
        assert (other.decision, other.units, other.counts) == (
            in_order.decision,
            in_order.units,
            in_order.counts,
        )
        assert other.value == pytest.approx(in_order.value)
    # Matches after the decision are kept apart, never counted.
    assert in_order.beyond == 2000 - in_order.matches > 0


def test_a_pair_waits_for_both_its_matches() -> None:
    test = SequentialTest(SprtSettings(elo0=0, elo1=60, max_matches=20), paired=True)
    test.add(2, 1.0)
    test.add(3, 1.0)
    test.add(4, 0.0)
    assert test.units == 0 and test.beyond == 3  # pair 1 lacks game 1
    test.add(1, 0.5)
    assert test.units == 2 and test.counts == [0, 0, 1, 1, 0]  # 1.5 points, then 1
    trinomial = SequentialTest(SprtSettings(elo0=0, elo1=60, max_matches=20), paired=False)
    trinomial.extend([(1, 1.0), (2, 0.5), (4, 0.0)])
    assert trinomial.units == 2 and trinomial.counts == [0, 1, 1]


def test_a_test_that_reaches_its_maximum_is_inconclusive() -> None:
    test = SequentialTest(SprtSettings(elo0=0, elo1=10, max_matches=8), paired=True)
    test.extend(scores(8, 1, 0.5))
    assert test.finished and test.decision is None and test.units == 4
    text = format_report(report(test, "new", "old"))
    assert "inconclusive: no bound was crossed after 4 pairs (8 matches, the maximum of 8)" in text


def test_one_match_after_the_decision_is_one_match() -> None:
    test = SequentialTest(SprtSettings(elo0=0, elo1=400, max_matches=100), paired=False)
    k = 0
    while test.decision is None:
        k += 1
        test.add(k, 1.0)
    test.add(k + 1, 1.0)
    assert test.beyond == 1
    text = format_report(report(test, "new", "old"))
    assert "Not counted: 1 finished match after the decision (or after" in text


# --- the tournament file ----------------------------------------------------------------------

BOTS = '\n[[bots]]\nname = "new"\ncommand = "x"\n\n[[bots]]\nname = "old"\ncommand = "y"\n'


def test_an_sprt_section_is_read_and_its_mistakes_named_by_line() -> None:
    text = 'format = "sprt"\nduplicate = true\n[sprt]\nelo0 = -2\nelo1 = 3\nmodel = "normalized"\n'
    config = parse_text(text + BOTS, "t.toml")
    assert config.sprt == SprtSettings(elo0=-2, elo1=3, model="normalized")
    assert config.identity()["sprt"]["elo1"] == 3
    cases = [
        ('format = "sprt"\n[sprt]\nelo0 = 5\nelo1 = 1\n', "t.toml:3: sprt.elo0: elo0 (5) must"),
        ('format = "sprt"\n[sprt]\nalpha = 2\n', "t.toml:3: sprt.alpha: alpha must be between"),
        ('format = "sprt"\n[sprt]\nmodel = "bayes"\n', "t.toml:3: sprt.model: 'bayes' is not"),
        ('format = "sprt"\n[sprt]\nmax_matches = 9\n', "t.toml:3: sprt.max_matches: max_matc"),
        ('format = "sprt"\n[sprt]\nelo2 = 9\n', "t.toml:3: sprt.elo2: unknown key"),
        ("[sprt]\nelo1 = 9\n", 't.toml:1: sprt: the [sprt] table is for format = "sprt"'),
        ('format = "sprt"\nrounds = 2\n', "t.toml:2: rounds: format sprt plays up to"),
    ]
    for bad, message in cases:
        with pytest.raises(TournamentFileError) as caught:
            parse_text(bad + BOTS, "t.toml")
        assert str(caught.value).startswith(message), (bad, str(caught.value))
    three = BOTS + '\n[[bots]]\nname = "third"\ncommand = "z"\n'
    with pytest.raises(TournamentFileError) as caught:
        parse_text('format = "sprt"\n' + three, "t.toml")
    assert str(caught.value).startswith("t.toml:1: format: format sprt tests one bot")


def test_the_schedule_holds_the_most_matches_and_kept_series_come_in_order() -> None:
    config = parse_text('format = "sprt"\nduplicate = true\n[sprt]\nmax_matches = 40\n' + BOTS)
    specs = build_schedule(config, deal_key(1))
    assert len(specs) == 40
    assert [s.seats for s in specs[:2]] == [("new", "old"), ("old", "new")]
    assert specs[0].seed == specs[1].seed != specs[2].seed  # a pair shares its deal
    jobs = make_jobs(specs, keep=True, lanes=2, chunk=10)
    # The two matches of a pair in different series (a kept process would know the deck of the
    # second), the series in order of their first match: pairs 1-10 in the first two, 11-20 in
    # the last two, each pair's two series never played at once.
    assert [j.matches[0].game for j in jobs] == [1, 2, 21, 22]
    assert all(len(j.matches) == 10 for j in jobs)
    assert all(len({m.seed for m in j.matches}) == 10 for j in jobs)
    assert clash(jobs[0], jobs[1]) and not clash(jobs[0], jobs[2])


# --- a run that stops when the test decides ----------------------------------------------------


def sprt_config(tmp_path: Path, extra: str = "") -> TournamentConfig:
    text = f'format = "sprt"\nseed = 5\nduplicate = true\n{extra}\n[sprt]\nelo0 = 0\nelo1 = 100\n'
    text += "max_matches = 400\n"
    config = parse_text(text + BOTS, "t.toml")
    return config.with_changes(out=str(tmp_path / "out"), check_bots=False)


def run(config: TournamentConfig, executor: Scripted, lanes: int) -> str:
    runner = TournamentRunner(config)
    try:
        result = asyncio.run(runner.run(concurrency=lanes, executor=executor))
        return result.status
    finally:
        runner.close()


@pytest.mark.parametrize("lanes", [1, 2])
def test_a_run_stops_when_the_test_decides_and_a_resumed_one_plays_nothing(
    tmp_path: Path, lanes: int
) -> None:
    def new_wins_three_in_four(spec: MatchSpec) -> str:
        return "old" if spec.game % 4 == 0 else "new"

    config = sprt_config(tmp_path)
    executor = Scripted(new_wins_three_in_four)
    assert run(config, executor, lanes) == "complete"
    runner = TournamentRunner(config)
    try:
        test = journal_report(runner.journal)
        assert runner.remaining() == [] and runner.complete
    finally:
        runner.close()
    assert test is not None and test.decision == "H1"
    # Every match counted was played, and beyond the decision only what other lanes had begun.
    assert test.matches <= len(executor.played) <= test.matches + 2 * (lanes - 1)
    assert test.matches < 400
    again = Scripted(new_wins_three_in_four)
    assert run(config, again, lanes) == "complete"
    assert again.played == []


# --- the command line ------------------------------------------------------------------------


def test_a_paired_test_deals_by_seat_unless_told_otherwise() -> None:
    assert paired_rules("pagat", {}, duplicate=True) == (("deal_order", "seat0_first"),)
    assert paired_rules("pagat", {}, duplicate=False) == ()
    usual = {"deal_order": "non_dealer_first"}
    assert paired_rules("pagat", usual, duplicate=True) == (("deal_order", "non_dealer_first"),)
    assert paired_rules("rlcard", {}, duplicate=True) == ()  # eleven cards: R2.5 keeps the order


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--elo0", "10", "--elo1", "5"], "Error: elo0 (10) must be less than elo1 (5)\n"),
        (["--alpha", "0"], "Error: alpha must be between 0 and 1 (exclusive), got 0\n"),
        (["--max-matches", "9"], "Error: max_matches must be an even number of at least 2"),
        (["--new-name", "x", "--old-name", "x"], "Error: the two bots need different names"),
        (["--new-name", "a b"], "Error: bot name 'a b': use 1 to 40 letters"),
        (["--set", "deal_order=sideways"], "Error: deal_order = 'sideways' is not one of"),
        (["--deals", "/nonexistent/deals.txt"], "Error: cannot read the deal set"),
    ],
)
def test_ginref_sprt_says_what_is_wrong_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["sprt", "x", "y", "--out", str(out), *args])
    assert result.exit_code == 1
    assert result.output.startswith(message) and result.output.count("\n") == 1
    assert not out.exists()  # nothing started


def test_each_pair_of_command_lines_has_its_own_default_directory() -> None:
    def out(new: str, old: str) -> Path:
        return default_out(bot_entry("new", new), bot_entry("old", old))

    first = out("python -m bots.greedy_bot --depth 3", "./build/old_bot")
    assert first == out("python -m bots.greedy_bot --depth 3", "./build/old_bot")
    assert first.parent == Path("runs/sprt") and first.name.startswith("greedy_bot-vs-old_bot-")
    assert out("python -m bots.greedy_bot --depth 4", "./build/old_bot") != first


def test_a_fingerprint_changes_with_the_files_a_bot_runs_and_only_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = tmp_path / "pkg" / "bot.py"
    code.parent.mkdir()
    code.write_text("print('v1')\n")
    monkeypatch.chdir(tmp_path)
    named = bot_entry("b", f"python {code}")
    module = bot_entry("b", "python -m pkg.bot")
    in_dir = replace(bot_entry("b", "python bot.py"), dirs=(str(code.parent),))
    bots = (named, module, in_dir)
    before = [fingerprint(b) for b in bots]
    (code.parent / "__pycache__").mkdir()  # what a run leaves behind is not the bot
    (code.parent / "__pycache__" / "bot.pyc").write_bytes(b"\0")
    assert [fingerprint(b) for b in bots] == before
    code.write_text("print('v2')\n")
    after = [fingerprint(b) for b in bots]
    assert all(a != b for a, b in zip(after, before, strict=True))
    assert fingerprint(bot_entry("b", f"python {code} --fast")) != after[0]  # the command too
    # Past the bound, a file is known by its name and size only: a new file still shows, an
    # edit that keeps the size does not (the price of a quick start beside a large data set).
    monkeypatch.setattr("tournaments.sprt_run.MAX_FILES", 0)
    bounded = fingerprint(in_dir)
    code.write_text("print('v3')\n")
    assert fingerprint(in_dir) == bounded
    (code.parent / "weights.bin").write_bytes(b"\1" * 10)
    assert fingerprint(in_dir) != bounded


def test_an_estimate_near_zero_reads_plus_zero() -> None:
    from tournaments.sprt_run import _elo

    assert [_elo(v) for v in (-0.04, 0.04, -0.06, float("-inf"))] == [
        "+0.0",
        "+0.0",
        "-0.1",
        "-inf",
    ]
