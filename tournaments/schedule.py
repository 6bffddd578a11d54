"""The schedule: pairings, every match's seats and seed, and the jobs that play them (pure).

Seeds. Deal ``d`` (1-based) of a pairing (or of a group of three players or two teams) has one
seed, HMAC-SHA256 of ``"ginref-pairing-deal:<x>.<y>:<d>:<attempt>"`` under the tournament's
secret deal key (63 bits): no other pairing plays it, so no match tells what another will be
dealt, and the live page shows a match's table while it is played (tournaments/live/watch.py).
Only the format shares a deal: the two matches of a duplicate pair (or a set of seatings), and
a deal set, which every pairing plays. With ``shared_deals = true`` deal ``d`` has one seed for
every pairing, HMAC-SHA256 of ``"ginref-tournament-deal:<d>:<attempt>"``, so game ``k`` of every
pairing plays the same deal sequence, like the openings of a cutechess round (the seeds every
tournament had before the setting, so that their journals resume as they began:
:func:`journaled_sharing`). The key is 32 random bytes used once, at the first run, which no
bot can read; only a tournament given a master seed (for a reproducible run) derives it from that
seed (:func:`deal_key`). A match's deals and its first dealer all come from its seed
(:mod:`referee.engine.deal`).

Balance within a pairing (X, Y; games counted across rounds from 0):

- seats: X sits in seat 0 in even games, in seat 1 in odd ones;
- first dealer: X deals first in games 0, 1 (mod 4) and Y in games 2, 3. The dealer is a seat
  (R2.2), so the seed of each deal is chosen (``attempt`` = 0, 1, ...) until the engine's first
  dealer is the seat wanted; under ``cut_high_chooses`` the seat that chooses is balanced
  instead, and a fixed ``seat0``/``seat1`` first dealer is balanced by the seat swap alone.

Duplicate deals: games 2j and 2j+1 share deal j and its seed, with the seats swapped. Dealing is
by seat (positions 0..19 alternate non-dealer, dealer; the first dealer is a seat drawn from the
seed), so the bot that sat in seat s in one match receives, in the other, every card that seat s
received: the first hand's cards exactly, and every later hand's while the dealer sequence
agrees (``dealer_rotation = alternate``; a dead hand or ``loser_deals`` can make it diverge;
under ``deal_order = seat0_first`` every hand's cards go by seat, whoever deals). The first
dealer's seat alternates between deal pairs, so seats and dealing stay balanced.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.engine.game import new_game
from referee.engine.rules import Rules
from tournaments.file.config import TournamentConfig
from tournaments.teams import base_seating, groups, rotated

_SEED_MASK = 2**63 - 1


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """One scheduled match."""

    key: str  # "<x>.<y>.<game:03d>" ("<x>.<y>.<z>.<game:03d>" for a triple), unique
    position: int  # order of play, 0-based
    round: int  # 1-based
    # (x, y) in the order of the bots in the file; a triple of bots (three players); or two
    # teams (partnerships), in the order of the teams in the file
    pairing: tuple[str, ...]
    game: int  # 1-based within the pairing, across rounds
    deal: int  # 1-based; the matches of a duplicate pair (or set) share it
    seed: int
    seats: tuple[str, ...]  # the bot in each seat
    sides: tuple[str, str] | None = None  # partnerships: the teams in seats 0, 2 and 1, 3

    @property
    def players(self) -> int:
        """Seats at the match."""
        return len(self.seats)


@dataclass(frozen=True, slots=True)
class Job:
    """Matches one executor plays in order with the same two bot processes (or one match)."""

    key: str  # file-safe, unique among the jobs of one run
    matches: tuple[MatchSpec, ...]
    keep: bool  # one process per bot for all the matches

    @property
    def pairing(self) -> tuple[str, ...]:
        """The pairing (or triple) of the job's matches."""
        return self.matches[0].pairing

    @property
    def bots(self) -> tuple[str, ...]:
        """The bot in each seat of the first match: bot A (seat 0), bot B, ..."""
        return self.matches[0].seats


