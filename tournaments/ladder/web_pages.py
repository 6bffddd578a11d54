"""The pages of a season's web app (:mod:`tournaments.ladder.web`), drawn on the server from
plain values: pure functions, no I/O.

Every page is ``ladder-page.html`` (package data: the markup around the body and its one
style sheet) with the body filled in. Nothing a bot or an entrant chose (a name, a failure's
message, a bot's output) is ever written as HTML: each goes through :func:`text`, and each
link through :func:`link`. The pages load nothing and run no script; their Content Security
Policy (:func:`policy`) allows their own style sheet, by its hash, and nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from html import escape
from importlib import resources
from urllib.parse import quote

from referee.bots.limits import size_text
from tournaments.ladder.board import BotRow
from tournaments.ladder.store import FAILED, Version

TEMPLATE = "ladder-page.html"  # package data of ``tournaments.ladder``
_SLOT = re.compile(r"\{\{([A-Z]+)\}\}")


def text(value: object) -> str:
    """``value`` as HTML text: whatever it holds shows as itself."""
    return escape(str(value), quote=True)


def link(path: str, *parts: str, label: str) -> str:
    """An ``<a>`` to ``path`` followed by ``parts``, each quoted as one path segment."""
    href = path + "/".join(quote(p, safe="@") for p in parts)
    return f'<a href="{text(href)}">{text(label)}</a>'


@cache
def _template() -> tuple[str, str]:
    """The page and its Content Security Policy (its own style sheet, by its hash)."""
    page = (resources.files("tournaments.ladder") / TEMPLATE).read_text(encoding="utf-8")
    found = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    assert found is not None, f"{TEMPLATE} has no <style>"
    digest = base64.b64encode(hashlib.sha256(found.group(1).encode("utf-8")).digest()).decode()
    csp = (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src 'none'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    )
    return page, csp


def policy() -> str:
    """The Content Security Policy of every page drawn here."""
    return _template()[1]


def page(title: str, body: str) -> str:
    """The whole page: ``title`` (text) and ``body`` (HTML built here)."""
    values = {"TITLE": text(title), "BODY": body}
    # One pass over the template: what was put in is never looked at again.
    return _SLOT.sub(lambda m: values[m.group(1)], _template()[0])


def line_page(title: str, line: str) -> str:
    """A page that says one thing (a refusal, a page that does not exist)."""
    return page(title, f'<h1>{text(title)}</h1>\n<p class="answer refused">{text(line)}</p>')


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], numeric: set[int]) -> str:
    """A table of cells already made HTML; columns in ``numeric`` aligned right."""

    def cls(i: int) -> str:
        return ' class="num"' if i in numeric else ""

    out = [
        "<table>",
        "<tr>" + "".join(f"<th{cls(i)}>{h}</th>" for i, h in enumerate(head)) + "</tr>",
    ]
    for row in rows:
        out.append("<tr>" + "".join(f"<td{cls(i)}>{c}</td>" for i, c in enumerate(row)) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def faults_text(faults: Mapping[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(faults.items())) or "none"


# --- the leaderboard ---------------------------------------------------------------------------


def leaderboard_page(season: str, rows: Sequence[BotRow], k: float, frozen: str | None) -> str:
    cells = []
    for r in rows:
        name = link("/bot/", r.entrant, label=r.bot)
        if r.kind != "submitted":
            name += f'<span class="tag">{text(r.kind)}</span>'
        cells.append([
            str(r.rank), name, f"{r.rating:.2f}", f"{r.low:.1f} to {r.high:.1f}",
            str(r.matches), f"{r.wins}-{r.draws}-{r.losses}", text(faults_text(r.faults)),
        ])  # fmt: skip
    head = ["#", "bot", "rating", "interval", "games", "W-D-L", "faults"]
    state = f" Submissions closed {text(frozen)}." if frozen else ""
    body = (
        f"<h1>{text(season)}: the leaderboard</h1>\n"
        f'<p class="note">Ranked by rating = mu - {k:g} sigma (openskill): the low end of the '
        f"interval mu -+ {k:g} sigma, so a bot with few games climbs as it proves itself."
        f"{state}</p>\n" + _table(head, cells, {0, 2, 4})
    )
    return page(f"{season}: leaderboard", body)


# --- a bot's page ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchLine:
    """One finished match on a bot's page."""

    key: str
    started: str
    bot: str  # the version that played
    opponent: str
    result: str  # won, lost, drawn
    score: str
    faults: int
    shown: bool  # its replay may be seen (not embargoed)


