"""The test suite: folders mirror the packages (engine, referee, bots, replays, tournaments,
sample_bots, cli); helpers and the hostile test bot live in ``tests/support``.

End-to-end tests (real bot processes, servers, browsers) carry the ``slow`` marker:
``pytest -m "not slow"`` runs the rest in well under a minute; ``scripts/test`` runs everything.
"""

from hypothesis import HealthCheck, settings

# No test may depend on the machine's speed: hypothesis's per-example deadline and its health
# check of slow data generation both do, so neither applies anywhere (max_examples bounds the
# time instead). A test's own @settings keeps these unless it names them.
settings.register_profile("ginref", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ginref")
