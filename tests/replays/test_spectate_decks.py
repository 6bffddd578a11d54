"""The spectator's view of a match dealt from a deal file's decks (the header's ``deck_source``):
followed line by line, it shows at every point what the whole log's reading shows there (each
hand dealt from its ``deal`` record's deck, the file's first dealer dealing first), and nothing
hidden early.

The engine deals a hand as soon as the one before it ends, a record before the log's ``deal``
says which deck it was dealt from: these tests catch a view that shows the seed's cards for it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from referee.engine.cards import card_str, cards_of, parse_card
from referee.engine.hand import Hand
from referee.engine.observation import seen_events
from referee.engine.rules import Rules
from referee.fairness import GivenDecks
from referee.replay_log import read_text_log
from referee.timeline import LogFold, build_timeline
from replays.spectate import SPECTATOR, Spectator, spectator_view
from tests.replays.test_deck_file_verify import FIRST, SECOND, play_from, write_set
from tests.replays.test_spectate import leaks
from tests.support.group_logs import group_match_log, group_rules, two_player_log
from tests.support.replay_helpers import records_of


def file_decks(count: int, seed: int, first_dealer: int) -> GivenDecks:
    """``count`` shuffled decks, as a deal file gives them."""
    rng = random.Random(seed)
    decks = []
    for _ in range(count):
        deck = list(range(52))
        rng.shuffle(deck)
        decks.append(tuple(deck))
    return GivenDecks(tuple(decks), first_dealer, "t.deals", 1)


def deck_log(path: Path, players: int, seed: int, first_dealer: int, decks: int = 3) -> Path:
    """A match of ``players`` dealt ``decks`` decks from a file, then from its seed."""
    given = file_decks(decks, seed + 1000, first_dealer)
    if players == 2:
        rules = Rules.profile("standard", target=40)
        return two_player_log(path, rules, seed=seed, choices=seed, decks=given)
    rules = group_rules(players, target=40)
    return group_match_log(path, rules, seed=seed, choices=seed, decks=given)


def _cards(cards: Any) -> list[str]:
    return [card_str(c) for c in cards]


def shown_as_read(table: dict[str, Any], hand: Hand) -> None:
    """Assert that a table of the view is ``hand`` as the whole log's reading has it."""
    revealed = table["result"] is not None
    assert table["hand"] == hand.number + 1
    assert table["upcard"] == (None if hand.upcard is None else card_str(hand.upcard))
    assert table["pile"] == _cards(hand.pile)
    assert table["stock"] == hand.stock_size
    assert table["held"] == [hand.held(s).bit_count() for s in (0, 1)]
    assert table["known"] == [_cards(cards_of(hand.known(s))) for s in (0, 1)]
    assert table["phase"] == hand.phase.value
    events = hand.events if revealed else seen_events(hand.events, SPECTATOR)
    assert [(e["kind"], e["card"]) for e in table["events"]] == [
        (e.kind, None if e.card is None else card_str(e.card)) for e in events
    ]


def follow(path: Path) -> int:
    """Feed the log at ``path`` to a spectator line by line and check each view against the
    whole log's reading at that line; the number of tables checked."""
    log = read_text_log(path)
    walk = build_timeline(log)
    assert walk.complete
    spectator = Spectator()
    latest: dict[int, Hand] = {}  # each hand as the whole log's reading has it so far
    scores: list[int] | None = None
    checked = 0
    for step in walk.steps:
        spectator.feed(step.record)
        if step.played is not None:
            latest[step.played.number + 1] = step.played
        if step.kind in ("hand_result", "round_result"):
            scores = step.record["scores_after"]
        view = spectator.view()
        assert view["stopped"] is None, (step.line, view["stopped"])
        assert view["scores"] == (scores or [0] * len(view["scores"]))
        for table in view["tables"]:
            shown_as_read(table, latest[table["hand"]])
            checked += 1
    final = walk.steps[-1].after.result
    assert final is not None and spectator.view()["result"]["final"] == list(final.final)
    return checked