@dataclass(frozen=True, slots=True)
class BotPage:
    """What a bot's page shows: an entrant's (or a house bot's) versions, ratings, matches."""

    season: str
    name: str
    kind: str  # house, remote, submitted
    k: float
    row: BotRow | None  # its version on the leaderboard, if one is in the pool
    versions: Sequence[Version]
    histories: Sequence[tuple[str, Sequence[tuple[int, float, float, str]]]]
    matches: Sequence[MatchLine]
    faults: Mapping[str, int] = field(default_factory=dict)


def status_text(version: Version) -> str:
    """A version's status as anyone may read it: a failure's step, never its output."""
    if version.status == FAILED:
        return f"failed at {version.step or 'an unknown step'}"
    return version.status


def bot_page(view: BotPage) -> str:
    parts = [f'<h1>{text(view.name)}<span class="tag">{text(view.kind)}</span></h1>']
    if view.row is not None:
        r = view.row
        parts.append(
            f'<p id="standing">Playing as {text(r.bot)}: rank {r.rank}, rating {r.rating:.2f} '
            f"(mu {r.mu:.2f}, sigma {r.sigma:.2f}), {r.matches} games, "
            f"{r.wins}-{r.draws}-{r.losses}.</p>"
        )
    else:
        parts.append('<p id="standing" class="note">No version of this bot plays now.</p>')
    if view.versions:
        rows = [
            [text(v.name), text(v.submitted), f'<span class="{text(v.status)}">'
             f"{text(status_text(v))}</span>"]
            for v in reversed(view.versions)
        ]  # fmt: skip
        parts += ["<h2>Versions</h2>", _table(["version", "submitted", "status"], rows, set())]
    parts.append("<h2>Rating over time</h2>")
    drawn = [(bot, h) for bot, h in view.histories if h]
    if not drawn:
        parts.append('<p class="note">Not rated yet: no match played.</p>')
    for bot, history in drawn:
        parts.append(f"<h3>{text(bot)}</h3>\n{rating_plot(history, view.k)}")
    parts.append("<h2>Recent matches</h2>")
    if view.matches:
        rows = []
        for m in view.matches:
            name = link("/match/", m.key, label=m.key) if m.shown else (
                f"{text(m.key)} <span class=\"tag\">shown once its twin is over</span>"
            )  # fmt: skip
            rows.append([name, text(m.started), text(m.bot), text(m.opponent), text(m.result),
                         text(m.score), str(m.faults)])  # fmt: skip
        head = ["match", "started", "version", "opponent", "result", "score", "faults"]
        parts.append(_table(head, rows, {6}))
    else:
        parts.append('<p class="note">No finished match yet.</p>')
    parts.append("<h2>Faults</h2>")
    if view.faults:
        rows = [[text(kind), str(n)] for kind, n in sorted(view.faults.items())]
        parts.append(_table(["kind", "count"], rows, {1}))
    else:
        parts.append('<p class="note">None.</p>')
    return page(f"{view.season}: {view.name}", "\n".join(parts))


# The plot's size in SVG units (it scales with the page) and its margins.
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 220, 48, 12, 12, 28


def rating_plot(history: Sequence[tuple[int, float, float, str]], k: float) -> str:
    """A bot's rating after each of its rated matches, as inline SVG: mu as a line over the
    band mu -+ k sigma, against the number of the match (1 is its first)."""
    mus = [mu for _, mu, _, _ in history]
    lows = [mu - k * sigma for _, mu, sigma, _ in history]
    highs = [mu + k * sigma for _, mu, sigma, _ in history]
    bottom, top = min(lows), max(highs)
    if top - bottom < 1e-9:
        bottom, top = bottom - 1, top + 1
    count = len(history)

    def x(i: int) -> float:
        span = WIDTH - LEFT - RIGHT
        return LEFT + (span * i / (count - 1) if count > 1 else span / 2)

    def y(value: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (top - value) / (top - bottom)

    upper = [f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(highs)]
    lower = [f"{x(i):.1f},{y(v):.1f}" for i, v in reversed(list(enumerate(lows)))]
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(mus))
    base = HEIGHT - BOTTOM
    last = history[-1]
    label = f"mu {last[1]:.2f}, sigma {last[2]:.2f} after {count} matches"
    return (
        f'<svg class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{text(label)}" data-points="{count}">'
        f'<polygon class="band" points="{" ".join(upper + lower)}"/>'
        f'<polyline class="mu" points="{line}"/>'
        f'<line class="axis" x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}"/>'
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}"/>'
        f'<text x="{LEFT - 4}" y="{TOP + 10}" text-anchor="end">{top:.0f}</text>'
        f'<text x="{LEFT - 4}" y="{base}" text-anchor="end">{bottom:.0f}</text>'
        f'<text x="{LEFT}" y="{HEIGHT - 8}">1</text>'
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" text-anchor="end">{count}</text>'
        f'<text x="{(WIDTH + LEFT) // 2}" y="{HEIGHT - 8}" text-anchor="middle">'
        f"{text(label)}</text></svg>"
    )


