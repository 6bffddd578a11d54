"""How much of a tournament the live page shows while it is played: the deals' embargo
(tournaments/live/watch.py) over the real schedule, with deals shared by every pairing (game k
of every pairing on one deal, ginref's schedule before ``shared_deals``) and with each pairing's
deals its own (the default since).

For each tournament (round robins of 3 and of 10 bots, and one of 10 bots on duplicate deals),
each way of dealing and each ``-j``, a run is simulated: the jobs of the real schedule
(``build_schedule``, ``make_jobs`` with fresh processes: a match a job), each lane taking the
next job in order that clashes with none in play (``clash``: the runner's rule, restated in
:func:`play`), each match lasting a time drawn at random from 0.5 to 1.5 units (the same draws
for both ways of dealing). The tournament's directory is written as a run writes it: the journal
(its schedule, a session, each match committed as it ends) and each match's replay log under
``logs/`` (its header when it starts, the whole log when it ends; the logs are played by the
tests' engine players, tests/support/group_logs.py). After each start and each end the live
page's own watch (:class:`~tournaments.live.watch.TournamentWatch`) polls the directory, and what
its state says of each match in play (a table, or an embargo) holds until the next event.

The figures, per case: **from the start**, the share of matches whose table is shown from their
first move; **at all**, the share shown at some time while they are played; **time**, the share
of the time matches are played during which their table is shown; and the run's length in units
(each pairing's own deals clash less, so lanes are busier).

Run: ``.venv/bin/python benchmarks/bench_live_deals.py [--matches 4] [--jobs 2,8] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.engine.rules import Rules  # noqa: E402
from tests.support.group_logs import two_player_log  # noqa: E402
from tests.support.replay_helpers import lines_of  # noqa: E402
from tournaments.file.config import TournamentConfig, parse_text  # noqa: E402
from tournaments.journal.records import MatchRecord  # noqa: E402
from tournaments.journal.store import Journal, open_journal  # noqa: E402
from tournaments.live.watch import TournamentWatch  # noqa: E402
from tournaments.runner import LOGS  # noqa: E402
from tournaments.schedule import Job, MatchSpec, build_schedule, clash, deal_key, make_jobs  # noqa: E402

RULES = Rules.profile("standard", target=25)  # the logs' own matches: short ones
CASES = (
    ("round robin, 3 bots", 3, ""),
    ("round robin, 10 bots", 10, ""),
    ("duplicate, 10 bots", 10, "duplicate = true\n"),
)
DEALINGS = (("shared (before)", "shared_deals = true\n"), ("own (now)", ""))


def tournament(bots: int, matches: int, extra: str, dealing: str) -> TournamentConfig:
    text = f'name = "watched"\nseed = 1\nmatches = {matches}\n{extra}{dealing}'
    text += "".join(f'[[bots]]\nname = "b{i:02d}"\ncommand = "x"\n' for i in range(bots))
    return parse_text(text, "<bench>")


@dataclass
class Directory:
    """A tournament's directory as a run writes it, and the live page's watch of it."""

    root: Path
    config: TournamentConfig
    schedule: list[MatchSpec]
    journal: Journal = field(init=False)
    session: int = field(init=False)
    watch: TournamentWatch = field(init=False)
    lines: dict[str, list[str]] = field(default_factory=dict)
    logs: dict[str, Path] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True)
        self.journal = open_journal(self.root)
        bots = [b.to_dict() for b in self.config.bots]
        identity = self.config.identity()
        self.journal.initialise(identity, self.config.to_dict(), bots, self.schedule)
        self.session = self.journal.start_session(1)
        # A clock that stands still: the standings are fitted once, and no match stalls.
        self.watch = TournamentWatch(self.root, clock=lambda: 0.0)
        self.watch.open()

    def start(self, job: Job) -> None:
        (spec,) = job.matches
        scratch = self.root.parent / f"{spec.key}.full.jsonl"
        two_player_log(scratch, RULES, seed=spec.seed, labels=(spec.seats[0], spec.seats[1]))
        self.lines[spec.key] = lines_of(scratch)
        scratch.unlink()
        path = self.root / LOGS / job.key / f"{spec.key}.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(self.lines[spec.key][0] + "\n")  # the header: who plays, which deal
        self.logs[spec.key] = path

    def finish(self, job: Job) -> None:
        (spec,) = job.matches
        path = self.logs[spec.key]
        path.write_text("".join(line + "\n" for line in self.lines[spec.key]))
        header, result = (json.loads(self.lines[spec.key][i]) for i in (0, -1))
        record = MatchRecord(
            key=spec.key,
            seats=spec.seats,
            seed=spec.seed,
            deal=spec.deal,
            match_id=header["match_id"],
            termination=result["termination"],
            winner=result["winner"],
            final=tuple(result["final"]),
            margin=result["margin"],
            hands_played=result["hands_played"],
            forfeit=None,
            hands=(),
            faults=(),
            decisions=(1, 1),
            think_ms=(1.0, 1.0),
            log_path=str(path.relative_to(self.root)),
            log_sha256="0" * 64,
            log_bytes=path.stat().st_size,
            started="2026-01-01T00:00:00+00:00",
            elapsed_s=1.0,
            placings=tuple(result.get("placings", ())),
        )
        self.journal.commit_match(record, self.session)

    def shown(self) -> dict[str, bool]:
        """Each match in play, by key: whether the page shows its table (no embargo)."""
        self.watch.poll()
        return {e["key"]: e["embargo"] is None for e in self.watch.state()["live"]}

    def close(self) -> None:
        self.watch.close()
        self.journal.close()


@dataclass
class Figures:
    matches: int = 0
    from_start: int = 0
    at_all: int = 0
    shown_time: float = 0.0
    play_time: float = 0.0
    length: float = 0.0


def play(directory: Directory, lanes: int, durations: dict[str, float]) -> Figures:
    """Run the schedule ``lanes`` jobs at once, as the runner orders them; what the watch showed."""
    jobs = deque(make_jobs(directory.schedule, keep=False))
    in_play: dict[str, tuple[float, Job]] = {}  # by match key: its end, its job
    now = 0.0
    figures = Figures(matches=len(directory.schedule))
    ever: set[str] = set()
    while jobs or in_play:
        started = []
        while len(in_play) < lanes:
            # The runner's lane: the next job in order that clashes with none in play.
            job = next((j for j in jobs if not any(clash(j, r) for _, r in in_play.values())), None)
            if job is None:
                break
            jobs.remove(job)
            directory.start(job)
            key = job.matches[0].key
            in_play[key] = (now + durations[key], job)
            started.append(key)
        shown = directory.shown()
        assert set(shown) == set(in_play), "the watch lists exactly the matches in play"
        figures.from_start += sum(shown[key] for key in started)
        ever |= {key for key, on in shown.items() if on}
        key, (end, job) = min(in_play.items(), key=lambda item: item[1][0])
        for on in shown.values():
            figures.shown_time += (end - now) * on
            figures.play_time += end - now
        now = end
        del in_play[key]
        directory.finish(job)
    figures.at_all = len(ever)
    figures.length = now
    return figures


def measure(matches: int, lanes: int, seed: int, folder: Path) -> list[tuple[str, str, Figures]]:
    rows = []
    for name, bots, extra in CASES:
        draws: dict[str, float] | None = None
        for dealing_name, dealing in DEALINGS:
            config = tournament(bots, matches, extra, dealing)
            schedule = build_schedule(config, deal_key(config.seed))
            if draws is None:
                rng = random.Random(seed)
                draws = {s.key: rng.uniform(0.5, 1.5) for s in schedule}
            root = folder / f"j{lanes}-{bots}-{bool(extra)}-{dealing_name.split()[0]}" / "t"
            directory = Directory(root, config, schedule)
            try:
                rows.append((name, dealing_name, play(directory, lanes, draws)))
            finally:
                directory.close()
    return rows


def percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=4, help="matches per pairing")
    parser.add_argument("--jobs", default="2,8", help="-j values, comma-separated")
    parser.add_argument("--seed", type=int, default=1, help="the matches' durations")
    args = parser.parse_args()
    began = time.perf_counter()
    print(f"matches = {args.matches} per pairing; durations uniform 0.5-1.5, seed {args.seed}")
    print()
    print("| Tournament | -j | Deals | Matches | Shown from the start | Shown at all | Time shown "
          "| Run length |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for lanes in (int(j) for j in args.jobs.split(",")):
            for name, dealing, f in measure(args.matches, lanes, args.seed, Path(tmp)):
                print(
                    f"| {name} | {lanes} | {dealing} | {f.matches} | "
                    f"{percent(f.from_start, f.matches)} | {percent(f.at_all, f.matches)} | "
                    f"{percent(f.shown_time, f.play_time)} | {f.length:.1f} |"
                )
    print(f"\n({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
