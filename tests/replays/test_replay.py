"""ginref verify, ginref replay's options and --ask on real logs of real matches (greedy v random
bot processes); the terminal view's own tests are in test_replay_view.py.

The logs are played once per session under every profile and two rule sets no profile has
(conftest.py). Tampered copies check that verify names the first event that differs; --ask puts
the greedy bot back into recorded positions and must take the recorded action.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginref.cli import main
from referee.engine.actions import ChooseDeal, Discard, action_to_dict
from referee.engine.cards import card_str
from referee.engine.match import Match
from referee.engine.observation import observe
from referee.engine.outcomes import Phase
from referee.engine.rules import PROFILES, Rules
from referee.fairness import commitment
from referee.series import run_series_async
from referee.timeline import load_replay
from replays.ask import ask, position_at
from replays.verify import check_file
from tests.support.referee_helpers import FAST, bot
from tests.support.replay_helpers import (
    CONFIGS,
    GREEDY,
    GREEDY_COMMAND,
    lines_of,
    page_data,
    page_frames,
    records_of,
    write_lines,
    write_records,
)

pytestmark = pytest.mark.slow  # logs of real matches, and live bots asked about them


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def first_line(records: list[dict[str, Any]], predicate: Any) -> int:
    """The 1-based line of the first record matching ``predicate``."""
    return next(i for i, r in enumerate(records, start=1) if predicate(r))


# --- ginref replay ------------------------------------------------------------------------------


def bad(*args: str) -> str:
    code, out = run(*args)
    assert code != 0
    assert out.count("Error: ") == 1, out
    return out


def test_bad_input_gets_one_clear_error(standard: Path, tmp_path: Path) -> None:
    log = str(standard)
    lines = lines_of(standard)
    missing = tmp_path / "missing.jsonl"
    assert f"{missing}: cannot read it" in bad("replay", str(missing))
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("hello\n")
    assert f"{garbage}: line 1: not a ginref replay log" in bad("replay", str(garbage))
    half = write_lines(tmp_path / "half.jsonl", [*lines[:20], lines[20][:40]])
    assert f"{half}: line 21: not JSON" in bad("replay", str(half))
    foreign = write_records(tmp_path / "foreign.jsonl", [{"name": "x", "value": 1}])
    assert f"{foreign}: line 1: not a ginref replay log" in bad("replay", str(foreign))
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert "not UTF-8" in bad("replay", str(binary))
    assert "--hand 99: the log has hands 1 to" in bad("replay", log, "--hand", "99")
    assert f"{log}: --at 9999: no such event" in bad("replay", log, "--at", "9999")
    assert "line 1 is a header record, not a decision" in bad("replay", log, "--at", "1")
    assert "--ask needs --at" in bad("replay", log, "--ask", "python bot.py")
    assert "--at cannot be combined with --seat" in bad("replay", log, "--at", "5", "--seat", "0")
    assert "--html cannot be combined with --step" in bad("replay", log, "--html", "x", "--step")
    assert "not a valid integer" in bad("replay", log, "--at", "five")


# --- ginref verify ------------------------------------------------------------------------------


def test_verify_passes_untouched_logs_of_every_profile(logs: dict[str, Path]) -> None:
    directory = logs["standard"].parent.parent
    code, out = run("verify", str(directory))
    assert code == 0, out
    ok = [line for line in out.splitlines() if line.startswith("OK ")]
    assert len(ok) == len(CONFIGS) and f"{len(CONFIGS)} of {len(CONFIGS)} logs agree" in out
    profiles = {records_of(path)[0]["rules"]["profile_name"] for path in logs.values()}
    assert profiles == set(PROFILES)


def tampered(tmp_path: Path, source: Path, change: Any, name: str = "t.jsonl") -> Path:
    records = records_of(source)
    change(records)
    return write_records(tmp_path / name, records)


def fails_at(path: Path) -> tuple[int, str]:
    """Verify one log through the CLI: it must fail; return the first problem's line, text."""
    code, out = run("verify", str(path))
    assert code == 1, out
    assert out.startswith("FAIL  "), out
    match = re.search(r"  line (\d+) \((\w+)\): (.*?)(  \(\+\d+ more\))?$", out.splitlines()[0])
    assert match is not None, out
    return int(match.group(1)), match.group(3)


