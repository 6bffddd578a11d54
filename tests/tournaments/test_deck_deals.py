"""Deal sets of decks: the file (each mistake one line naming its line), its deals beside the
seeds', and a tournament that plays the same decks at every pairing."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.deal import hand_deck
from referee.errors import GinRefError
from referee.fairness import deck_line
from replays.verify import check_file
from tests.support.referee_helpers import TESTBOT
from tournaments.file.config import load_file
from tournaments.file.deals import DealSetError, load_deals, parse_deal_set
from tournaments.schedule import build_schedule, deal_key

DECK_A = deck_line(hand_deck(1, 0))
DECK_B = deck_line(hand_deck(2, 0))
DECK_C = deck_line(hand_deck(3, 0))
SET = (
    f"# two deals of decks and a seed\ndeal dealer 1\n{DECK_A}\n{DECK_B}\n\n77\n"
    f"deal dealer 0\n{DECK_C}\n"
)


def test_a_deal_of_decks_holds_its_decks_in_order_and_its_first_dealer(tmp_path: Path) -> None:
    path = tmp_path / "eaai.deals"
    path.write_text(SET)
    deals = load_deals(path)
    assert len(deals.seeds) == 3 and deals.seeds[1] == 77
    first, seed_only, third = (deals.decks(d) for d in (1, 2, 3))
    assert seed_only is None
    assert first is not None and third is not None
    assert first.decks == (tuple(hand_deck(1, 0)), tuple(hand_deck(2, 0)))
    assert (first.first_dealer, first.file, first.deal) == (1, "eaai.deals", 1)
    assert (third.first_dealer, third.deal, len(third.decks)) == (0, 3, 1)
    # Started again when the set runs out, as the seeds are.
    assert deals.decks(4) == first and deals.seed(4) == deals.seed(1)
    # A deal's seed is drawn from its decks: the same in every run, another for other decks.
    assert load_deals(path).seeds == deals.seeds and deals.seeds[0] != deals.seeds[2]


def test_a_seed_only_set_keeps_no_decks(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    path.write_text("5\n6\n")
    deals = load_deals(path)
    assert deals.seeds == (5, 6) and deals.decked == () and deals.decks(1) is None


CARDS = DECK_A.split()
SHORT = " ".join(CARDS[:51])
BAD = f"{' '.join(CARDS[:3])} 1X {' '.join(CARDS[4:])}"
TWICE = f"{CARDS[0]} is twice in this deck (cards 1 and 53)"
MISSING = f"51 cards: a deck is the 52 cards once each (missing {CARDS[51]})"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"deal dealer 0\n{DECK_A} {CARDS[0]}\n", f"d:2: {TWICE}"),
        (f"deal dealer 0\n{SHORT}\n", f"d:2: {MISSING}"),
        (f"deal dealer 0\n{BAD}\n", "d:2: card 4: '1X' is not a card"),
        (f"deal dealer 5\n{DECK_A}\n", "d:1: dealer '5': the first dealer is a seat, 0 or 1"),
        (f"deal dealer\n{DECK_A}\n", "d:1: 'deal dealer' is not a deal line: write 'deal"),
        ("1\ndeal dealer 1\n\n2\n", "d:2: this deal has no decks"),
        (f"{DECK_A}\n", "d:1: "),
        (f"deal dealer 0\n{DECK_A}\ndeal dealer 0\n{DECK_A}\n", "d:3: these decks are already"),
    ],
)  # fmt: skip
def test_a_mistake_in_a_deck_is_one_line_naming_its_line(text: str, message: str) -> None:
    with pytest.raises(DealSetError) as caught:
        parse_deal_set(text, "d")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_a_dealer_no_seat_is_is_named_with_its_line_for_the_players(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    path.write_text(f"7\ndeal dealer 2\n{DECK_A}\n")
    deals = load_deals(path)
    deals.check_players(3)  # seat 2 of three
    with pytest.raises(DealSetError, match=r"d.txt:2: dealer 2: with 2 players the first dealer"):
        deals.check_players(2)


def test_ginref_deals_check_names_a_bad_deck_and_counts_a_good_set(tmp_path: Path) -> None:
    path = tmp_path / "set.txt"
    path.write_text(SET)
    runner = CliRunner()
    good = runner.invoke(main, ["deals", "check", str(path)])
    assert good.exit_code == 0 and "3 deals" in good.output
    path.write_text(f"deal dealer 1\n{SHORT}\n")
    bad = runner.invoke(main, ["deals", "check", str(path)])
    assert bad.exit_code == 1 and "Traceback" not in bad.output
    assert bad.output.strip() == f"Error: {path}:2: {MISSING}"


def test_every_pairing_plays_the_same_decks(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text(SET)
    bots = "".join(f'\n[[bots]]\nname = "{b}"\ncommand = "x"\n' for b in ("a", "b", "c"))
    (tmp_path / "t.toml").write_text(f'seed = 1\nmatches = 2\ndeals = "d.txt"\n{bots}')
    config = load_file(tmp_path / "t.toml")
    assert config.deals is not None
    specs = build_schedule(config, deal_key(config.seed))
    by_deal = {(s.deal, s.seed) for s in specs}
    assert by_deal == {(1, config.deals.seeds[0]), (2, 77)}
    (tmp_path / "d.txt").write_text(f"deal dealer 2\n{DECK_A}\n")
    with pytest.raises(GinRefError, match=r"d\.txt:1: dealer 2: with 2 players"):
        load_file(tmp_path / "t.toml")


@pytest.mark.slow  # real bot processes
def test_a_tournament_deals_the_files_decks_at_every_pairing(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text(f"deal dealer 1\n{DECK_A}\n{DECK_B}\n")
    bot = shlex.join([sys.executable, str(TESTBOT)])
    bots = "".join(f'\n[[bots]]\nname = "{b}"\ncommand = "{bot}"\n' for b in ("a", "b", "c"))
    (tmp_path / "t.toml").write_text(
        f'matches = 1\ndeals = "d.txt"\n[sandbox]\nmode = "none"\n{bots}'
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["tournament", str(tmp_path / "t.toml"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    logs = sorted(out.rglob("*.jsonl"))
    assert len(logs) == 3  # a-b, a-c, b-c
    for log in logs:
        records = [json.loads(line) for line in log.read_text().splitlines()]
        assert records[0]["deck_source"]["deal"] == 1
        first = next(r for r in records if r["type"] == "deal")
        assert (first["dealer"], " ".join(first["deck"])) == (1, DECK_A)
        assert check_file(log, load_deals(tmp_path / "d.txt").decks).ok