@pytest.mark.parametrize(
    ("players", "seed", "first_dealer"),
    [(2, 1, 0), (2, 8, 1), (3, 3, 0), (3, 10, 2), (4, 5, 0), (4, 9, 1)],
)
def test_each_prefix_shows_what_the_whole_log_reads_there(
    tmp_path: Path, players: int, seed: int, first_dealer: int
) -> None:
    path = deck_log(tmp_path / "m.jsonl", players, seed, first_dealer)
    deals = [r for r in records_of(path) if r["type"] == "deal"]
    given = file_decks(3, seed + 1000, first_dealer).decks
    # The file's decks, then the seed's: the view must follow both.
    assert [[parse_card(c) for c in d["deck"]] for d in deals[:3]] == [list(d) for d in given]
    assert len(deals) > 3
    assert follow(path) > 50


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_deck_dealt_match_shows_nothing_hidden_at_any_prefix(
    tmp_path: Path, players: int
) -> None:
    records = records_of(deck_log(tmp_path / "m.jsonl", players, 10, 1))
    assert leaks(records) == []


def test_the_referees_own_log_of_a_deck_dealt_match_is_followed(tmp_path: Path) -> None:
    # Two of the file's decks and the seed's after them, as the referee's session wrote them.
    log = play_from(tmp_path, write_set(tmp_path / "eaai.deals", FIRST, SECOND))
    assert follow(log) > 20
    assert leaks(records_of(log)) == []


def test_the_first_hand_is_dealt_by_the_files_first_dealer(tmp_path: Path) -> None:
    for dealer in (0, 1):
        records = records_of(deck_log(tmp_path / f"m{dealer}.jsonl", 2, 8, dealer))
        first = next(i for i, r in enumerate(records) if r["type"] == "deal")
        view = spectator_view(records[: first + 1])
        assert records[first]["dealer"] == dealer
        assert view["tables"][0]["dealer"] == dealer
        assert view["tables"][0]["upcard"] == records[first]["upcard"]


def test_a_deal_record_whose_deck_is_not_the_files_is_followed_as_written(
    tmp_path: Path,
) -> None:
    # Without the file nothing can say which deck the commitment seals: the view shows the
    # log's. Two stock cards a hand never reaches are swapped; the hand plays the same.
    path = deck_log(tmp_path / "m.jsonl", 2, 9, 0)
    records = records_of(path)
    walk = build_timeline(read_text_log(path))
    deal = next(s for s in walk.steps if s.kind == "deal")
    ended = [s.played for s in walk.steps if s.played is not None and s.played.number == 0][-1]
    assert ended.stock_size >= 2
    deck = list(records[deal.line - 1]["deck"])
    deck[-1], deck[-2] = deck[-2], deck[-1]
    records[deal.line - 1] = {**records[deal.line - 1], "deck": deck}
    view = spectator_view(records)
    assert view["stopped"] is None and view["over"]
    assert view["result"] == spectator_view(records_of(path))["result"] is not None


def test_a_deck_source_naming_no_first_dealer_stops_the_table(tmp_path: Path) -> None:
    records = records_of(deck_log(tmp_path / "m.jsonl", 2, 10, 0))
    header = {**records[0], "deck_source": {**records[0]["deck_source"], "first_dealer": 5}}
    view = spectator_view([header, *records[1:]])
    assert view["stopped"] == "the header's deck_source: first dealer 5 is not a seat"
    assert view["tables"] == [] and view["over"]


def test_a_fold_whose_decks_do_not_replay_the_match_stops_instead_of_raising(
    tmp_path: Path,
) -> None:
    # Hand 2's deal record has no deck to read and hand 3's another deck: the game rebuilt at
    # hand 3 deals hand 2 from that one, and hand 2's decisions no longer apply.
    records = records_of(deck_log(tmp_path / "m.jsonl", 2, 1, 0, decks=1))
    deals = [i for i, r in enumerate(records) if r["type"] == "deal"]
    assert len(deals) >= 3
    records[deals[1]] = {**records[deals[1]], "deck": []}
    other = list(reversed(records[deals[2]]["deck"]))
    records[deals[2]] = {**records[deals[2]], "deck": other}
    header = records[0]
    fold = LogFold(
        Rules.from_dict(header["rules"]), header["seed"], history=False, first_dealer=0,
        read_decks=True,
    )  # fmt: skip
    steps = [fold.feed(line, record) for line, record in enumerate(records, start=1)]
    assert fold.stopped is not None
    line, why = fold.stopped
    assert line == deals[2] + 1 and steps[deals[2]] is None
    assert why.startswith("the decks read so far do not replay the match: ")
    assert spectator_view(records[: deals[2] + 1])["stopped"] == (
        "the deck of hand 2 cannot be dealt (not 52 cards, or out of place)"
    )