def test_verify_names_an_altered_score(standard: Path, tmp_path: Path) -> None:
    records = records_of(standard)
    line = first_line(records, lambda r: r["type"] == "hand_result")

    def change(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["scores_after"][0] += 1

    at, message = fails_at(tampered(tmp_path, standard, change))
    assert at == line and "scores_after: recorded" in message and "engine" in message
    end = len(records)

    def change_final(rs: list[dict[str, Any]]) -> None:
        rs[-1]["final"][1] += 10

    at, message = fails_at(tampered(tmp_path, standard, change_final, "f.jsonl"))
    assert at == end and "match result: final" in message


def test_verify_checks_the_commitment_to_the_deal(standard: Path, tmp_path: Path) -> None:
    """The header commits to the deal before play; the match result reveals the salt. A seed,
    commitment or salt that does not open it is named at the match result."""
    records = records_of(standard)
    header, end = records[0], records[-1]
    assert (
        commitment(header["seed"], bytes.fromhex(end["deal_salt"])).hex()
        == header["deal_commitment"]
    )
    assert check_file(standard).ok

    def other_salt(rs: list[dict[str, Any]]) -> None:
        rs[-1]["deal_salt"] = "00" * 32

    def other_commitment(rs: list[dict[str, Any]]) -> None:
        rs[0]["deal_commitment"] = "ab" * 32

    def no_salt(rs: list[dict[str, Any]]) -> None:
        del rs[-1]["deal_salt"]

    for name, change in (("s", other_salt), ("c", other_commitment), ("n", no_salt)):
        at, message = fails_at(tampered(tmp_path, standard, change, f"{name}.jsonl"))
        assert at == len(records) and message.startswith("deal commitment"), (name, message)


def test_verify_names_an_altered_card(standard: Path, tmp_path: Path) -> None:
    records = records_of(standard)
    deal = first_line(records, lambda r: r["type"] == "deal")

    def upcard(rs: list[dict[str, Any]]) -> None:
        rs[deal - 1]["upcard"] = "AS" if rs[deal - 1]["upcard"] != "AS" else "AH"

    at, message = fails_at(tampered(tmp_path, standard, upcard, "u.jsonl"))
    assert at == deal and "upcard: recorded" in message

    def deck(rs: list[dict[str, Any]]) -> None:
        d = rs[deal - 1]["deck"]
        d[3], d[40] = d[40], d[3]

    at, message = fails_at(tampered(tmp_path, standard, deck, "d.jsonl"))
    assert at == deal and "not the seed's" in message

    # A discard changed to a card the player does not hold: refused on its own line.
    discard = first_line(
        records, lambda r: r["type"] == "decision" and r["action"]["kind"] == "discard"
    )
    timeline = load_replay(standard)
    step = timeline.step_at(discard)
    assert step is not None
    held = set(observe(step.before, step.record["seat"]).hand)
    foreign = next(c for c in range(52) if c not in held)

    def action(rs: list[dict[str, Any]]) -> None:
        rs[discard - 1]["action"] = action_to_dict(Discard(foreign))

    at, message = fails_at(tampered(tmp_path, standard, action, "a.jsonl"))
    assert at == discard and "refused" in message

    result = first_line(records, lambda r: r["type"] == "hand_result")

    def final_hand(rs: list[dict[str, Any]]) -> None:
        hand = rs[result - 1]["final_hands"][1]
        hand[0] = next(card_str(c) for c in range(52) if card_str(c) not in hand)

    at, message = fails_at(tampered(tmp_path, standard, final_hand, "h.jsonl"))
    assert at == result and "final_hands" in message


def test_verify_names_a_removed_line(standard: Path, tmp_path: Path) -> None:
    lines = lines_of(standard)
    records = records_of(standard)
    for kind in ("draw", "discard"):
        line = [
            i
            for i, r in enumerate(records, start=1)
            if r["type"] == "decision" and r["phase"] == kind
        ][5]
        path = write_lines(tmp_path / f"{kind}.jsonl", lines[: line - 1] + lines[line:])
        at, _ = fails_at(path)
        assert at == line  # the record that took its place
    result = first_line(records, lambda r: r["type"] == "hand_result")
    path = write_lines(tmp_path / "result.jsonl", lines[: result - 1] + lines[result:])
    at, message = fails_at(path)
    assert at == result and "no hand_result record" in message
    path = write_lines(tmp_path / "end.jsonl", lines[:-1])
    code, out = run("verify", str(path))
    assert code == 1 and f"end of file (after line {len(lines) - 1})" in out
    assert "ends before the match result" in out


def test_verify_reports_truncated_foreign_and_unreadable_files(
    standard: Path, tmp_path: Path
) -> None:
    lines = lines_of(standard)
    half = write_lines(tmp_path / "half.jsonl", [*lines[:40], lines[40][:25]])
    foreign = write_records(tmp_path / "foreign.jsonl", [{"type": "tournament", "n": 1}])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(lines[0].encode() + b"\n\xff\xfe\xfd\n")
    code, out = run(
        "verify", str(half), str(foreign), str(empty), str(binary), str(tmp_path / "none"),
        str(standard),
    )  # fmt: skip
    assert code == 1
    shown = out.splitlines()
    assert shown[0].startswith(f"FAIL  {half}  line 41: not JSON")
    assert shown[1].startswith(f"FAIL  {foreign}  line 1: not a ginref replay log")
    assert shown[2] == f"FAIL  {empty}  the file is empty: not a ginref replay log"
    assert shown[3].startswith(f"FAIL  {binary}  line 2: not UTF-8")
    assert shown[4].startswith(f"FAIL  {tmp_path / 'none'}  cannot read it")
    assert shown[5].startswith(f"OK    {standard}")
    assert shown[6] == "1 of 6 logs agree with the engine"


def test_verify_checks_faults(fault_logs: dict[str, Path], tmp_path: Path) -> None:
    for path in fault_logs.values():
        check = check_file(path)
        assert check.ok, check.problems
    path = fault_logs["illegal"]
    records = records_of(path)
    fault = first_line(records, lambda r: r["type"] == "fault")

    def rule(rs: list[dict[str, Any]]) -> None:
        rs[fault - 1]["rule"] = "R5.3"

    at, message = fails_at(tampered(tmp_path, path, rule))
    assert at == fault and "rule: recorded R5.3, engine R4.1" in message

    lines = lines_of(path)
    removed = write_lines(tmp_path / "nofault.jsonl", lines[: fault - 1] + lines[fault:])
    at, message = fails_at(removed)
    assert at == len(lines) - 1 and "no fault record" in message

    retried = records_of(fault_logs["retry"])
    first = first_line(retried, lambda r: r["type"] == "fault")
    assert retried[first - 1]["retry"] is True

    def no_retries(rs: list[dict[str, Any]]) -> None:
        rs[0]["fault_policy"]["retries"] = 0

    at, message = fails_at(tampered(tmp_path, fault_logs["retry"], no_retries, "r.jsonl"))
    assert at == first and "the fault policy allows 0" in message


def test_verify_names_a_changed_phase_and_a_bad_forfeit_seat(
    standard: Path, fault_logs: dict[str, Path], tmp_path: Path
) -> None:
    records = records_of(standard)
    draw = first_line(records, lambda r: r["type"] == "decision" and r["phase"] == "draw")

    def phase(rs: list[dict[str, Any]]) -> None:
        rs[draw - 1]["phase"] = "discard"

    at, message = fails_at(tampered(tmp_path, standard, phase, "p.jsonl"))
    assert (at, message) == (draw, "phase 'discard' recorded, engine in 'draw'")

    # true is not seat 1: JSON booleans are no seat numbers.
    path = fault_logs["crash"]
    end = len(records_of(path))

    def seat_true(rs: list[dict[str, Any]]) -> None:
        rs[-1]["forfeit"]["seat"] = True

    at, message = fails_at(tampered(tmp_path, path, seat_true, "s.jsonl"))
    assert (at, message) == (end, "forfeit: seat True is not 0, 1 or null")

    def no_forfeit(rs: list[dict[str, Any]]) -> None:
        rs[-1]["forfeit"] = None

    at, message = fails_at(tampered(tmp_path, path, no_forfeit, "n.jsonl"))
    assert (at, message) == (end, "the match result is recorded, but the match goes on")


GROUP_FAULTS = {
    # A partner's illegal discard forfeits the team; a crash forfeits one of three; a bot that
    # never connects is at fault before a hand is dealt to it.
    "illegal": (4, ["play", "first", "notinhand", "first"], 41),
    "crash": (3, ["play", "crash", "first"], 51),
    "absent": (4, ["play", "first", "first", "never"], 7),
}


@pytest.mark.parametrize("name", list(GROUP_FAULTS))
def test_verify_and_the_view_read_the_referees_logs_of_faults_of_more_players(
    name: str, tmp_path: Path
) -> None:
    players, modes, seed = GROUP_FAULTS[name]
    bots = [bot(mode, 3 if mode == "crash" else None) for mode in modes]
    rules = Rules.profile("standard", players=players)
    series = asyncio.run(run_series_async(bots, rules, [seed], tmp_path, FAST))
    log = series.matches[0].log_path
    code, out = run("verify", str(log))
    assert code == 0 and out.startswith("OK "), out
    end = records_of(log)[-1]
    faulty = end["forfeit"]["seats"]
    assert faulty == [modes.index(next(m for m in modes if m not in ("play", "first")))]
    code, out = run("replay", "--ascii", str(log))
    assert code == 0, out
    assert f"FAULT seat {faulty[0]} (testbot-{modes[faulty[0]]}): " in out
    assert f"seat {faulty[0]} (testbot-{modes[faulty[0]]}) forfeits: " in out


def test_a_hand_result_written_twice_is_named_once(standard: Path, tmp_path: Path) -> None:
    """The copy reports no hand; the later hands' results are still compared with their own."""
    lines = lines_of(standard)
    records = records_of(standard)
    result = first_line(records, lambda r: r["type"] == "hand_result")
    path = write_lines(tmp_path / "twice.jsonl", [*lines[:result], *lines[result - 1 :]])
    check = check_file(path)
    assert check.problems == ((result + 1, "hand 1 has not ended in the engine"),)


@pytest.mark.parametrize("command", ["view", "html", "at", "ask", "verify"])
def test_each_command_reads_and_walks_the_log_once(
    command: str, standard: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each command reads the file once and rebuilds the match once (every walk of a log through
    the engine starts a Match from the header's rules and seed; copies do not count)."""
    import referee.replay_log

    calls = {"read": 0, "walk": 0}
    read, init = referee.replay_log.read_log, Match.__init__

    def counted_read(handle: Any) -> Any:
        calls["read"] += 1
        return read(handle)

    def counted_init(self: Match, *args: Any, **kwargs: Any) -> None:
        calls["walk"] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(referee.replay_log, "read_log", counted_read)
    monkeypatch.setattr(Match, "__init__", counted_init)
    line = str(greedy_positions(standard)[0])
    args = {
        "view": ["replay", str(standard)],
        "html": ["replay", str(standard), "--html", str(tmp_path / "m.html")],
        "at": ["replay", str(standard), "--at", line],
        "ask": ["replay", str(standard), "--at", line, "--ask", GREEDY_COMMAND],
        "verify": ["verify", str(standard)],
    }[command]
    code, out = run(*args)
    assert code == 0, out
    assert calls == {"read": 1, "walk": 1}


_FIELD: st.SearchStrategy[Any] = st.sampled_from(
    [None, 0, 1, -1, 7, 10**30, True, "", "AS", "TD", "x", [], {}, ["AS"], [[0, 1]], 2.5]
)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_verify_never_crashes_on_a_tampered_field(
    standard: Path, tmp_path: Path, data: st.DataObject
) -> None:
    records = records_of(standard)
    index = data.draw(st.integers(0, len(records) - 1))
    key = data.draw(st.sampled_from(sorted(records[index])))
    records[index][key] = data.draw(_FIELD)
    path = write_records(tmp_path / "fuzz.jsonl", records)
    check = check_file(path)  # never raises
    assert isinstance(check.ok, bool)
    code, _ = run("verify", str(path))
    assert code in (0, 1)


# --- ginref replay --ask ------------------------------------------------------------------------


def greedy_positions(path: Path) -> list[int]:
    """Lines of the greedy bot's decisions (seat 0): one of each phase, and its knocks."""
    records = records_of(path)
    chosen: dict[str, int] = {}
    for number, r in enumerate(records, start=1):
        if r["type"] == "decision" and r["seat"] == 0:
            key = r["action"]["kind"] if r["action"]["kind"] in ("knock", "big_gin") else r["phase"]
            chosen.setdefault(key, number)
    return sorted(chosen.values())


def test_ask_returns_the_action_the_greedy_bot_took(standard: Path) -> None:
    timeline = load_replay(standard)
    positions = greedy_positions(standard)
    assert len(positions) >= 3
    for line in positions:
        step = position_at(timeline, line)
        answer = ask(timeline, step, GREEDY)
        assert answer.legal and answer.action == step.action, (line, answer)
        assert 0 < answer.think_ms < 10_000
        assert answer.bot.startswith("greedy-bot")


def test_ask_from_the_command_line(logs: dict[str, Path]) -> None:
    for name in ("oklahoma", "declared"):
        path = logs[name]
        line = greedy_positions(path)[-1]
        code, out = run("replay", str(path), "--ask", GREEDY_COMMAND, "--at", str(line))
        assert code == 0, out
        assert f"Position at line {line} " in out and "seat 0 (greedy_bot) to act" in out
        assert re.search(r"Answer: +.* in \d+\.\d ms: legal; the same as recorded", out), out


def test_ask_in_the_choice_of_dealer(logs: dict[str, Path]) -> None:
    """Before the first deal (no HandStart): greedy never chooses to deal (its rule 1)."""
    timeline = load_replay(logs["declared"])
    choose = next(
        s for s in timeline.steps if s.kind == "decision" and s.before.phase is Phase.CHOOSE_DEALER
    )
    answer = ask(timeline, choose, GREEDY)
    assert answer.legal and answer.action == ChooseDeal(False)
    if choose.record["seat"] == 0:
        assert answer.action == choose.action


def test_ask_a_bot_that_does_not_answer(standard: Path) -> None:
    line = greedy_positions(standard)[0]
    crash = shlex.join([sys.executable, "-c", "import sys; print('bye'); sys.exit(3)"])
    out = bad("replay", str(standard), "--ask", crash, "--at", str(line))
    assert "exited with code 3 without connecting" in out and "bye" in out
    missing = bad("replay", str(standard), "--ask", "/nonexistent/bot", "--at", str(line))
    assert "could not start" in missing


# --- results explained, the schema, logs cut short ----------------------------------------------


def test_verify_checks_every_line_against_the_schema(standard: Path, tmp_path: Path) -> None:
    records = records_of(standard)
    line = first_line(records, lambda r: r["type"] == "decision")

    def note(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["note"] = "hi"  # the engine does not read it; the schema allows no such key

    at, message = fails_at(tampered(tmp_path, standard, note))
    assert at == line
    assert message == (
        "schema $defs/decision/additionalProperties: Additional properties are not allowed "
        "('note' was unexpected)"
    )


def cut_mid_line(source: Path, path: Path, line: int) -> Path:
    """The log as a referee killed while writing line ``line`` leaves it: half of that line,
    no newline."""
    lines = lines_of(source)
    whole = "".join(text + "\n" for text in lines[: line - 1])
    path.write_text(whole + lines[line - 1][: len(lines[line - 1]) // 2], encoding="utf-8")
    return path


def test_a_log_cut_mid_line_shows_to_its_last_complete_line(standard: Path, tmp_path: Path) -> None:
    cut = cut_mid_line(standard, tmp_path / "cut.jsonl", 41)
    warning = (
        f"Warning: {cut}: line 41 is cut short (the referee stopped while writing it); "
        "shown up to line 40, its last complete line"
    )
    result = CliRunner().invoke(main, ["replay", str(cut), "--no-color"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [warning]
    shown = [int(n) for n in re.findall(r"^ *(\d+)  ", result.stdout, re.M)]
    assert shown and max(shown) == 40
    assert "the log ends at line 40 without a match result" in result.stdout

    page = tmp_path / "cut.html"
    result = CliRunner().invoke(main, ["replay", str(cut), "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [warning]
    text = page.read_text(encoding="utf-8")
    assert [f["line"] for f in page_frames(text)][-1] == 40
    assert "line 41 is cut short" in page_data(text)["warning"]

    code, out = run("verify", str(cut))
    assert code == 1
    assert out.splitlines() == [
        f"FAIL  {cut}  line 41: the log is truncated: this line is cut short (the referee "
        "stopped while writing it)"
    ]
