"""The greedy bot: keeps its deadwood minimal and knocks as soon as it can.

Run with ``python -m sample_bots.greedy_bot``. :func:`decide` is a pure function of one
``DecisionRequest`` (it keeps no state between requests), so it can be tested on hand-built
requests and ported move for move. Positions to check a port against are in
``tests/sample_bots/test_sample_bots.py``.

Specification (greedy v1)
-------------------------

Notation.

- card index = suit * 13 + rank, suits C D H S = 0..3, ranks A 2 3 4 5 6 7 8 9 T J Q K = 0..12;
  e.g. wire card ``"TD"`` = 1 * 13 + 9 = 22, ``"KS"`` = 51.
- value(c) = deadwood value of card c: A = 1, 2..10 = pips, J Q K = 10 (R1.3).
- dw(cards) = the exact minimum deadwood of a collection of cards: the least total value of the
  cards left unmelded over every choice of pairwise-disjoint sets and runs (R1.4-R1.8; docs/rules.md
  Appendix A.1). A fully melded collection has dw = 0.
- H = ``observation.hand``; L = ``legal_actions``; ``X - c``: X without card c; ``X + c``: X
  with card c.
- "answer E" = reply with the entry E of L unchanged. Knock and BigGin entries are sent without
  an arrangement, so the referee arranges the cards (R5.4).
- "the best card of C" = the card c of C with the smallest dw(H - c); ties: the larger
  value(c); remaining ties: the larger card index (a total order, so exactly one card is best).

Rules, tried in this order; the first one that applies decides.

1. Choose deal (``first_dealer = cut_high_chooses``). If L holds ChooseDeal entries: answer the
   one with ``deal = false`` (do not deal); if none has it, the first ChooseDeal entry.
2. Defender (``defender_play = declared``). If L holds a DefenderPlay entry: answer the first
   DefenderPlay entry (the referee's proposal, R6.6).
3. Big gin. If L holds a BigGin entry: answer it.
4. Knock. If L holds Knock entries: answer the Knock entry whose discard is the best card among
   those entries' discards. Gin (dw = 0) therefore comes first. This rule also makes the knock
   that must follow a conditional take (``observation.must_knock``: R4.3 ``allowed_gra``, R7.3,
   R7.4), where only Knock and BigGin entries are listed.
5. Discard. If L holds Discard entries: answer the Discard entry of the best card among those
   entries' cards.
6. Wall (``observation.phase`` = PHASE_WALL and L holds no DeclareDead entry, i.e. R7.3 / R7.4):
   answer DrawDiscard if L holds it (it is listed only when a knock with it is legal, and rule 4
   makes that knock), else Pass (the hand is dead).
7. Draw decision (L holds DrawDiscard, DrawStock, Pass or DeclareDead: the upcard offer, a
   normal draw, and the ``rlcard`` wall). Let t = the top discard (the last card of
   ``observation.discard_pile``). Take, i.e. answer DrawDiscard, iff L holds DrawDiscard and
   min over the cards d of H of dw(H + t - d) < dw(H) (strictly lower): keeping t, the best
   discard other than t leaves less deadwood than now. Otherwise answer the first of DrawStock,
   Pass, DeclareDead that L holds, in that order of preference. (Whether the rules would let t
   be discarded again, ``discard_taken_card``, makes no difference: discarding t gives back H,
   whose deadwood is never strictly lower than dw(H).)
8. Anything else: answer the first entry of L.

The bot never looks at the discard pile below its top, the opponent's known cards, the scores or
the clock.

Three players and partnerships (docs/rules.md §10). Every hand is a two-player hand, and a
request is asked in the bot's hand seat (``observation.seat``, 0 or 1), which is not its match
seat (``observation.player``, ``MatchStart.seat``): H, L, the discard pile and the phase are
those of its own hand, so the rules above apply unchanged. No rule reads a seat, the scores of
the players or teams, who sits out or the table; a bot that does must take its own seat in the
hand from ``observation.seat`` (docs/writing-a-bot.md, section 8).
"""

from __future__ import annotations

import sys

from referee.engine.cards import CARD_VALUES, Card
from referee.engine.melds import deadwood_by_discard, min_deadwood
from sample_bots.client import action_kind, card_index, hand_mask, pb, run_bot

NAME = "greedy-bot"
VERSION = "1.0.0"


def best_card(hand: int, candidates: list[Card]) -> Card:
    """The best card of ``candidates`` (spec, Notation): least dw(hand - c), then value, index."""
    left = deadwood_by_discard(hand)
    return min(
        candidates,
        key=lambda c: (
            left[c],
            -CARD_VALUES[c],
            -c,
        ),
    )


def takes_discard(observation: pb.Observation) -> bool:
    """Rule 7: whether taking the top discard strictly lowers the best reachable deadwood."""
    taken = card_index(observation.discard_pile[-1])
    hand = hand_mask(observation.hand)
    after = deadwood_by_discard(hand | 1 << taken)
    best = min(v for c, v in after.items() if c != taken)
    return best < min_deadwood(hand)


def decide(request: pb.DecisionRequest) -> pb.Action:
    """The greedy bot's answer to ``request`` (the module docstring is the specification)."""
    legal: list[pb.Action] = list(request.legal_actions)
    obs = request.observation
    by_kind: dict[str, list[pb.Action]] = {}
    for action in legal:
        by_kind.setdefault(action_kind(action), []).append(action)

    if "choose_deal" in by_kind:  # rule 1
        entries = by_kind["choose_deal"]
        return next((a for a in entries if not a.choose_deal.deal), entries[0])
    if "defender_play" in by_kind:  # rule 2
        return by_kind["defender_play"][0]
    if "big_gin" in by_kind:  # rule 3
        return by_kind["big_gin"][0]
    if "knock" in by_kind:  # rule 4
        knocks = {card_index(a.knock.discard): a for a in by_kind["knock"]}
        return knocks[best_card(hand_mask(obs.hand), list(knocks))]
    if "discard" in by_kind:  # rule 5
        discards = {card_index(a.discard.card): a for a in by_kind["discard"]}
        return discards[best_card(hand_mask(obs.hand), list(discards))]
    if obs.phase == pb.PHASE_WALL and "declare_dead" not in by_kind:  # rule 6
        if "draw_discard" in by_kind:
            return by_kind["draw_discard"][0]
        if "pass_offer" in by_kind:
            return by_kind["pass_offer"][0]
    if "draw_discard" in by_kind and obs.discard_pile and takes_discard(obs):  # rule 7
        return by_kind["draw_discard"][0]
    for kind in ("draw_stock", "pass_offer", "declare_dead"):
        if kind in by_kind:
            return by_kind[kind][0]
    return legal[0]  # rule 8


def main() -> int:
    """Play with the launch environment; return the exit code."""
    return run_bot(decide, NAME, VERSION)


if __name__ == "__main__":
    sys.exit(main())
