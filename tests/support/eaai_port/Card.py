"""A stand-in for the EAAI Python port's Card module (Python/Card.py), for the bridge's tests:
the same names and behaviour that agents rely on, written from its interface. Like the port's,
a card has no ``__eq__``: cards compare by identity, so the bridge must hand agents the 52
objects of ``Deck.strCardMap``."""

from typing import ClassVar


class Card:
    rankNames: ClassVar[list[str]] = [
        "A",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "9",
        "T",
        "J",
        "Q",
        "K",
    ]
    suitNames: ClassVar[list[str]] = [
        "C",
        "H",
        "S",
        "D",
    ]  # the port's suit order (ids differ from ginref's)
    NUM_RANKS = 13
    NUM_SUITS = 4
    NUM_CARDS = 52

    def __init__(self, rank, suit):
        self.rank = rank
        self.suit = suit

    def getRank(self):
        return self.rank

    def getSuit(self):
        return self.suit

    def getId(self):
        return self.suit * Card.NUM_RANKS + self.rank

    def __str__(self):
        return Card.rankNames[self.rank] + Card.suitNames[self.suit]

    __repr__ = __str__
