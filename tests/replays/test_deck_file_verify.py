"""A match dealt from a deal file's decks: the referee deals them in order, then from the seed;
the header names the file's deal and the commitment seals its decks; ``ginref verify`` checks
each deck against the file when it is given, and says it was not given when it is not."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.cards import card_str
from referee.engine.deal import hand_deck
from referee.engine.rules import Rules
from referee.fairness import DealSeal, commitment, deck_line
from referee.results import MatchPlan
from referee.session import Session
from referee.settings import RefereeOptions
from replays.verify import check_file
from tests.referee.fakes import FakeClock, ScriptedBot, fake_player, knock_or_random, run_on
from tournaments.file.deals import DealSet, load_deals

RULES = Rules.profile("standard")
FIRST = hand_deck(100, 0)  # any two orders: the file's, not the seed's
SECOND = hand_deck(101, 0)


def write_set(path: Path, *decks: list[int], dealer: int = 1) -> DealSet:
    path.write_text(f"77\ndeal dealer {dealer}\n" + "".join(deck_line(d) + "\n" for d in decks))
    return load_deals(path)


def play_from(folder: Path, deals: DealSet, deal: int = 2) -> Path:
    """One match between two fake bots that knock when they can, dealt from ``deal``'s decks
    (its seed, for a deal that is a seed)."""
    given = deals.decks(deal)
    plan = MatchPlan("m1", 1, deals.seed(deal), (0, 1), folder / "m1.jsonl")
    if given is not None:
        plan.seal = DealSeal(plan.seed, decks=given)

    async def play() -> None:
        clock = FakeClock()
        made = [fake_player(i, clock, folder) for i in (0, 1)]
        for i, (_, link, _) in enumerate(made):
            ScriptedBot(link, knock_or_random(random.Random(i)))
        players = [m[0] for m in made]
        session = Session(plan, RULES, players, RefereeOptions(), 1, clock=clock)
        session.write_header()
        for player in players:
            session.log_connected(player)
        await run_on(clock, session.run(None))
        start = made[0][1].sent[0].match_start
        end = made[0][1].sent[-1].match_end
        # What the bots were sent: the commitment to the seed (and the decks), opened at the end.
        digest = None if given is None else given.digest
        assert start.deal_commitment == commitment(end.deal_seed, end.deal_salt, digest)

    asyncio.run(play())
    return plan.log_path


def records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_decks_are_dealt_in_order_then_the_seeds_and_the_header_says_so(
    tmp_path: Path,
) -> None:
    deals = write_set(tmp_path / "eaai.deals", FIRST)
    log = play_from(tmp_path, deals)
    header, *rest = records(log)
    given = deals.decks(2)
    assert given is not None
    assert header["deck_source"] == {
        "file": "eaai.deals",
        "deal": 2,
        "decks": 1,
        "first_dealer": 1,
        "sha256": given.digest.hex(),
    }
    dealt = [r for r in rest if r["type"] == "deal"]
    assert len(dealt) >= 2  # the second hand is past the file's one deck
    assert dealt[0]["dealer"] == 1 and dealt[0]["deck"] == [card_str(c) for c in FIRST]
    assert dealt[1]["deck"] == [card_str(c) for c in hand_deck(deals.seed(2), 1)]
    with_file = check_file(log, deals.decks)
    assert with_file.ok, with_file.problems
    assert ", decks from deal 2 of eaai.deals" in with_file.summary
    assert "not checked" not in with_file.summary
    without = check_file(log)
    assert without.ok, without.problems  # not wrong: unchecked, and said so
    assert "decks from deal 2 of eaai.deals (not checked: ginref verify --deals FILE)" in (
        without.summary
    )


def test_verify_names_a_deck_that_is_not_the_files(tmp_path: Path) -> None:
    deals = write_set(tmp_path / "eaai.deals", FIRST, SECOND)
    log = play_from(tmp_path, deals)
    other = write_set(tmp_path / "other.deals", SECOND, FIRST)
    check = check_file(log, other.decks)
    assert check.problems[0] == (
        1,
        "deck_source: deal 2 of the deal file is not the one this match was dealt from (other "
        "decks or another first dealer)",
    )
    # The same decks, another first dealer: not the deal either.
    assert not check_file(log, write_set(tmp_path / "d1.deals", FIRST, SECOND, dealer=0).decks).ok
    # A deal record whose deck was changed after play: named, hand by hand.
    lines = log.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"type":"deal"' in line)
    record = json.loads(lines[at])
    record["deck"][30], record["deck"][40] = record["deck"][40], record["deck"][30]
    lines[at] = json.dumps(record, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n")
    problems = check_file(log, deals.decks).problems
    assert (at + 1, "the deck of hand 1 is not deck 1 of deal 2 of the deal file") in problems


def test_ginref_verify_takes_the_deal_file(tmp_path: Path) -> None:
    deals = write_set(tmp_path / "eaai.deals", FIRST)
    log = play_from(tmp_path, deals)
    runner = CliRunner()
    given = runner.invoke(main, ["verify", str(log), "--deals", str(tmp_path / "eaai.deals")])
    assert given.exit_code == 0, given.output
    assert "decks from deal 2 of eaai.deals" in given.output and "not checked" not in given.output
    plain = runner.invoke(main, ["verify", str(log)])
    assert plain.exit_code == 0 and "not checked: ginref verify --deals FILE" in plain.output
    (tmp_path / "bad.deals").write_text("deal dealer 1\nAC\n")
    bad = runner.invoke(main, ["verify", str(log), "--deals", str(tmp_path / "bad.deals")])
    assert bad.exit_code != 0 and "Traceback" not in bad.output
    assert f"{tmp_path / 'bad.deals'}:2: 1 cards: a deck is the 52 cards once each" in bad.output


@pytest.mark.parametrize("seed", [11, 12])
def test_a_log_dealt_from_its_seed_verifies_with_or_without_a_deal_file(
    tmp_path: Path, seed: int
) -> None:
    deals = write_set(tmp_path / "eaai.deals", FIRST)
    log = play_from(tmp_path, DealSet((seed,), "x", "0" * 64), 1)
    assert "deck_source" not in records(log)[0]
    assert check_file(log).ok and check_file(log, deals.decks).ok
    assert check_file(log).summary == check_file(log, deals.decks).summary
