"""``ginref tournament`` end to end with real bot processes: standings, duplicate deals, resume
after SIGKILL, Ctrl-C, a bot that crashes in every match, bad files, and journal rows that come
from the referee's outcome, not from a log file a bot could rewrite."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import tournaments.executors.local
from ginref.cli import main
from referee.results import MatchOutcome
from referee.timeline import load_replay
from replays.verify import check_file
from tests.support.referee_helpers import TESTBOT, assert_log_agrees, of_type
from tournaments.journal.audit import said_by
from tournaments.journal.records import MatchRecord, record_from_outcome
from tournaments.journal.store import open_journal
from tournaments.results.standings import load_standings

pytestmark = pytest.mark.slow  # real tournaments of real bot processes

ROOT = Path(__file__).resolve().parents[2]
PLAY = f"{{python}} {TESTBOT} play"  # knocks as soon as it may: short matches
FIRST = f"{{python}} {TESTBOT} first"  # always the first legal action: loses to both others
GREEDY = "{python} -m sample_bots.greedy_bot"
CRASHER = f"{{python}} {TESTBOT} crash 1"  # exits with code 3 at its first decision
ONCE = f"{{python}} {TESTBOT} illegal_once"  # one illegal action, forgiven with --retries 1
LATE_CRASHER = f"{{python}} {TESTBOT} crash 4"  # exits at its fourth decision


def tournament_file(
    tmp_path: Path, bots: list[tuple[str, str]], extra: str = "", name: str = "t.toml"
) -> Path:
    text = f'name = "t"\nseed = 42\n{extra}\n[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n'
    for bot, command in bots:
        text += f'\n[[bots]]\nname = "{bot}"\ncommand = "{command}"\n'
    path = tmp_path / name
    path.write_text(text)
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def records_of(directory: Path) -> list[MatchRecord]:
    journal = open_journal(directory, create=False)
    try:
        return journal.records()
    finally:
        journal.close()


def check_journal_matches_disk(directory: Path) -> list[MatchRecord]:
    """Every scheduled match once, every log present with its hash, no other log on disk."""
    journal = open_journal(directory, create=False)
    try:
        records = journal.records()
        schedule = journal.schedule()
    finally:
        journal.close()
    assert [r.key for r in records] == [s.key for s in schedule]
    for r in records:
        raw = (directory / r.log_path).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == r.log_sha256
    on_disk = {str(p.relative_to(directory)) for p in (directory / "logs").rglob("*.jsonl")}
    assert on_disk == {r.log_path for r in records}
    return records


def test_a_small_round_robin_completes_with_correct_standings(tmp_path: Path) -> None:
    out = tmp_path / "rr"
    file = tournament_file(
        tmp_path, [("play", PLAY), ("first", FIRST), ("greedy", GREEDY)], "matches = 2"
    )
    code, text = run("tournament", str(file), "--out", str(out), "-j", "2")
    assert code == 0, text
    assert "Tournament complete: 6 of 6 matches" in text
    assert text.count("] play.first.") == 2 and "[6/6]" in text  # one line per match
    records = check_journal_matches_disk(out)
    for r in records[:2]:
        assert_log_agrees(out / r.log_path)
    standings = load_standings(out)
    by = {s.name: s for s in standings.bots}
    for bot in by:
        mine = [r for r in records if bot in r.seats]
        assert by[bot].matches == len(mine) == 4
        assert by[bot].wins == sum(r.winner_bot == bot for r in mine)
        assert by[bot].hands_won == sum(h.winner == r.seat_of(bot) for r in mine for h in r.hands)
    assert by["first"].wins == 0 and by["first"].losses == 4 and standings.bots[-1].name == "first"
    assert sum(s.points for s in standings.bots) == 6
    assert standings.head_to_head[("greedy", "first")].wins == 2
    assert all(s.fault_total == 0 for s in standings.bots)
    assert all(s.elo is not None for s in standings.bots)
    assert by["first"].elo is not None and by["first"].elo < 0
    # The report and the files.
    assert "Standings: t, 6 of 6 matches" in text and "Head to head" in text
    data = json.loads((out / "standings.json").read_text())
    assert [b["name"] for b in data["bots"]] == [s.name for s in standings.bots]
    assert (out / "standings.csv").read_text().startswith("rank,name,matches,wins")
    assert (out / "crosstable.csv").read_text().startswith("bot,")
    # ginref standings prints the same table from the journal.
    code, again = run("standings", str(out))
    assert code == 0 and again.strip() in text
    code, csv_text = run("standings", str(out), "--format", "csv")
    assert code == 0 and csv_text == (out / "standings.csv").read_text()
    # Running the same command again has nothing left to play.
    code, text = run("tournament", str(file), "--out", str(out), "-j", "2")
    assert code == 0 and "this run played 0" in text


def test_duplicate_deals_pair_the_same_cards_with_seats_swapped_and_reproduce(
    tmp_path: Path,
) -> None:
    file = tournament_file(
        tmp_path,
        [("greedy", GREEDY), ("play", PLAY)],
        'matches = 4\nduplicate = true\nprocesses = "keep"',
    )
    outs = [tmp_path / "one", tmp_path / "two"]
    for out in outs:
        code, text = run("tournament", str(file), "--out", str(out), "-j", "1")
        assert code == 0, text
    assert "Duplicate deals" in text and "greedy v play: 2 deal pairs" in text
    records = check_journal_matches_disk(outs[0])
    assert len(records) == 4
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first.deal == second.deal and first.seed == second.seed
        assert second.seats == (first.seats[1], first.seats[0])
        deal_a = of_type(outs[0] / first.log_path, "deal")[0]
        deal_b = of_type(outs[0] / second.log_path, "deal")[0]
        # Same deck, same dealer seat, bots swapped: each bot got the other's cards.
        assert deal_a["deck"] == deal_b["deck"] and deal_a["dealer"] == deal_b["dealer"]
    # A kept process never plays both matches of a pair (it would know the second's deck): the
    # twins are in two series, games 1 and 4 in one, 2 and 3 in the other, each series one
    # process pair (only its first match paid the start-up).
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert Path(first.log_path).parent != Path(second.log_path).parent
    games = {int(r.key.rsplit(".", 1)[1]): r for r in records}
    assert Path(games[1].log_path).parent == Path(games[4].log_path).parent
    assert [games[g].startup_s is None for g in (1, 2, 3, 4)] == [False, False, True, True]
    (dup,) = load_standings(outs[0]).duplicate
    assert [p.deal for p in dup.pairs] == [1, 2]
    for pair, (a, b) in zip(dup.pairs, zip(records[::2], records[1::2], strict=True), strict=True):
        assert pair.x_score == a.final[a.seat_of("greedy")] + b.final[b.seat_of("greedy")]
        assert pair.y_score == a.final[a.seat_of("play")] + b.final[b.seat_of("play")]
    # The same file run twice with deterministic bots: the same matches, move for move.
    again = records_of(outs[1])

    def moves(directory: Path, record: MatchRecord) -> list[object]:
        return [(d["seat"], d["action"]) for d in of_type(directory / record.log_path, "decision")]

    for a, b in zip(records, again, strict=True):
        assert (a.key, a.seed, a.seats, a.winner, a.final, a.hands) == (
            b.key,
            b.seed,
            b.seats,
            b.winner,
            b.final,
            b.hands,
        )
        assert moves(outs[0], a) == moves(outs[1], b)


def test_a_run_killed_with_sigkill_resumes_with_exactly_the_scheduled_matches(
    tmp_path: Path,
) -> None:
    out = tmp_path / "killed"
    file = tournament_file(
        tmp_path, [("play", PLAY), ("first", FIRST), ("greedy", GREEDY)], "matches = 4"
    )
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "--out", str(out)]
    proc = subprocess.Popen(
        [*argv, "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:  # one line per committed match (stdout is not a terminal)
        seen.append(line)
        if len([s for s in seen if s.startswith("[")]) == 3:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    before = {r.key: r.log_sha256 for r in records_of(out)}
    assert 3 <= len(before) < 12
    # What the killed run left unfinished (a partial log, bot output), plus a planted one.
    stray = tmp_path / "killed" / "logs" / "play.first" / "m004"
    stray.mkdir(parents=True, exist_ok=True)
    (stray / "20260101-000000-s1-abcdef.jsonl").write_text('{"type":"header"}\n')
    (stray / "20260101-000000-s1-abcdef.seat0.play.log").write_text("")

    code, text = run("tournament", str(file), "--out", str(out), "-j", "2")
    assert code == 0, text
    records = check_journal_matches_disk(out)  # all 12, once each, no stray log
    assert len(records) == 12
    assert {r.key: r.log_sha256 for r in records if r.key in before} == before
    assert f"this run played {12 - len(before)} " in text
    assert not any(p.name.startswith("20260101-000000") for p in out.rglob("*"))
    journal = open_journal(out, create=False)
    try:
        sessions = journal.sessions()
    finally:
        journal.close()
    assert [s["status"] for s in sessions] == ["running", "complete"]  # the first was killed
    assert sessions[1]["played"] == 12 - len(before)


def test_ctrl_c_stops_cleanly_with_a_summary(tmp_path: Path) -> None:
    out = tmp_path / "stopped"
    file = tournament_file(tmp_path, [("play", PLAY), ("greedy", GREEDY)], "matches = 8")
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "--out", str(out)]
    proc = subprocess.Popen(
        [*argv, "-j", "1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("[1/8]"):
            break
    proc.send_signal(signal.SIGINT)
    rest = proc.stdout.read()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 130, rest
    assert "Stopping" in rest and "Interrupted:" in rest and "Run the same command again" in rest
    assert "Standings: t," in rest and "Traceback" not in rest
    records = records_of(out)
    assert 1 <= len(records) < 8
    on_disk = {str(p.relative_to(out)) for p in (out / "logs").rglob("*.jsonl")}
    assert on_disk == {r.log_path for r in records}  # the abandoned match left nothing


@pytest.mark.parametrize("processes", ["fresh", "keep"])
def test_a_bot_that_crashes_in_every_match_is_charged_and_the_tournament_goes_on(
    tmp_path: Path, processes: str
) -> None:
    out = tmp_path / processes
    file = tournament_file(
        tmp_path,
        [("play", PLAY), ("crasher", CRASHER), ("greedy", GREEDY)],
        f'matches = 2\nprocesses = "{processes}"',
    )
    code, text = run("tournament", str(file), "--out", str(out), "-j", "2")
    assert code == 0, text
    records = check_journal_matches_disk(out)
    assert len(records) == 6
    by = {s.name: s for s in load_standings(out).bots}
    crasher = by["crasher"]
    assert (crasher.matches, crasher.wins, crasher.losses, crasher.forfeits) == (4, 0, 4, 4)
    assert crasher.fault_total == 4 and crasher.faults["crashed"] == 4
    assert by["play"].fault_total == 0 and by["greedy"].fault_total == 0
    for r in records:
        if "crasher" in r.seats:
            assert r.forfeit is not None and r.forfeit.kind == "crashed"
            assert r.forfeit.seat == r.seat_of("crasher")
    # The other pairing played real matches.
    (other,) = [r for r in records if set(r.seats) == {"play", "greedy"}][:1]
    assert other.forfeit is None and other.hands


def test_bad_tournament_files_and_options_get_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "t"\nmatchs = 2\n[[bots]]\nname = "a"\ncommand = "x"\n')
    code, text = run("tournament", str(bad), "--out", str(tmp_path / "o"))
    assert code == 1 and "Traceback" not in text
    assert f"Error: {bad}:2: matchs: unknown key (did you mean 'matches'?)" in text
    code, text = run("tournament", str(tmp_path / "none.toml"))
    assert code == 1 and "cannot read the tournament file" in text
    good = tournament_file(tmp_path, [("a", PLAY), ("b", PLAY)], "matches = 3", "good.toml")
    code, text = run("tournament", str(good), "--duplicate", "--out", str(tmp_path / "o"))
    assert code == 1 and "matches per pairing must be even" in text
    code, text = run("tournament", str(good), "--set", "colour=red", "--out", str(tmp_path / "o"))
    assert code == 1 and "unknown rule parameter 'colour'" in text
    code, text = run("tournament", str(good), "--format", "gauntlet", "--out", str(tmp_path / "o"))
    assert code == 1 and "a gauntlet needs at least one challenger" in text
    code, text = run("standings", str(tmp_path / "nowhere"))
    assert code == 1 and "no tournament journal" in text
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").rglob("*.jsonl"))


def test_a_journal_refuses_a_different_tournament(tmp_path: Path) -> None:
    out = tmp_path / "o"
    file = tournament_file(tmp_path, [("a", PLAY), ("b", FIRST)], "matches = 1")
    code, text = run("tournament", str(file), "--out", str(out), "-j", "1")
    assert code == 0, text
    code, text = run("tournament", str(file), "--out", str(out), "--matches", "2")
    assert (
        code == 1
        and "belongs to a different tournament: matches differs (1 in the journal, "
        in (" ".join(text.split()))
    )


# --- journal rows from the referee, not from the log file --------------------------------------

FORGED_CREATED = "2000-01-01T00:00:00.000+00:00"


def forged(text: str) -> str:
    """The log as a bot might rewrite it: the other seat wins, no faults, no think time."""
    records = [json.loads(line) for line in text.splitlines()]
    records[0]["created"] = FORGED_CREATED
    end = records[-1]
    if end["winner"] is not None:
        end["winner"] = 1 - end["winner"]
    end["final"] = end["final"][::-1]
    for record in records:
        if record["type"] == "decision":
            record["think_ms"] = 0.0
    kept = [r for r in records if r["type"] != "fault"]
    return "".join(json.dumps(r) + "\n" for r in kept)


def test_the_journal_records_the_referees_outcome_not_the_log_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    originals: dict[str, bytes] = {}
    at_commit: dict[str, bytes] = {}

    def rewrite_then_record(outcome: MatchOutcome, *args: Any, **kwargs: Any) -> MatchRecord:
        # The referee has closed the log and called on_match_finished: a bot rewrites the
        # file in this moment, before the executor builds the record.
        path = outcome.log_path
        originals[outcome.match_id] = path.read_bytes()
        path.write_text(forged(path.read_text()))
        at_commit[outcome.match_id] = path.read_bytes()
        return record_from_outcome(outcome, *args, **kwargs)

    monkeypatch.setattr(tournaments.executors.local, "record_from_outcome", rewrite_then_record)
    file = tournament_file(
        tmp_path, [("play", PLAY), ("once", ONCE), ("crash", LATE_CRASHER)], "matches = 1"
    )
    # In-process (--workers 0), where the patch above reaches: a worker runs the same
    # LocalExecutor in a process of its own.
    argv = ["tournament", str(file), "--out", str(out), "-j", "2", "--retries", "1"]
    code, text = run(*argv, "--workers", "0")
    assert code == 0, text
    records = records_of(out)
    assert len(records) == 3 and set(originals) == {r.match_id for r in records}
    kinds = {f.kind for r in records for f in r.faults}
    assert {"illegal_action", "crashed"} <= kinds  # a retried fault and a forfeit among them
    assert any(f.retry for r in records for f in r.faults)

    for record in records:
        original = tmp_path / f"{record.key}.jsonl"
        original.write_bytes(originals[record.match_id])
        assert check_file(original).ok
        expected = said_by(load_replay(original))
        assert {key: getattr(record, key) for key in expected} == expected, record.key
        # The fingerprint is of the bytes the referee wrote, hashed as it wrote them: the
        # rewritten file does not match its row, and ginref verify refuses it too.
        rewritten = out / record.log_path
        assert rewritten.read_bytes() == at_commit[record.match_id]
        assert record.log_sha256 == hashlib.sha256(originals[record.match_id]).hexdigest()
        assert record.log_bytes == len(originals[record.match_id])
        assert record.log_sha256 != hashlib.sha256(rewritten.read_bytes()).hexdigest()
        assert not check_file(rewritten).ok
        assert record.started != FORGED_CREATED and record.decisions != (0, 0)

    # After the match is journaled: rewriting its log again (here: back to the true one) and
    # running the tournament again changes no row.
    monkeypatch.undo()
    first = records[0]
    (out / first.log_path).write_bytes(originals[first.match_id])
    code, text = run(*argv)
    assert code == 0 and "this run played 0" in text, text
    assert records_of(out) == records
