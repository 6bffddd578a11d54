"""Standings from journaled matches: per-bot tallies, ratings with intervals, head to head, and
duplicate pairs; written as CSV and JSON beside the journal.

Ratings are Bradley–Terry on the Elo scale with 95% intervals (:mod:`tournaments.results.ratings`);
a drawn match (nobody won) counts half a win to each side.

Duplicate deals: for each pairing, the two matches of each deal (same seed, seats swapped) are
added up; the paired score difference per match is the mean over deals of
``(d_first + d_second) / 2``, where ``d`` is X's final score minus Y's. Its 95% t-interval is
compared with the interval the same matches would give if they were independent (the ordinary
t-interval over the individual ``d``), which is what independent deals would have given.

A match nobody won is a draw (½ point each), except when both seats forfeited (neither bot
connected, say): that is a loss for both, no point, and it is left out of the ratings.

A bot the organiser withdrew forfeits its matches left: they count as forfeits, scored but not
rated (no game was played), nor counted in duplicate pairs. A disqualified bot's matches are
struck, and it is ranked last (:mod:`tournaments.journal.withdrawals`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tournaments.journal.records import MatchRecord
from tournaments.journal.store import Journal, JournalError, open_journal
from tournaments.journal.withdrawals import DISQUALIFIED, Counted, counted, is_withdrawal
from tournaments.results.ratings import fit_ratings
from tournaments.teams import TeamEntry

STANDINGS_CSV = "standings.csv"
STANDINGS_JSON = "standings.json"
CROSSTABLE_CSV = "crosstable.csv"
TEAMS_CSV = "teams.csv"  # partnerships: one row per team
FAULT_KINDS = (
    "illegal_action",
    "malformed_action",
    "out_of_turn",
    "protocol_error",
    "deadline_missed",
    "time_bank_exhausted",
    "disconnected",
    "crashed",
    "not_connected",
)


@dataclass(slots=True)
class BotStanding:
    """One bot's line of the standings."""

    name: str
    rank: int = 0
    matches: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    points: float = 0.0  # 1 per win, 1/2 per draw
    elo: float | None = None
    elo_low: float | None = None
    elo_high: float | None = None
    score_for: int = 0  # final match scores
    score_against: int = 0
    hand_points_for: int = 0
    hand_points_against: int = 0
    hands: int = 0
    hands_won: int = 0
    gins: int = 0  # gin and big gin
    big_gins: int = 0
    undercuts: int = 0  # hands won by undercutting the knocker
    knocks: int = 0  # hands won by a knock
    forfeits: int = 0  # matches lost by this bot's fault
    games: int = 0  # results: one a match with two players, one per opponent with more
    firsts: int = 0  # matches won (with partnerships: by its team)
    faults: dict[str, int] = field(default_factory=dict)
    decisions: int = 0
    think_ms: float = 0.0

    @property
    def score_pct(self) -> float | None:
        """Points as a percentage of results (of matches, with two players)."""
        return None if not self.games else 100.0 * self.points / self.games

    @property
    def mean_think_ms(self) -> float | None:
        """Mean time per decision as the referee measured it (network included)."""
        return None if not self.decisions else self.think_ms / self.decisions

    @property
    def fault_total(self) -> int:
        """Faults of every kind (retried ones included)."""
        return sum(self.faults.values())


