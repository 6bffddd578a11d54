"""The test suite: folders mirror the packages (engine, referee, bots, replays, tournaments,
sample_bots, cli); helpers and the hostile test bot live in ``tests/support``.

End-to-end tests (real bot processes, servers, browsers) carry the ``slow`` marker:
``pytest -m "not slow"`` runs the rest in well under a minute; ``scripts/test`` runs everything.
"""
