"""The calls an agent of the EAAI framework's Python port receives, as its ``GinRummyGame.play``
makes them, worked out from a ginref replay log; and the calls an agent logged.

The model follows the port's game loop, hand by hand: ``startGame``; per turn an offer of the
face-up card to the player to draw (none for the stock draw that follows two declined upcards),
the draw reported to both players (the opponent's stock draw as ``None``; a declined upcard to
nobody), then ``getDiscard``, the discard reported to both, ``getFinalMelds`` of the player
who discarded; after a knock the knocker's melds, the defender's ``getFinalMelds`` and melds,
each layoff with the meld as it was before the card; at the hand's end both final hands and the
scores. Each call is one line as ``tests/support/eaai_agents/melding_player.py`` writes it
(``METHOD ARGS [-> ANSWER]``); card lists whose order the framework leaves to the deal (the
dealt hand, the final hands) are compared sorted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

PREFIX = "eaai "
UNORDERED = ("startGame", "reportFinalHand")


def melds_text(melds: Iterable[Sequence[str]]) -> str:
    return " | ".join(" ".join(meld) for meld in melds) or "[]"


def normal(call: str) -> str:
    """A call line with the card lists of UNORDERED calls sorted."""
    words = call.split()
    if words and words[0] == "startGame":
        return " ".join([*words[:3], *sorted(words[3:])])
    if words and words[0] == "reportFinalHand":
        return " ".join([*words[:2], *sorted(words[2:])])
    return call


def logged_calls(output: str) -> list[str]:
    """The calls an agent logged in its bot's output file, in order."""
    return [normal(line[len(PREFIX) :]) for line in output.splitlines() if line.startswith(PREFIX)]


def expected_calls(log: Path, seat: int) -> list[str]:
    """The calls the framework makes on the agent playing ``seat`` of the match in ``log``."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    calls: list[str] = []
    for deal in (r for r in records if r["type"] == "deal"):
        number = deal["hand"]
        decisions = [r for r in records if r["type"] == "decision" and r["hand"] == number]
        result = next(r for r in records if r["type"] == "hand_result" and r["hand"] == number)
        calls += _hand_calls(deal, decisions, result, seat)
    return [normal(call) for call in calls]


def _hand_calls(
    deal: dict[str, Any], decisions: list[dict[str, Any]], result: dict[str, Any], me: int
) -> list[str]:
    deck: list[str] = deal["deck"]
    dealt = deck[me:20:2]  # deal_order = seat0_first: seat 0 is dealt the first card
    calls = [f"startGame {me} {1 - deal['dealer']} {' '.join(dealt)}"]
    pile, stock, previous = [deck[20]], 21, ""
    for decision in decisions:
        seat, phase, action = decision["seat"], decision["phase"], decision["action"]
        kind, mine = action["kind"], decision["seat"] == me
        if phase in ("upcard_offer", "draw"):
            # The stock draw after two declined upcards is offered nothing.
            if mine and not (phase == "draw" and previous == "pass"):
                calls.append(f"willDrawFaceUpCard {pile[-1]} -> {kind == 'draw_discard'}")
            if kind == "draw_discard":
                calls.append(f"reportDraw {seat} {pile.pop()}")
            elif kind == "draw_stock":
                calls.append(f"reportDraw {seat} {deck[stock] if mine else None}")
                stock += 1
        elif phase == "discard":
            card = action["card"]
            pile.append(card)  # a knock discard too: neller-eaai's is face up
            knocked = kind == "knock"
            if mine:
                answer = melds_text(action["melds"]) if knocked else "None"
                calls += [f"getDiscard -> {card}", f"reportDiscard {seat} {card}"]
                calls.append(f"getFinalMelds -> {answer}")
            else:
                calls.append(f"reportDiscard {seat} {card}")
            if knocked:
                shown = action["melds"] if mine else result["knocker_arrangement"]["melds"]
                calls.append(f"reportFinalMelds {seat} {melds_text(shown)}")
        elif phase == "defender":
            melds = action["melds"] if mine else result["defender"]["melds"]
            if mine:
                calls.append(f"getFinalMelds -> {melds_text(melds)}")
            calls.append(f"reportFinalMelds {seat} {melds_text(melds)}")
            targets = [list(m) for m in result["knocker_arrangement"]["melds"]]
            for card, index in result["defender"]["layoffs"]:
                calls.append(f"reportLayoff {seat} {card} {' '.join(targets[index])}")
                targets[index].append(card)
        previous = kind
    for held_by, held in enumerate(result["final_hands"]):
        calls.append(f"reportFinalHand {held_by} {' '.join(held)}")
    calls.append(f"reportScores {' '.join(str(s) for s in result['scores_after'])}")
    return calls