def clash(a: Job, b: Job) -> bool:
    """Whether two jobs must not be played at once: a bot of both would play the same deal
    (the same seed) in each, and its two instances could tell each other the cards its
    opponents hold in the other match (docs/security.md)."""
    return not _deal_seats(a).isdisjoint(_deal_seats(b))


def _deal_seats(job: Job) -> set[tuple[int, str]]:
    """Each (seed, bot) of a job's matches."""
    return {(spec.seed, bot) for spec in job.matches for bot in spec.seats}


def pairings(config: TournamentConfig) -> list[tuple[str, ...]]:
    """The pairings of one round (pairs of bots or of teams, or triples of bots), in the
    order of the file."""
    return groups(config.players, config.entrants, config.format, config.challengers)


def deal_key(master: int | None) -> bytes:
    """The secret every match seed of a tournament derives from: 32 random bytes, or, for a
    reproducible run, a hash of the master seed (whoever knows that seed can derive every deal,
    so a competition leaves it out)."""
    if master is None:
        return secrets.token_bytes(32)
    return hashlib.sha256(f"ginref-master-seed:{master}".encode()).digest()


def shares_deals(config: TournamentConfig) -> bool:
    """Whether game k of every pairing (every group) plays one deal: a deal set's, or with
    ``shared_deals = true``. Otherwise (the default) each pairing's deals are its own."""
    return config.deals is not None or bool(config.shared_deals)


def journaled_sharing(config: TournamentConfig, identity: Mapping[str, Any]) -> TournamentConfig:
    """``config`` resuming the tournament journaled with ``identity``: unless the file says
    whether its deals are shared, they are as the journal began them (a journal from before the
    setting shares them: its identity has no ``shared_deals``)."""
    if config.shared_deals is not None:
        return config
    return config.with_changes(shared_deals=identity.get("shared_deals", True))