# --- submitting, and an entrant's own page -----------------------------------------------------


def submit_page(season: str, cap: int, answer: str | None = None, refused: bool = False) -> str:
    """The upload form, and above it the answer to the last upload."""
    parts = [f"<h1>{text(season)}: submit a bot</h1>"]
    if answer is not None:
        kind = "answer refused" if refused else "answer"
        parts.append(f'<p class="{kind}" id="answer">{text(answer)}</p>')
    parts.append(
        '<p class="note">A zip or tar archive of your bot, its ginref-bot.toml at its root, '
        "up to "
        f"{text(size_text(cap))}. It is built and validated, then joins the pool; "
        f"{link('/me', label='your page')} says how it went.</p>"
        '<form method="post" action="/submit" enctype="multipart/form-data">'
        '<label for="entrant">Entrant</label>'
        '<input type="text" id="entrant" name="entrant" required autocomplete="username">'
        '<label for="token">Token</label>'
        '<input type="password" id="token" name="token" required autocomplete="current-password">'
        '<label for="archive">Archive</label>'
        '<input type="file" id="archive" name="archive" required>'
        '<button type="submit">Submit</button></form>'
    )
    return page(f"{season}: submit", "\n".join(parts))


def me_form(season: str) -> str:
    """The form that opens an entrant's own page."""
    body = (
        f"<h1>{text(season)}: your submissions</h1>"
        '<p class="note">Your entrant name and token show your submissions, why one failed '
        "(its output) and what your bot wrote in its recent matches.</p>"
        '<form method="post" action="/me">'
        '<label for="entrant">Entrant</label>'
        '<input type="text" id="entrant" name="entrant" required autocomplete="username">'
        '<label for="token">Token</label>'
        '<input type="password" id="token" name="token" required autocomplete="current-password">'
        '<button type="submit">Show</button></form>'
    )
    return page(f"{season}: your submissions", body)


@dataclass(frozen=True, slots=True)
class Output:
    """The tail of what one of the entrant's bots wrote (stdout and stderr) in a match."""

    key: str  # the match
    bot: str
    text: str


def me_page(
    season: str,
    entrant: str,
    versions: Sequence[tuple[Version, str | None]],
    outputs: Sequence[Output],
) -> str:
    """An entrant's own page: each version (newest first) with why it failed and the tail of
    its build and validation log, and its bots' output in their recent matches."""
    parts = [f"<h1>{text(entrant)}: your submissions</h1>"]
    if not versions:
        parts.append('<p class="note">Nothing submitted yet.</p>')
    for version, log in reversed(versions):
        parts.append(f'<h2 class="version">{text(version.name)}: {text(status_text(version))}</h2>')
        facts = [f"submitted {version.submitted}"]
        if version.finished:
            facts.append(f"done {version.finished}")
        if version.language:
            facts.append(f"language {version.language}")
        if version.exit_status:
            facts.append(f"exit status: {version.exit_status}")
        parts.append(f'<p class="note">{text("; ".join(facts))}</p>')
        if version.message:
            parts.append(f'<p class="answer refused">{text(version.message)}</p>')
        if version.tail:
            parts.append(f'<pre class="tail">{text(version.tail)}</pre>')
        if log:
            parts.append(
                f'<h3>Build and validation log (its end)</h3><pre class="log">{text(log)}</pre>'
            )
    parts.append("<h2>Your bot's output in its recent matches</h2>")
    if not outputs:
        parts.append('<p class="note">None yet (a match shows here once it and its twin are '
                     "over).</p>")  # fmt: skip
    for out in outputs:
        parts.append(f"<h3>{link('/match/', out.key, label=out.key)} ({text(out.bot)})</h3>")
        parts.append(f'<pre class="output">{text(out.text) or "(nothing)"}</pre>')
    return page(f"{season}: {entrant}", "\n".join(parts))
