"""A hosted referee's executor: remote bots connect to it, local bots are started as usual.

:class:`HostedExecutor` is the local executor (:class:`~tournaments.executors.local.LocalExecutor`:
sandboxed local bots on the referee's own internal server) plus a public listener for remote
bots: TLS on the ``[serve]`` address (plain text only on loopback), each Hello checked against
the tournament's tokens (:class:`~tournaments.tokens.TokenCheck`), and the remote bots' streams
kept in a :class:`~referee.lobby.Lobby` until the schedule needs them. Everything else — the
schedule, the journal, resume after a kill, the standings — is the tournament runner's, as for
a tournament of local bots only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from referee.bots.confine import Confinement
from referee.lobby import Lobby
from referee.server import RefereeServer
from tournaments.executors.local import LocalExecutor
from tournaments.file.config import TournamentConfig
from tournaments.file.serve import ServeSettings, split_address
from tournaments.tokens import TokenCheck

TOKEN_POLL = 1.0  # seconds between looks at the tokens file, to end a revoked bot's streams


class HostedExecutor(LocalExecutor):
    """Local bots as local processes, remote bots over the public listener's lobby."""

    def __init__(
        self,
        config: TournamentConfig,
        root: Path,
        confinement: Confinement | None = None,
        settings: ServeSettings | None = None,
        on_listening: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(config, root, confinement)
        self.settings = settings or config.serve
        self.absent_wait = self.settings.absent_wait
        self.tokens = TokenCheck(root, set(self.remote))
        self.lobby: Lobby = Lobby(self.tokens)
        self.public: RefereeServer | None = None
        self._watch: asyncio.Task[None] | None = None
        self._on_listening = on_listening

    @property
    def address(self) -> str:
        """``host:port`` where remote bots connect (the real port once started)."""
        return self.public.address if self.public is not None else self.settings.address

    async def start(self) -> None:
        """Start the local server and sandbox, then the public listener."""
        await super().start()
        host, port = split_address(self.settings.address, "address")
        self.public = RefereeServer(
            host,
            port,
            hello_timeout=self.options.connect_timeout,
            max_message_bytes=self.options.limits.message_bytes,
            tls=self.settings.tls,
            lobby=self.lobby,
        )
        await self.public.start()
        self.lobby.bar(set(self.tokens.missing()))
        self._watch = asyncio.ensure_future(self._watch_tokens())
        if self._on_listening is not None:
            self._on_listening(self.public.address)

    async def _watch_tokens(self) -> None:
        """End the idle streams of a bot whose token was revoked or re-issued, and bar the bots
        without a token from their matches (none is waited for: it cannot connect)."""
        assert self.lobby is not None
        while True:
            await asyncio.sleep(TOKEN_POLL)
            for bot in self.tokens.take_changed():
                self.lobby.drop(bot)
            self.lobby.bar(set(self.tokens.missing()))

    async def close(self, complete: bool = False) -> None:
        """End the remote bots' streams (status OK when the tournament is ``complete``; else
        the listener's stop ends them with UNAVAILABLE, so that their bots know to come back),
        stop the public listener, then the rest."""
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        if self.lobby is not None and complete:
            self.lobby.close()
        if self.public is not None:
            await self.public.stop(grace=0.5)
            self.public = None
        await super().close(complete)
