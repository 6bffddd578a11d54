"""A stand-in for the EAAI Python port's Deck module (Python/Deck.py): the 52 card objects,
made once, and the map from a card's name to its object."""

from typing import ClassVar

from Card import Card


class Deck:
    allCards: ClassVar[list[Card]] = [
        Card(rank, suit) for suit in range(Card.NUM_SUITS) for rank in range(Card.NUM_RANKS)
    ]
    strCardMap: ClassVar[dict[str, Card]] = {str(card): card for card in allCards}

    @staticmethod
    def getCard(id):
        return Deck.allCards[id]
