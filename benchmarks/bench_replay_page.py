"""The replay page of a long match: its size and the time ``render_html`` takes to write it.

The logs: a long two-player match between fake players through the real session
(``fake_match_log``: some 1,700 records, tests/test_replay_html.py's long match), long matches
of three players and of partnerships (``group_match_log`` to a high target), and the longest
logs of the golden corpus (tests/data/golden/logs). Each log is read once (``load_replay``, not
timed); then ``render_html`` is timed ``--rounds`` times and the median reported, with the
page's size in bytes and the deflated frames' share of it.

Run: ``.venv/bin/python benchmarks/bench_replay_page.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.timeline import load_replay  # noqa: E402
from replays.html import render_html  # noqa: E402
from tests.support.group_logs import group_match_log, group_rules  # noqa: E402
from tests.support.replay_helpers import fake_match_log, page_data  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "golden" / "logs"


def logs(folder: Path) -> dict[str, Path]:
    """The benchmark's logs by name: the generated long matches, then the golden ones."""
    made = {"long-2p": fake_match_log(folder)}
    for players in (3, 4):
        rules = group_rules(players, "standard", target=400)
        made[f"long-{players}p"] = group_match_log(folder / f"{players}.jsonl", rules, seed=3)
    for name in ("hollywood", "partners", "three-players"):
        made[name] = GOLDEN / f"{name}.jsonl"
    return made


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7, help="timed runs (median reported)")
    args = parser.parse_args(argv)
    print(f"{'log':<15}{'records':>9}{'log KB':>9}{'page KB':>9}{'frames KB':>11}{'render ms':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in logs(Path(tmp)).items():
            timeline = load_replay(path)
            times = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                page = render_html(timeline)
                times.append(time.perf_counter() - start)
            frames = len(page_data(page)["frames"]["deflate"])
            print(
                f"{name:<15}{len(timeline.steps):>9}{path.stat().st_size / 1000:>9.1f}"
                f"{len(page.encode('utf-8')) / 1000:>9.1f}{frames / 1000:>11.1f}"
                f"{statistics.median(times) * 1000:>11.1f}"
            )


if __name__ == "__main__":
    main()
