"""A tournament as one self-contained web page: pure functions from standings and records to HTML.

:func:`render_report` draws the leaderboard (points, Elo with its 95% interval, as the terminal
standings), the cross-table, per-bot figures (hands, gins, undercuts, faults by kind, mean time
per decision) and every match with a link to its replay page. Nothing here reads or writes a
file: ``ginref report`` (and the end of ``ginref tournament``) collects the records, writes the
replay pages and passes their relative links. The page loads nothing from anywhere.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from tournaments.journal.records import MatchRecord
from tournaments.outputs.console import MANY_PLAYERS_NOTE, elo_text, number_text
from tournaments.results.standings import FAULT_KINDS, Standings

REPORT_FILE = "report.html"
REPLAYS_DIR = "replays"  # the matches' replay pages, beside the report


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _table(
    head: Sequence[str], rows: Sequence[Sequence[str]], ident: str, raw: bool = False
) -> str:
    """A table; cells are escaped unless ``raw`` (cells built here from escaped parts)."""
    cells = [[c if raw else _e(c) for c in row] for row in rows]
    out = [f'<div class="scroll"><table id="{ident}"><thead><tr>']
    out += [f"<th>{_e(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for row in cells:
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def leaderboard(standings: Standings, ident: str = "leaderboard", what: str = "Bot") -> str:
    """The ranking, as ``ginref standings`` prints it (with more than two players, the
    matches won too)."""
    many = standings.players > 2
    head = ["#", what, "Played", *(["Won"] if many else []), "W", "D", "L", "Points", "%",
            "Elo [95% interval]", "Score +/-", "Hand pts +/-", "Forfeits"]  # fmt: skip
    rows = [
        [
            str(s.rank),
            s.name,
            str(s.matches),
            *([str(s.firsts)] if many else []),
            str(s.wins),
            str(s.draws),
            str(s.losses),
            f"{s.points:g}",
            number_text(s.score_pct, 1),
            elo_text(s),
            f"{s.score_for}/{s.score_against}",
            f"{s.hand_points_for}/{s.hand_points_against}",
            str(s.forfeits),
        ]
        for s in standings.bots
    ]
    return _table(head, rows, ident)


def crosstable(standings: Standings, ident: str = "crosstable") -> str:
    """Head to head: the row bot's wins-draws-losses against each column bot."""
    names = [s.name for s in standings.bots]
    rows = []
    for a in names:
        row = [a]
        for b in names:
            h = standings.head_to_head.get((a, b))
            row.append("x" if a == b else "-" if h is None or not h.matches else
                       f"{h.wins}-{h.draws}-{h.losses}")  # fmt: skip
        rows.append(row)
    return _table(["W-D-L", *names], rows, ident)


def bot_figures(standings: Standings) -> str:
    """Per bot: hands, gins, undercuts, knocks, faults by kind, decisions and their mean time."""
    kinds = [k for k in FAULT_KINDS if any(s.faults.get(k) for s in standings.bots)]
    head = ["Bot", "Wins", "Hands won", "Gins", "Big gins", "Undercuts", "Knocks won",
            "Faults", *(k.replace("_", " ") for k in kinds), "Decisions",
            "Mean ms per decision"]  # fmt: skip
    rows = [
        [
            s.name,
            str(s.wins),
            f"{s.hands_won}/{s.hands}",
            str(s.gins),
            str(s.big_gins),
            str(s.undercuts),
            str(s.knocks),
            str(s.fault_total),
            *(str(s.faults.get(k, 0)) for k in kinds),
            str(s.decisions),
            number_text(s.mean_think_ms, 2),
        ]
        for s in standings.bots
    ]
    return _table(head, rows, "bots")


def _result(r: MatchRecord) -> str:
    won = "no winner" if r.winner is None else f"{r.winner_bot} wins"
    if r.forfeit is not None:
        why = f"{r.forfeit.kind} ({r.forfeit.rule})"
        if r.forfeit.seats:
            names = ", ".join(r.seats[s] for s in r.forfeit.seats)
            return f"{won}: {names} {'forfeits' if len(r.forfeit.seats) == 1 else 'forfeit'}, {why}"
        if r.forfeit.seat is None:
            return f"both forfeit: {why}"
        return f"{r.seats[1 - r.forfeit.seat]} wins: {r.seats[r.forfeit.seat]} forfeits, {why}"
    return won