@dataclass(slots=True)
class HeadToHead:
    """``bot``'s results against ``opponent``."""

    bot: str
    opponent: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def matches(self) -> int:
        """Matches between the two."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """1 per win, 1/2 per draw."""
        return self.wins + self.draws / 2


@dataclass(slots=True)
class DealPair:
    """The two matches of one deal in a duplicate pairing, as paired totals (X's view)."""

    deal: int
    seed: int
    x_points: float  # match points of X over both matches (0, 0.5, ..., 2)
    y_points: float
    x_score: int  # X's final scores added up
    y_score: int


@dataclass(slots=True)
class DuplicatePairing:
    """A pairing's duplicate result: paired totals and the interval they give."""

    x: str
    y: str
    pairs: list[DealPair]
    unpaired_matches: int  # matches whose partner is not played yet
    x_pair_wins: int = 0  # deals where X's paired match points exceed Y's
    split: int = 0
    y_pair_wins: int = 0
    mean_diff: float | None = None  # X minus Y, final score per match
    paired_ci: tuple[float, float] | None = None
    unpaired_ci: tuple[float, float] | None = None

    @property
    def narrowing(self) -> float | None:
        """Unpaired interval width over paired width (> 1: duplicate is narrower)."""
        if self.paired_ci is None or self.unpaired_ci is None:
            return None
        paired = self.paired_ci[1] - self.paired_ci[0]
        unpaired = self.unpaired_ci[1] - self.unpaired_ci[0]
        return None if paired <= 0 else unpaired / paired


@dataclass(slots=True)
class Standings:
    """Everything the standings report shows."""

    name: str
    bots: list[BotStanding]  # ranked
    head_to_head: dict[tuple[str, str], HeadToHead]
    duplicate: list[DuplicatePairing]
    done: int
    total: int
    rating_note: str
    rating_notes: tuple[str, ...] = ()  # what to know about particular ratings, in words
    players: int = 2  # seats at each match
    teams: Standings | None = None  # partnerships: the teams' standings, teams as players
    team_bots: dict[str, tuple[str, str]] = field(default_factory=dict)  # team -> its bots
    withdrawn: dict[str, str] = field(default_factory=dict)  # bot -> withdrawn, disqualified
    withdrawal_notes: tuple[str, ...] = ()  # what became of each, in words


def _blank_faults() -> dict[str, int]:
    return dict.fromkeys(FAULT_KINDS, 0)


def compute_standings(
    name: str,
    bots: Sequence[str],
    records: Iterable[MatchRecord],
    total: int,
    *,
    duplicate: bool = False,
    ratings: bool = True,
    teams: Sequence[TeamEntry] = (),
    players: int | None = None,
    withdrawn: Mapping[str, str] | None = None,
    withdrawal_notes: Sequence[str] = (),
) -> Standings:
    """Standings of ``bots`` (file order) from finished matches of ``players`` seats (default:
    as many as the matches have); with ``teams`` (partnerships) the teams' standings too, in
    :attr:`Standings.teams`. ``withdrawn``: the bots taken out of play (the forfeits and
    struck matches already applied to ``records``: :func:`counted_matches`)."""
    withdrawn = dict(withdrawn or {})
    records = list(records)
    players = players or max((r.players for r in records), default=4 if teams else 2)
    table = {b: BotStanding(b, faults=_blank_faults()) for b in bots}
    h2h = {(a, b): HeadToHead(a, b) for a in bots for b in bots if a != b}
    rated: list[tuple[str, str, float]] = []
    for r in records:
        for i, j, score in r.pairs():
            a, b = r.seats[i], r.seats[j]
            rated += [] if score is None or is_withdrawal(r) else [(a, b, score)]
            for bot, other, mine in ((a, b, score), (b, a, None if score is None else 1 - score)):
                s, h = table[bot], h2h[(bot, other)]
                s.games += 1
                if mine is None or mine == 0.0:
                    s.losses, h.losses = s.losses + 1, h.losses + 1
                elif mine == 1.0:
                    s.wins, h.wins = s.wins + 1, h.wins + 1
                else:
                    s.draws, h.draws = s.draws + 1, h.draws + 1
                s.points += mine or 0.0
        for seat, bot in enumerate(r.seats):
            _tally_seat(table[bot], r, seat, first=r.seats.index(bot) == seat)
    note = ""
    notes: tuple[str, ...] = ()
    if ratings:
        try:
            fit = fit_ratings(bots, rated)
            fitted, notes = fit.elo, fit.notes
        except Exception as exc:  # a fit that fails must not cost the standings
            fitted, note = {}, f"ratings unavailable: {type(exc).__name__}: {exc}"
        for bot, (elo, low, high) in fitted.items():
            table[bot].elo, table[bot].elo_low, table[bot].elo_high = elo, low, high
        if not note:
            note = (
                "Elo: Bradley-Terry maximum likelihood (statsmodels GLM), one virtual draw per "
                "pairing, mean 0, 95% Wald intervals"
            )
            if players > 2:
                note += (
                    "; each match counts once for every two opponents in it (a better place is "
                    "a win), and those results are not independent, so the intervals are "
                    "narrower than the matches justify"
                )
    ranked = sorted(
        table.values(),
        key=lambda s: (
            withdrawn.get(s.name) == DISQUALIFIED,
            -s.points,
            -(s.elo if s.elo is not None else -1e9),
            bots.index(s.name),
        ),
    )
    for i, s in enumerate(ranked, start=1):
        s.rank = i
    games = [r for r in records if not is_withdrawal(r)]
    dup = duplicate_pairings(games) if duplicate and players == 2 else []
    out = Standings(name, ranked, h2h, dup, len(records), total, note, notes, players)
    out.withdrawn, out.withdrawal_notes = withdrawn, tuple(withdrawal_notes)
    if teams:
        sides = [team_view(r) for r in records if r.sides]
        names = [t.name for t in teams]
        out.teams = compute_standings(
            name, names, sides, total, duplicate=duplicate, ratings=ratings
        )
        out.team_bots = {t.name: t.bots for t in teams}
    return out


def _tally_seat(s: BotStanding, r: MatchRecord, seat: int, *, first: bool) -> None:
    """What ``seat`` of ``r`` adds to its bot's figures other than its results. A bot in two
    seats (a team of one bot twice) counts the match once, from its ``first`` seat, and adds
    up its hands, faults, decisions and time over both."""
    if first:
        s.matches += 1
        side = r.side_of(seat)
        if r.winner is not None and r.winner == side:
            s.firsts += 1
        s.score_for += r.final[side]
        s.score_against += max(f for k, f in enumerate(r.final) if k != side)
        if r.forfeit is not None and any(
            r.forfeit.charged(k) for k, bot in enumerate(r.seats) if bot == r.seats[seat]
        ):
            s.forfeits += 1
    s.decisions += r.decisions[seat]
    s.think_ms += r.think_ms[seat]
    for hand in r.hands:
        mine = hand.hand_seat(seat)
        if mine is None:
            continue  # sat out (three players) or played at the other table
        s.hands += 1
        if hand.winner == mine:
            s.hands_won += 1
            s.hand_points_for += hand.points
            if hand.outcome in ("gin", "big_gin"):
                s.gins += 1
            if hand.outcome == "big_gin":
                s.big_gins += 1
            if hand.outcome == "undercut":
                s.undercuts += 1
            if hand.outcome == "knock":
                s.knocks += 1
        elif hand.winner is not None:
            s.hand_points_against += hand.points
    for fault in r.faults:
        if fault.seat == seat:
            s.faults[fault.kind] = s.faults.get(fault.kind, 0) + 1


def team_view(r: MatchRecord) -> MatchRecord:
    """A partnership match as a match of two teams, each team in the seat of its side: its
    hands seen from the teams, its faults charged to them, its decisions and time summed."""
    assert r.sides is not None

    def side(seat: int) -> int:
        return seat % 2

    forfeit = r.forfeit
    if forfeit is not None:
        charged = sorted({side(s) for s in range(r.players) if forfeit.charged(s)})
        forfeit = dataclasses.replace(
            forfeit, seat=charged[0] if len(charged) == 1 else None, seats=()
        )
    return dataclasses.replace(
        r,
        seats=r.sides,
        hands=tuple(
            dataclasses.replace(h, seats=(side(h.seats[0]), side(h.seats[1]))) for h in r.hands
        ),
        faults=tuple(dataclasses.replace(f, seat=side(f.seat)) for f in r.faults),
        forfeit=forfeit,
        decisions=tuple(sum(r.decisions[k::2]) for k in (0, 1)),
        think_ms=tuple(round(sum(r.think_ms[k::2]), 3) for k in (0, 1)),
        placings=tuple(r.placings[:2]),
        sides=None,
    )


def _score0(record: MatchRecord) -> float:
    if record.winner is None:
        return 0.5
    return 1.0 if record.winner == 0 else 0.0


def mean_interval(values: Sequence[float]) -> tuple[float, float] | None:
    """The 95% t-interval of the mean of ``values`` (statsmodels), None under 2 values."""
    if len(values) < 2:
        return None
    with warnings.catch_warnings(record=True):  # none may reach the user; nan is handled
        warnings.simplefilter("always")
        from statsmodels.stats.weightstats import DescrStatsW  # type: ignore[import-untyped]

        low, high = DescrStatsW(list(values)).tconfint_mean(alpha=0.05)
    if math.isnan(low):
        return None
    return float(low), float(high)


def duplicate_pairings(records: Iterable[MatchRecord]) -> list[DuplicatePairing]:
    """Paired totals per pairing: matches grouped by deal (the pairing's orientation from the
    record's key ``<x>.<y>.<game>``)."""
    by_pairing: dict[tuple[str, str], dict[int, list[MatchRecord]]] = {}
    for r in records:
        x, y, _ = r.key.split(".")
        by_pairing.setdefault((x, y), {}).setdefault(r.deal, []).append(r)
    out: list[DuplicatePairing] = []
    for (x, y), deals in by_pairing.items():
        pairs: list[DealPair] = []
        singles: list[float] = []
        loose = 0
        for deal, matches in sorted(deals.items()):
            diffs = []
            for m in matches:
                sx = m.seat_of(x)
                diffs.append(float(m.final[sx] - m.final[1 - sx]))
            singles.extend(diffs)
            if len(matches) != 2:
                loose += len(matches)
                continue
            xp = sum(_points(m, m.seat_of(x)) for m in matches)
            pairs.append(
                DealPair(
                    deal=deal,
                    seed=matches[0].seed,
                    x_points=xp,
                    y_points=2.0 - xp,
                    x_score=sum(m.final[m.seat_of(x)] for m in matches),
                    y_score=sum(m.final[m.seat_of(y)] for m in matches),
                )
            )
        paired = [(p.x_score - p.y_score) / 2 for p in pairs]
        result = DuplicatePairing(x, y, pairs, loose)
        result.x_pair_wins = sum(1 for p in pairs if p.x_points > p.y_points)
        result.y_pair_wins = sum(1 for p in pairs if p.x_points < p.y_points)
        result.split = len(pairs) - result.x_pair_wins - result.y_pair_wins
        if paired:
            result.mean_diff = sum(paired) / len(paired)
        result.paired_ci = mean_interval(paired)
        paired_singles = [
            float(m.final[m.seat_of(x)] - m.final[1 - m.seat_of(x)])
            for deal, matches in sorted(deals.items())
            if len(matches) == 2
            for m in matches
        ]
        result.unpaired_ci = mean_interval(paired_singles)
        out.append(result)
    return out


def _points(record: MatchRecord, seat: int) -> float:
    if record.winner is None:
        return 0.5
    return 1.0 if record.winner == seat else 0.0


# --- files ----------------------------------------------------------------------------------

_COLUMNS = (
    "rank",
    "name",
    "matches",
    "wins",
    "losses",
    "draws",
    "points",
    "score_pct",
    "elo",
    "elo_low",
    "elo_high",
    "score_for",
    "score_against",
    "hand_points_for",
    "hand_points_against",
    "hands",
    "hands_won",
    "gins",
    "big_gins",
    "undercuts",
    "knocks",
    "forfeits",
    "faults",
    "decisions",
    "mean_think_ms",
    "games",
    "firsts",
)


def bot_row(s: BotStanding) -> dict[str, Any]:
    """A bot's standings as a flat mapping (CSV columns; faults per kind as ``fault_<kind>``)."""
    row: dict[str, Any] = {}
    for column in _COLUMNS:
        if column == "faults":
            row[column] = s.fault_total
        else:
            value = getattr(s, column)
            row[column] = round(value, 3) if isinstance(value, float) else value
    for kind in FAULT_KINDS:
        row[f"fault_{kind}"] = s.faults.get(kind, 0)
    return row


def standings_csv(standings: Standings) -> str:
    """``standings.csv``: one row per bot, in rank order."""
    buf = io.StringIO()
    rows = [bot_row(s) for s in standings.bots]
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def crosstable_csv(standings: Standings) -> str:
    """``crosstable.csv``: row bot's wins-draws-losses against each column bot."""
    names = [s.name for s in standings.bots]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["bot", *names])
    for a in names:
        cells = []
        for b in names:
            h = standings.head_to_head.get((a, b))
            cells.append("" if h is None or a == b else f"{h.wins}-{h.draws}-{h.losses}")
        writer.writerow([a, *cells])
    return buf.getvalue()


