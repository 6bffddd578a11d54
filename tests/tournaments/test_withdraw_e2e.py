"""``ginref withdraw`` and ``ginref disqualify`` with real runs: a bot withdrawn while its
tournament runs plays no more (the match it played stands, its others are forfeits), resumes
never start it even when its command is gone, a disqualification strikes its matches, three
players forfeit only its seat, and a resume with another file names the difference in words."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.referee_helpers import TESTBOT
from tournaments.file.config import load_file
from tournaments.journal.store import open_journal
from tournaments.results.standings import load_standings
from tournaments.runner import Progress, TournamentRunner

pytestmark = pytest.mark.slow  # real tournaments of real bot processes

PLAY = f"{{python}} {TESTBOT} play"  # knocks as soon as it may: short matches
MISSING = "bots/never-built/greedy_bot"


def write(tmp_path: Path, bots: list[str], extra: str = "", *, gone: str = "") -> Path:
    """A tournament file of ``bots`` playing into ``tmp_path/out``; ``gone``'s command does
    not exist."""
    text = f'name = "t"\nseed = 5\nout = "{tmp_path / "out"}"\n{extra}\n'
    text += "[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n"
    for bot in bots:
        text += f'\n[[bots]]\nname = "{bot}"\ncommand = "{MISSING if bot == gone else PLAY}"\n'
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, " ".join(result.output.split())


def run_withdrawing_after_the_first_match(file: Path, seat: int, *args: str) -> str:
    """Run the tournament in this process, one match at a time, and withdraw (``args``: with
    ``ginref withdraw``'s arguments after the bot) the bot in ``seat`` of the first match as
    soon as it is journaled; the bot's name."""
    runner = TournamentRunner(load_file(file))
    out: list[str] = []

    def progress(p: Progress) -> None:
        if p.last is not None and not out:
            out.append(p.last.seats[seat])
            code, text = run("withdraw", str(file), out[0], *args)
            assert code == 0, text

    try:
        result = asyncio.run(runner.run(1, progress, workers=0, check=False))
    finally:
        runner.close()
    assert result.status == "complete" and result.done == result.total
    return out[0]


def played_keys(out: Path) -> list[tuple[str, ...]]:
    journal = open_journal(out, create=False)
    try:
        return [r.seats for r in journal.records()]
    finally:
        journal.close()


def test_a_bot_withdrawn_during_the_run_plays_no_more_and_resumes_never_start_it(
    tmp_path: Path,
) -> None:
    file = write(tmp_path, ["a", "b", "c"], "matches = 2")
    out = tmp_path / "out"
    gone = run_withdrawing_after_the_first_match(file, 1)
    seats = played_keys(out)
    # Its first match stands; none of its three others was played.
    assert gone in seats[0] and all(gone not in s for s in seats[1:]) and len(seats) == 3
    by = {s.name: s for s in load_standings(out).bots}
    assert (by[gone].matches, by[gone].forfeits) == (4, 3) and by[gone].losses >= 3
    others = [b for b in ("a", "b", "c") if b != gone]
    # Each forfeit is a win of its opponent's, and not one of its games.
    assert sum(by[b].wins for b in others) >= 3 and by[gone].decisions > 0
    # Resumed with its command gone: it is never started (its check would fail the run).
    write(tmp_path, ["a", "b", "c"], "matches = 2", gone=gone)
    code, text = run("tournament", str(file))
    assert code == 0, text
    assert "Tournament complete: 6 of 6 matches" in text
    assert (
        f"Note: {gone} withdrew: 1 match it played stands, 3 matches left forfeited to its "
        "opponents (scored, not rated)"
    ) in text
    assert "never connected" not in text
    # Out of the file altogether: the same tournament still.
    write(tmp_path, others, "matches = 2")
    code, text = run("tournament", str(file))
    assert code == 0, text
    code, text = run("verify", str(out))
    assert code == 0 and "the journal agrees with the logs" in text
    code, text = run("withdraw", str(file), gone)
    assert code == 1 and f"Error: {gone} was already withdrawn" in text
    # Disqualified: its matches are struck, for its opponents too, and it is ranked last.
    code, text = run("disqualify", str(file), gone)
    assert code == 0, text
    assert f"{gone} was disqualified: its results are struck (4 matches it sat in" in text
    code, text = run("standings", str(out))
    assert code == 0 and "Standings: t, 2 of 2 matches" in text
    standings = load_standings(out)
    assert standings.bots[-1].name == gone and standings.bots[-1].matches == 0
    assert all(s.matches == 2 for s in standings.bots[:-1])


def test_a_withdrawn_seat_of_three_forfeits_and_the_others_share_first(tmp_path: Path) -> None:
    file = write(tmp_path, ["a", "b", "c"], "matches = 1\n[rules]\nplayers = 3")
    out = tmp_path / "out"
    gone = run_withdrawing_after_the_first_match(file, 0)
    assert len(played_keys(out)) == 1
    standings = load_standings(out)
    left = standings.total - 1
    assert left >= 2 and standings.done == standings.total
    by = {s.name: s for s in standings.bots}
    assert by[gone].forfeits == left and by[gone].matches == standings.total
    a, b = (n for n in by if n != gone)
    h2h = standings.head_to_head[(a, b)]
    assert h2h.draws >= left  # each forfeit leaves the other two level
    assert standings.head_to_head[(a, gone)].wins >= left


def test_a_journal_of_another_tournament_is_refused_in_words(tmp_path: Path) -> None:
    file = write(tmp_path, ["a", "b", "c"], "matches = 1")
    code, text = run("tournament", str(file), "--no-check-bots")
    assert code == 0, text
    journal = tmp_path / "out" / "journal.sqlite"
    original = file.read_text()
    kinds = {
        "bot added": (original + '\n[[bots]]\nname = "d"\ncommand = "x"\n', ()),
        "bot removed": (write(tmp_path, ["a", "b"], "matches = 1").read_text(), ()),
        "command changed": (original.replace(f'command = "{PLAY}"', 'command = "y"', 1), ()),
        "rules changed": (original, ("--set", "target=150")),
        "schedule changed": (original, ("--matches", "4")),
    }
    said = {
        "bot added": "the bot d is new (a tournament takes no new bot once it has begun",
        "bot removed": "the bot c is not in the file any more (a bot cannot leave a tournament "
        "that has begun: use 'ginref withdraw FILE c' to take it out of play",
        "command changed": "the bot a's command differs (",
        "rules changed": "the rule target differs (",
        "schedule changed": "matches differs (1 in the journal, 4 now)",
    }
    for kind, (text_of_file, options) in kinds.items():
        file.write_text(text_of_file)
        code, text = run("tournament", str(file), *options)
        assert code == 1, (kind, text)
        assert text.startswith(f"Error: {journal} belongs to a different tournament: "), kind
        assert "Traceback" not in text and not set(text) & set("{}[]"), (kind, text)
        assert said[kind] in text, (kind, text)
        if kind == "command changed":
            assert f"{PLAY.split()[1]} play in the journal, y now)" in text, text
