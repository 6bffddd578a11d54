"""One seat of one match, as the session (:mod:`referee.session`) keeps it: the player in it,
its time bank, the retries it has left, its requests and the request it waits on."""

from __future__ import annotations

from dataclasses import dataclass

from referee.convert import EventEncoder
from referee.link import Player
from referee.requests import SeatRequests


@dataclass(slots=True)
class SeatState:
    """One seat of one match."""

    index: int
    conn: Player
    bank: float
    retries_left: int
    requests: SeatRequests
    outstanding: int | None = None

    @property
    def encoder(self) -> EventEncoder:
        """The seat's public events of the current hand, as sent."""
        return self.requests.encoder
