"""Which tables the live page shows while they are played, end to end: a real tournament run by
``ginref tournament`` in a process of its own, watched by ``ginref live`` in another.

Each pairing's deals are its own, so a match's table is shown while it is played; the two
matches of a duplicate pair share a deal, so the first stays hidden until its twin is over. The
seat-gate bot (tests/tournaments/seat_gate_bot.py) holds each of its matches in progress until
the test lets the bot in that seat go on: what the page shows of a match in play is checked
while it is in play, however fast the machine."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from replays.spectate import spectator_view
from tests.tournaments.seat_gate_bot import opener
from tests.tournaments.test_live_e2e import DEADLINE_S, fetch, ginref, records, state, until

pytestmark = pytest.mark.slow  # real bot processes and two ginref processes

GATED = Path(__file__).resolve().parent / "seat_gate_bot.py"
HOLD = 6  # the gated bot's decision it waits at: in its first hand, after stock draws
CARD = re.compile(r'"[A23456789TJQK][CDHS]"')


def tournament_file(tmp_path: Path, gate: Path, extra: str, others: list[str]) -> Path:
    file = tmp_path / "t.toml"
    text = f'name = "dealt"\nseed = 3\n{extra}\n[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n'
    # A held decision waits for the test, not for a clock: time enough for all it checks.
    text += f"[time]\nmove_time = {DEADLINE_S}\nbank = {DEADLINE_S}\n"
    for name in others:
        module = "greedy_bot" if name == "greedy" else "random_bot"
        text += f'[[bots]]\nname = "{name}"\ncommand = "{{python}} -m sample_bots.{module}"\n'
    text += f'[[bots]]\nname = "gated"\ncommand = "{{python}} {GATED} {HOLD} {gate}"\n'
    file.write_text(text)
    return file


class Run:
    """``ginref tournament`` and ``ginref live`` on one directory; :meth:`stop` ends both."""

    def __init__(self, file: Path, out: Path) -> None:
        self.out = out
        self.tournament = ginref("tournament", str(file), "--out", str(out), "-j", "2", "-q")
        self.live: subprocess.Popen[str] | None = None
        until(lambda: (out / "journal.sqlite").exists(), "the tournament's journal")
        self.live = ginref("live", str(out), "--port", "0", "--interval", "0.2")
        assert self.live.stdout is not None
        first = self.live.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)", first)
        assert found, first
        self.url = found.group(1)

    def log(self, entry: dict[str, Any]) -> Path:
        return next(self.out.glob(f"logs/**/{entry['match_id']}.jsonl"))

    def held(self, key: str) -> dict[str, Any] | None:
        """``key``'s entry in the state while the gated bot is held at its HOLD-th decision."""
        for entry in state(self.url)["live"]:
            if entry["key"] != key:
                continue
            written = records(self.log(entry))
            seat = entry["seats"].index("gated")
            asked = sum(r["type"] == "decision" and r["seat"] == seat for r in written)
            if asked != HOLD - 1 or entry["hand"] < 1:
                return None
            # The page polls the log: a table it shows may still be at an earlier line than the
            # one read here.
            shown = entry["view"]
            return entry if shown is None or shown == spectator_view(written) else None
        return None

    def finish(self) -> None:
        assert self.tournament.wait(timeout=DEADLINE_S) == 0, self.tournament.stderr

    def stop(self) -> None:
        for process in (self.tournament, self.live):
            if process is not None and process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()


def test_a_match_on_its_own_deal_is_shown_while_it_is_played(tmp_path: Path) -> None:
    gate = tmp_path / "gate"  # the gated bot's own directory, read only in its sandbox
    gate.mkdir(mode=0o755)
    out = tmp_path / "out"
    # Three bots, game 1 of each pairing: with one deal for all three, a table would be shown
    # only once the two other matches were over.
    run = Run(tournament_file(tmp_path, gate, "matches = 1", ["greedy", "random"]), out)
    try:
        entry = until(lambda: run.held("greedy.gated.001"), "greedy.gated.001 held in play")
        assert entry["embargo"] is None
        log = run.log(entry)
        assert entry["view"] == spectator_view(records(log))
        (table,) = entry["view"]["tables"]
        assert table["result"] is None and table["to_act"] == 1  # the hand is in play
        assert '"seed"' not in json.dumps(entry) and '"deck"' not in json.dumps(entry)
        (gate / opener(1)).touch()
        run.finish()
    finally:
        (gate / opener(1)).touch()
        run.stop()


def test_the_first_match_of_a_duplicate_pair_is_hidden_until_its_twin_is_over(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "gate"
    gate.mkdir(mode=0o755)
    out = tmp_path / "out"
    # Game 1 seats the gated bot in seat 1, game 2 (its twin, the seats swapped) in seat 0.
    run = Run(tournament_file(tmp_path, gate, "matches = 2\nduplicate = true", ["greedy"]), out)
    try:
        first = until(lambda: run.held("greedy.gated.001"), "the pair's first match held")
        assert first["embargo"] == {"matches_left": 1} and first["view"] is None
        assert not CARD.search(json.dumps(state(run.url)))
        # The first match plays to its end; its twin is held in play.
        (gate / opener(1)).touch()
        twin = until(lambda: run.held("greedy.gated.002"), "the pair's second match held")
        # The twin is the deal's last match: shown; the first's cards are that deal's too.
        assert twin["embargo"] is None
        assert twin["view"] == spectator_view(records(run.log(twin)))
        kept = fetch(run.url, f"api/match/{first['match_id']}")
        assert kept["embargo"] == {"matches_left": 1} and kept["view"] is None
        assert not CARD.search(json.dumps(kept))
        # The twin over, the first match's last view is shown too.
        (gate / opener(0)).touch()
        run.finish()

        def shown() -> dict[str, Any] | None:
            kept = fetch(run.url, f"api/match/{first['match_id']}")
            return kept if kept["view"] is not None else None

        kept = until(shown, "the first match's view once its twin is over")
        assert kept["embargo"] is None and kept["view"]["over"]
        assert kept["view"] == spectator_view(records(run.log(first)))
    finally:
        for seat in (0, 1):
            (gate / opener(seat)).touch()
        run.stop()
