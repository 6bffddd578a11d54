"""ginref: a Gin Rummy rules engine, a gRPC referee for bots in any language, and replays.

The layers, each importing only those before it (docs/architecture.md):

- :mod:`referee.engine`: the rules, pure and deterministic, standard library only;
- :mod:`referee` itself: wire conversion, transport, server, the per-match session, series and
  replay logs; :mod:`referee.bots`: bot processes (spec, launch, limits, watch);
- :mod:`replays` and :mod:`tournaments`; then :mod:`ginref.cli`, the command line.

The engine's public names are re-exported here, loaded on first use (importing
``referee.wire`` for a bot does not pay for the engine)::

    from referee import Match, Rules, parse_cards, min_deadwood
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.engine import *  # noqa: F403

from referee.engine import __all__ as __all__


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'referee' has no attribute {name!r}")
    import referee.engine

    value = getattr(referee.engine, name)
    globals()[name] = value
    return value