def _candidate(key: bytes, deal: int, attempt: int, group: str | None) -> int:
    if group is None:  # every pairing's deal
        text = f"ginref-tournament-deal:{deal}:{attempt}".encode()
    else:
        text = f"ginref-pairing-deal:{group}:{deal}:{attempt}".encode()
    digest = hmac.new(key, text, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & _SEED_MASK


def first_decider(rules: Rules, seed: int) -> int:
    """The seat that deals first under ``rules`` and ``seed`` (or that chooses who deals);
    with partnerships, the side that deals first at table 0."""
    game = new_game(rules, seed)
    if game.chooser is not None:
        return game.chooser
    if game.sitting_out is not None:
        return game.sitting_out  # three players: the dealer sits out
    return game.tables[0].hand.dealer


def deal_seed(key: bytes, deal: int, rules: Rules, seat: int, group: str | None = None) -> int:
    """The seed of deal ``deal`` of the pairing (group) named ``group`` ("x.y"; None: of every
    pairing), HMAC-SHA256 under ``key``: the first candidate whose first dealer is ``seat``.
    Without the key, one match's seed tells nothing of another's."""
    if rules.first_dealer in ("seat0", "seat1"):
        return _candidate(key, deal, 0, group)
    attempt = 0
    while True:
        seed = _candidate(key, deal, attempt, group)
        if first_decider(rules, seed) == seat:
            return seed
        attempt += 1


class _Seeds:
    """Each deal's seed, drawn once: the deal set's, or one drawn from the key whose first
    dealer is the seat wanted (a set's seeds are played as they are: their first dealers are
    their own); one per deal of every pairing, or per deal of each pairing."""

    def __init__(self, config: TournamentConfig, key: bytes) -> None:
        self._config = config
        self._key = key
        self._shared = shares_deals(config)
        self._seeds: dict[tuple[int, str | None], int] = {}

    def seed(self, deal: int, seat: int, group: Sequence[str]) -> int:
        """The seed of deal ``deal`` (1-based) of ``group``, its first dealer ``seat``."""
        if self._config.deals is not None:
            return self._config.deals.seed(deal)
        scope = (deal, None if self._shared else ".".join(group))
        if scope not in self._seeds:
            self._seeds[scope] = deal_seed(self._key, deal, self._config.rules, seat, scope[1])
        return self._seeds[scope]


def build_schedule(config: TournamentConfig, key: bytes) -> list[MatchSpec]:
    """Every match of the tournament in order of play: round by round, game by game."""
    rules = config.rules
    if rules.players > 2:
        return _group_schedule(config, key)
    rounds = config.rounds * (2 if config.format == "double-round-robin" else 1)
    # A sequential test schedules the most matches it may play, and stops when it decides.
    matches = config.sprt.max_matches if config.format == "sprt" else config.matches
    pairs = pairings(config)
    seeds = _Seeds(config, key)
    specs: list[MatchSpec] = []
    for r in range(rounds):
        for g in range(matches):
            k = r * matches + g  # 0-based game of the pairing
            if config.duplicate:
                deal = k // 2
                dealer_seat = deal % 2
            else:
                deal = k
                dealer_seat = (0, 1, 1, 0)[k % 4]
            for x, y in pairs:
                seats = (x, y) if k % 2 == 0 else (y, x)
                specs.append(
                    MatchSpec(
                        key=f"{x}.{y}.{k + 1:03d}",
                        position=len(specs),
                        round=r + 1,
                        pairing=(x, y),
                        game=k + 1,
                        deal=deal + 1,
                        seed=seeds.seed(deal + 1, dealer_seat, (x, y)),
                        seats=seats,
                    )
                )
    return specs


def _group_schedule(config: TournamentConfig, key: bytes) -> list[MatchSpec]:
    """Three players or partnerships: each of a group's ``matches`` per round is a set of
    seatings (a triple's three rotations, two teams' two sides), played one after the other;
    game k seats the bots of the base seating k seats on, so with partnerships every bot sits in
    each seat of its team's in four games.
    The first dealer's seat (three players) or the side dealing first at table 0 (partnerships)
    is the same throughout a set and moves on from set to set, so within a set every bot (team)
    deals first once; with ``duplicate`` the set shares one deal."""
    rules = config.rules
    players = rules.players
    rounds = config.rounds * (2 if config.format == "double-round-robin" else 1)
    turns = 3 if players == 3 else 2
    seeds = _Seeds(config, key)
    specs: list[MatchSpec] = []
    for r in range(rounds):
        for g in range(config.matches):
            at = r * config.matches + g  # 0-based set of the group
            for turn in range(turns):
                k = at * turns + turn  # 0-based game of the group
                deal = at if config.duplicate else k
                for group in pairings(config):
                    # Game k is the base seating moved k seats on, as a kept series moves it.
                    seats = rotated(base_seating(players, group, config.team_entries), k)
                    sides = None
                    if players == 4:
                        sides = (group[k % 2], group[1 - k % 2])
                    specs.append(
                        MatchSpec(
                            key=".".join(group) + f".{k + 1:03d}",
                            position=len(specs),
                            round=r + 1,
                            pairing=group,
                            game=k + 1,
                            deal=deal + 1,
                            seed=seeds.seed(deal + 1, at % turns, group),
                            seats=seats,
                            sides=sides,
                        )
                    )
    return specs


def alternating_runs(specs: Sequence[MatchSpec]) -> list[list[MatchSpec]]:
    """Split one pairing's matches (in order) into runs whose seats move on match by match as
    a series moves them (two players: they alternate; more: every bot one seat on)."""
    runs: list[list[MatchSpec]] = []
    for spec in specs:
        last = runs[-1][-1] if runs else None
        if last is not None and spec.seats == rotated(last.seats, 1):
            runs[-1].append(spec)
        else:
            runs.append([spec])
    return runs


def _series_job(run: Sequence[MatchSpec]) -> Job:
    group = ".".join(run[0].pairing)
    return Job(f"{group}/m{run[0].game:03d}-{run[-1].game:03d}", tuple(run), True)


def deal_sets(specs: Sequence[MatchSpec]) -> list[list[MatchSpec]]:
    """One pairing's matches (in order) grouped by deal: a duplicate pair or set of seatings
    shares one, and so one seed; the groups in order of their first match."""
    by_seed: dict[int, list[MatchSpec]] = {}
    for spec in specs:
        by_seed.setdefault(spec.seed, []).append(spec)
    return list(by_seed.values())


def deal_free_runs(sets: Sequence[Sequence[MatchSpec]]) -> list[list[MatchSpec]]:
    """Split one pairing's :func:`deal_sets` into series none of which plays a deal twice.

    A kept process that played a deal would know the deck of its twin match (the other match of
    a duplicate pair, or of a set of seatings), so the twins go to different series: with sets
    of ``width`` matches, series ``r`` takes match ``(r + i) % width`` of the ``i``-th set, which
    moves the seats on match by match as a series does. Where a set is missing matches (a
    resumed run) the seats may not move on, and the series is split there."""
    width = max(len(twins) for twins in sets)
    interleaved: list[list[MatchSpec]] = [[] for _ in range(width)]
    for i, twins in enumerate(sets):
        for spec in twins:
            interleaved[((spec.game - 1) % width - i) % width].append(spec)
    return [part for run in interleaved for part in _split_repeats(alternating_runs(run))]


def _split_repeats(runs: Iterable[Sequence[MatchSpec]]) -> Iterator[list[MatchSpec]]:
    """The runs, each split before a deal it already holds: whatever the numbering, never one
    deal twice in a series."""
    for run in runs:
        current: list[MatchSpec] = []
        for spec in run:
            if any(m.seed == spec.seed for m in current):
                yield current
                current = []
            current.append(spec)
        yield current


def make_jobs(
    specs: Iterable[MatchSpec], keep: bool, lanes: int = 1, chunk: int | None = None
) -> list[Job]:
    """Jobs for ``specs`` (in order of play): one per match, or with ``keep`` one per series of a
    pairing within a round (split where the seats do not alternate, and with twin matches of one
    deal in different series: :func:`deal_free_runs`). With fewer series than ``lanes`` times
    the twins of a deal (series that share deals are not played at once), the longest series
    are halved until every lane has one (or each is one match). ``chunk``: no series is longer,
    so that lanes play the matches nearly in order (a sequential test counts them in order)."""
    specs = list(specs)
    if not keep:
        return [Job(f"{'.'.join(s.pairing)}/m{s.game:03d}", (s,), False) for s in specs]
    groups: dict[tuple[int, tuple[str, ...]], list[MatchSpec]] = {}
    for spec in specs:
        groups.setdefault((spec.round, spec.pairing), []).append(spec)
    runs: list[list[MatchSpec]] = []
    width = 1  # the most matches of one deal in a pairing: that many series share each deal
    for group in groups.values():
        sets = deal_sets(sorted(group, key=lambda s: s.game))
        width = max(width, *map(len, sets))
        runs.extend(deal_free_runs(sets))
    if chunk is not None:
        runs = [run[i : i + chunk] for run in runs for i in range(0, len(run), chunk)]
    while runs and len(runs) < lanes * width:
        longest = max(runs, key=len)
        if len(longest) < 2:
            break
        half = (len(longest) + 1) // 2
        at = runs.index(longest)
        runs[at : at + 1] = [longest[:half], longest[half:]]
    jobs = [_series_job(run) for run in runs]
    jobs.sort(key=lambda j: j.matches[0].position)
    return jobs