def standings_json(standings: Standings) -> str:
    """``standings.json``: everything, for programs (with partnerships, the teams' too)."""
    return json.dumps(_json_data(standings), indent=2) + "\n"


def _json_data(standings: Standings) -> dict[str, Any]:
    teams: dict[str, Any] = {}
    if standings.teams is not None:
        teams["teams"] = {
            **_json_data(standings.teams),
            "members": {name: list(bots) for name, bots in standings.team_bots.items()},
        }
    return {
        "tournament": standings.name,
        "matches_done": standings.done,
        "matches_total": standings.total,
        "ratings": standings.rating_note,
        "rating_notes": list(standings.rating_notes),
        "bots": [{**bot_row(s), "faults_by_kind": dict(s.faults)} for s in standings.bots],
        "head_to_head": [
            {**asdict(h), "points": h.points} for h in standings.head_to_head.values() if h.matches
        ],
        "duplicate": [
            {
                "x": d.x,
                "y": d.y,
                "deal_pairs": [asdict(p) for p in d.pairs],
                "unpaired_matches": d.unpaired_matches,
                "x_pair_wins": d.x_pair_wins,
                "split": d.split,
                "y_pair_wins": d.y_pair_wins,
                "mean_score_diff_per_match": d.mean_diff,
                "paired_ci95": d.paired_ci,
                "unpaired_ci95": d.unpaired_ci,
                "narrowing": d.narrowing,
            }
            for d in standings.duplicate
        ],
        "players": standings.players,
        **(
            {
                "withdrawals": [
                    {"bot": bot, "kind": kind} for bot, kind in standings.withdrawn.items()
                ],
                "withdrawal_notes": list(standings.withdrawal_notes),
            }
            if standings.withdrawn
            else {}
        ),
        **teams,
    }


