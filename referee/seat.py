"""One seat of one match, as the session (:mod:`referee.session`) keeps it: the player in it,
its time bank, the retries it has left, its requests and the request it waits on."""

from __future__ import annotations

from dataclasses import dataclass

from referee.convert import EventEncoder
from referee.link import Player
from referee.requests import SeatRequests
from referee.results import SeatInfo


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

    def info(self) -> SeatInfo:
        """Who played the seat, for the match's outcome."""
        conn = self.conn
        return SeatInfo(
            label=conn.label,
            command=conn.command,
            name=conn.link.name if conn.link else "",
            version=conn.link.version if conn.link else "",
            output=conn.proc.output,
        )
