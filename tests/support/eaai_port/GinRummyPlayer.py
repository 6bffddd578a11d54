"""A stand-in for the EAAI Python port's player interface (Python/GinRummyPlayer.py): the ten
methods its GinRummyGame calls, doing nothing."""


class GinRummyPlayer:
    def startGame(self, playerNum, startingPlayerNum, cards):
        pass

    def willDrawFaceUpCard(self, card):
        pass

    def reportDraw(self, playerNum, drawnCard):
        pass

    def getDiscard(self):
        pass

    def reportDiscard(self, playerNum, discardedCard):
        pass

    def getFinalMelds(self):
        pass

    def reportFinalMelds(self, playerNum, melds):
        pass

    def reportScores(self, scores):
        pass

    def reportLayoff(self, playerNum, layoffCard, opponentMeld):
        pass

    def reportFinalHand(self, playerNum, hand):
        pass