def write_standings(directory: Path, standings: Standings) -> list[Path]:
    """Write the CSV and JSON files into ``directory``; their paths."""
    files = {
        STANDINGS_CSV: standings_csv(standings),
        CROSSTABLE_CSV: crosstable_csv(standings),
        STANDINGS_JSON: standings_json(standings),
    }
    if standings.teams is not None:
        files[TEAMS_CSV] = standings_csv(standings.teams)
    paths = []
    for name, text in files.items():
        path = directory / name
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        paths.append(path)
    return paths


def counted_matches(journal: Journal, records: list[MatchRecord] | None = None) -> Counted:
    """The journal's matches that count, its withdrawals applied (``records``: its matches,
    when the caller has just read them)."""
    played = journal.records() if records is None else records
    return counted(journal.schedule(), played, journal.withdrawals())


def journal_standings(
    journal: Journal, *, ratings: bool = True, records: list[MatchRecord] | None = None
) -> Standings:
    """The standings of the tournament a journal records (``records``: its matches, when the
    caller has just read them), its withdrawals applied."""
    identity = journal.meta("identity") or {}
    config = journal.meta("config") or {}
    matches = counted_matches(journal, records)
    return compute_standings(
        str(config.get("name", "tournament")),
        journal.bot_names(),
        matches.records,
        matches.total,
        duplicate=bool(identity.get("duplicate")),
        ratings=ratings,
        players=int(identity.get("rules", {}).get("players", 2)),
        teams=[
            TeamEntry(t["name"], (t["bots"][0], t["bots"][1])) for t in identity.get("teams", ())
        ],
        withdrawn={bot: w.kind for bot, w in matches.withdrawals.items()},
        withdrawal_notes=matches.notes(),
    )


def load_standings(directory: Path, *, ratings: bool = True) -> Standings:
    """The standings of the tournament in ``directory`` (its journal must exist)."""
    journal = open_journal(directory, create=False)
    try:
        if not journal.initialised:
            raise JournalError(
                f"{journal.path} holds no tournament yet (no match was scheduled: its first "
                "run stopped before it started): run the tournament first"
            )
        return journal_standings(journal, ratings=ratings)
    finally:
        journal.close()
