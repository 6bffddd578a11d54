"""A simple agent of the EAAI framework's Python port, for the bridge's tests.

It draws the face-up card when the card makes a meld, discards the card that leaves the least
deadwood (the highest card of equal ones), and knocks as soon as it may, declaring runs before
sets (the reverse of ginref's order, so that a test sees its own order kept). It keeps its hand
as the port's players do, from ``startGame``, its own ``reportDraw`` and ``reportDiscard``, with
``list.remove``, which compares the port's cards by identity, and raises when what it is told
disagrees with what it holds: a wrong report ends the match with a fault.

Every call is one line on stderr, ``eaai METHOD ARGS [-> ANSWER]``, that the test reads from the
bot's output file; melds are written ``3S 4S 5S | 7C 7D 7H`` (``[]``: none).
"""

import sys

from GinRummyPlayer import GinRummyPlayer

from referee.engine.cards import CARD_VALUES, mask_of, parse_card
from referee.engine.melds import (
    MeldKind,
    all_melds,
    best_arrangement,
    deadwood_by_discard,
    min_deadwood,
)


def text_of(cards):
    return " ".join(str(c) for c in cards)


def melds_text(melds):
    return " | ".join(text_of(m) for m in melds) or "[]"


def mask(cards):
    return mask_of(parse_card(str(c)) for c in cards)


class MeldingPlayer(GinRummyPlayer):
    def log(self, *words):
        print("eaai", *words, file=sys.stderr, flush=True)

    def startGame(self, playerNum, startingPlayerNum, cards):
        self.log("startGame", playerNum, startingPlayerNum, text_of(cards))
        assert len(cards) == 10, cards
        self.playerNum = playerNum
        self.cards = list(cards)
        self.faceUp = None
        self.taken = None
        self.opponentKnocked = False

    def willDrawFaceUpCard(self, card):
        index = parse_card(str(card))
        take = any(m >> index & 1 for m in all_melds(mask(self.cards) | 1 << index))
        self.faceUp = card
        self.log("willDrawFaceUpCard", card, "->", take)
        return take

    def reportDraw(self, playerNum, drawnCard):
        self.log("reportDraw", playerNum, drawnCard)
        if playerNum == self.playerNum:
            assert drawnCard is not None and drawnCard not in self.cards, drawnCard
            self.taken = drawnCard if drawnCard is self.faceUp else None
            self.cards.append(drawnCard)

    def getDiscard(self):
        assert len(self.cards) == 11, self.cards
        left = deadwood_by_discard(mask(self.cards))
        choices = [c for c in self.cards if c is not self.taken]
        engine = {c: parse_card(str(c)) for c in choices}
        card = min(choices, key=lambda c: (left[engine[c]], -CARD_VALUES[engine[c]]))
        self.log("getDiscard", "->", card)
        return card

    def reportDiscard(self, playerNum, discardedCard):
        self.log("reportDiscard", playerNum, discardedCard)
        if playerNum == self.playerNum:
            self.cards.remove(discardedCard)  # by identity: the port's cards have no __eq__
        self.faceUp = self.taken = None

    def getFinalMelds(self):
        assert len(self.cards) == 10, self.cards
        melds = None
        if self.opponentKnocked or min_deadwood(mask(self.cards)) <= 10:
            by_text = {str(c): c for c in self.cards}
            arrangement = best_arrangement(mask(self.cards))
            ordered = sorted(arrangement.melds, key=lambda m: m.kind is MeldKind.SET)
            melds = [[by_text[t] for t in str(meld).split()] for meld in ordered]
        self.log("getFinalMelds", "->", "None" if melds is None else melds_text(melds))
        return melds

    def reportFinalMelds(self, playerNum, melds):
        self.log("reportFinalMelds", playerNum, melds_text(melds))
        if playerNum != self.playerNum:
            self.opponentKnocked = True

    def reportScores(self, scores):
        self.log("reportScores", *scores)

    def reportLayoff(self, playerNum, layoffCard, opponentMeld):
        self.log("reportLayoff", playerNum, layoffCard, text_of(opponentMeld))

    def reportFinalHand(self, playerNum, hand):
        self.log("reportFinalHand", playerNum, text_of(hand))
        if playerNum == self.playerNum:
            assert len(hand) == 10 and all(c in self.cards for c in hand), (hand, self.cards)