def match_rows(
    records: Sequence[MatchRecord], links: Mapping[str, str | None], notes: Mapping[str, str]
) -> str:
    """Every match, with a link to its replay page (or why there is none)."""
    seats = max((r.players for r in records), default=2)
    teams = any(r.sides for r in records)
    rows = []
    for r in records:
        link = links.get(r.key)
        replay = (
            f'<a href="{_e(link)}">replay</a>'
            if link
            else f'<span class="note">{_e(notes.get(r.key, "no replay page"))}</span>'
        )
        rows.append(
            [
                _e(r.key),
                *([_e(" v ".join(r.sides or ()))] if teams else []),
                *(_e(r.seats[k]) if k < r.players else "" for k in range(seats)),
                _e(_result(r)),
                "&ndash;".join(str(f) for f in r.final),
                _e(r.termination),
                str(r.hands_played),
                replay,
            ]
        )
    head = ["Match", *(["Teams"] if teams else []), *(f"Seat {k}" for k in range(seats))]
    head += ["Result", "Score", "Ended by", "Hands", "Replay"]
    table = _table(head, rows, "matches", raw=True)
    result = head.index("Result") + 1
    if result == 4:  # the page's own style aligns two players' result column
        return table
    return f"<style>#matches :is(td, th):nth-child({result}) {{ text-align: left; }}</style>{table}"


def render_report(
    standings: Standings,
    records: Sequence[MatchRecord],
    links: Mapping[str, str | None],
    notes: Mapping[str, str] | None = None,
) -> str:
    """The whole page. ``links``: match key -> replay page, relative to the report; ``notes``:
    match key -> why it has no replay page."""
    title = f"{standings.name}: {standings.done} of {standings.total} matches"
    parts = [
        f"<h1>{_e(title)}</h1>",
        "<h2>Leaderboard</h2>",
        leaderboard(standings),
    ]
    if standings.players in MANY_PLAYERS_NOTE:
        parts.append(f'<p class="note">{_e(MANY_PLAYERS_NOTE[standings.players])}</p>')
    parts += [f'<p class="note">{_e(note)}</p>' for note in standings.withdrawal_notes]
    if standings.rating_note:
        parts.append(f'<p class="note">{_e(standings.rating_note)}</p>')
    parts += [
        "<h2>Head to head</h2>",
        '<p class="note">Row bot\'s wins-draws-losses against the column bot.</p>',
        crosstable(standings),
        "<h2>Bots</h2>",
        '<p class="note">Mean time per decision as the referee measured it, network included.</p>',
        bot_figures(standings),
    ]
    if standings.duplicate:
        rows = [
            [
                f"{d.x} v {d.y}",
                str(len(d.pairs)),
                f"{d.x_pair_wins}/{d.split}/{d.y_pair_wins}",
                number_text(d.mean_diff, 1),
                "-" if d.paired_ci is None else f"[{d.paired_ci[0]:+.1f}, {d.paired_ci[1]:+.1f}]",
            ]
            for d in standings.duplicate
        ]
        parts += [
            "<h2>Duplicate deals</h2>",
            _table(
                ["Pairing", "Deal pairs", "X won/split/Y won", "Mean X-Y", "Paired 95%"],
                rows,
                "duplicate",
            ),
        ]
    teams = standings.teams
    if teams is not None:
        members = "; ".join(f"{t}: {' + '.join(b)}" for t, b in standings.team_bots.items())
        parts += [
            "<h2>Teams</h2>",
            f'<p class="note">{_e(members)}. A team\'s result is its match result.</p>',
            leaderboard(teams, "teams", "Team"),
            crosstable(teams, "team-crosstable"),
        ]
    parts += [f"<h2>Matches ({len(records)})</h2>", match_rows(records, links, notes or {})]
    return PAGE.replace("{{TITLE}}", _e(f"ginref tournament {title}")).replace(
        "{{BODY}}", "\n".join(parts)
    )


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{TITLE}}</title>
<style>
  * { box-sizing: border-box; }
  body { margin: 0 auto; max-width: 1200px; padding: 12px 16px; color: #1b1b1b;
         font: 15px/1.4 system-ui, sans-serif; background: #f7f5ef; }
  h1 { font-size: 20px; margin: 4px 0 12px; overflow-wrap: anywhere; }
  h2 { font-size: 16px; margin: 22px 0 6px; }
  .scroll { overflow-x: auto; max-width: 100%; }
  table { border-collapse: collapse; font-variant-numeric: tabular-nums; background: #fff; }
  th, td { padding: 4px 8px; border-bottom: 1px solid #ddd; text-align: right;
           white-space: nowrap; }
  th { background: #1f5d3a; color: #fff; font-weight: 600; position: sticky; top: 0; }
  td:first-child, th:first-child, :is(#leaderboard, #teams) :is(td, th):nth-child(2),
  #matches :is(td, th):nth-child(4) { text-align: left; }
  tr:hover td { background: #f0ede2; }
  .note { font-size: 13px; color: #555; }
  a { color: #1f5d3a; font-weight: 600; }
</style>
</head>
<body>
{{BODY}}
</body>
</html>
"""
