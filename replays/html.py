"""``ginref replay LOG --html OUT.html``: the match as one self-contained web page.

:func:`replay_frames` turns a replayed log (:mod:`referee.timeline`) into one frame per
record: both hands, the discard pile, the stock, the scores, what happened, and for a finished
hand the showdown (melds, layoffs, deadwood). :func:`render_html` puts the frames as JSON into
:data:`PAGE`, whose inline script draws the table with CSS cards and steps through the frames
(buttons, a slider, the arrow keys, a list of every event). The page loads nothing from
anywhere: no fonts, scripts or images.

The page reads its position from the URL: ``page.html#line=57`` opens at the record of log line
57, ``&show=0`` shows only seat 0's cards (``show=none``, ``show=both``). Each drawn card is an
element with ``data-card="TD"``; a hidden card is a ``.back`` without one.
"""

from __future__ import annotations

import html
import json
from typing import Any

from referee.engine.cards import Card, card_str, sort_key
from referee.engine.hand import Hand
from referee.engine.outcomes import HandOutcome, HandResult
from referee.timeline import Step, Timeline, seat_observation
from replays.breakdown import result_lines
from replays.view import (
    GUTTER,
    PLAIN,
    Style,
    format_header,
    format_showdown,
    format_step,
)

_TEXT = Style(symbols=True, color=False)


def _cards(cards: list[Card] | tuple[Card, ...]) -> list[str]:
    return [card_str(c) for c in cards]


def _sorted(cards: list[Card] | tuple[Card, ...]) -> list[str]:
    return _cards(sorted(cards, key=sort_key))


def _showdown(timeline: Timeline, result: HandResult) -> dict[str, Any]:
    text = [line.strip() for line in format_showdown(timeline, result, _TEXT)]
    arrangement = result.knocker_arrangement
    defender = result.defender
    return {
        "outcome": result.outcome.value,
        "winner": result.winner,
        "points": result.points,
        "knocker": result.knocker,
        "knockDiscard": None if result.knock_discard is None else card_str(result.knock_discard),
        "knockerMelds": [] if arrangement is None else [_cards(m.cards) for m in arrangement.melds],
        "knockerDeadwood": [] if arrangement is None else _sorted(arrangement.deadwood),
        "knockerCount": result.knocker_deadwood,
        "defenderMelds": [] if defender is None else [_cards(m.cards) for m in defender.melds],
        "layoffs": [] if defender is None else [[card_str(c), i] for c, i in defender.layoffs],
        "defenderDeadwood": [] if defender is None else _sorted(defender.deadwood),
        "defenderCount": result.defender_deadwood,
        "deadReason": result.dead_reason,
        "finalHands": [_sorted(h) for h in result.final_hands],
        "dead": result.outcome is HandOutcome.DEAD,
        "title": text[0],
        # The last lines of format_showdown: who won what, and the score.
        "verdict": text[-1:] if result.outcome is HandOutcome.DEAD else text[-2:],
    }


def _moved(step: Step, hand: Hand | None) -> str | None:
    """The card the record moved, to highlight: the discard, or the card taken."""
    if hand is None or step.kind != "decision":
        return None
    for event in hand.events[step.events_from :]:
        if event.card is not None and event.kind in ("discard", "draw_stock", "draw_discard",
                                                      "take_upcard"):  # fmt: skip
            return card_str(event.card)
    return None


def _hidden_from_other(step: Step) -> bool:
    """Whether the record moved a card its seat's opponent did not see (a stock draw, a
    face-down knock discard)."""
    seat = step.seat
    if step.kind != "decision" or seat is None or step.played is None:
        return False
    mine = step.played.events[step.events_from :]
    seen = seat_observation(step, 1 - seat).events[step.events_from :]
    return any(a.card is not None and b.card is None for a, b in zip(mine, seen, strict=False))


def _lines(timeline: Timeline, step: Step, seat: int | None = None) -> list[str]:
    lines = (
        format_header(timeline, _TEXT)
        if step.kind == "header"
        else format_step(timeline, step, _TEXT, seat)
    )
    return [line[GUTTER:].rstrip() for line in lines if line.strip()]


def replay_frames(timeline: Timeline) -> list[dict[str, Any]]:
    """One frame per record: what the table looks like just after it."""
    frames: list[dict[str, Any]] = []
    hand: Hand | None = None
    showdown: dict[str, Any] | None = None
    for step in timeline.steps:
        if step.played is not None:
            if step.kind == "deal":
                showdown = None
            hand = step.played
        if step.kind == "hand_result" and step.result is not None:
            showdown = _showdown(timeline, step.result)
        match = step.after
        text = _lines(timeline, step)
        # What the other seat was told of this record: the page shows it when the actor's
        # cards are face down.
        public = (
            _lines(timeline, step, 1 - step.record["seat"]) if _hidden_from_other(step) else None
        )
        games = [list(g) for g in match.board.game_points]
        over = match.result is not None and step.kind == "match_result"
        scores = list(match.result.final) if over and match.result is not None else match.scores
        result = None
        if over:
            final = list(scores)
            result = [text[0], *(result_lines(timeline, step.record, final))]
        frames.append(
            {
                "line": step.line,
                "kind": step.kind,
                "hand": None if hand is None else hand.number + 1,
                "text": text,
                "actor": step.seat if step.kind in ("decision", "fault") else None,
                "dealer": None if hand is None else hand.dealer,
                "hands": None if hand is None else [_sorted(hand.cards_of(s)) for s in (0, 1)],
                "pile": [] if hand is None else _cards(hand.pile),
                "stock": 0 if hand is None else hand.stock_size,
                "upcard": None if hand is None or hand.upcard is None else card_str(hand.upcard),
                "knockLimit": None if hand is None else hand.knock_limit,
                "toAct": None if hand is None else hand.to_act,
                "moved": _moved(step, hand),
                "scores": list(scores),
                "games": games,
                "showdown": showdown if step.kind == "hand_result" else None,
                "result": result,
                "over": over,
                "public": public,
            }
        )
    return frames


def render_html(timeline: Timeline, *, hand: int | None = None) -> str:
    """The page: the frames and the seats' names as JSON in :data:`PAGE`'s inline script.

    ``hand`` opens the page at that hand's deal (the URL's ``#line=`` still wins).
    """
    header = timeline.header
    frames = replay_frames(timeline)
    # The page opens at the first deal (or hand ``hand``'s): the table, not the header.
    first = hand if hand is not None else min(timeline.hands(), default=None)
    start = next((i for i, f in enumerate(frames) if f["kind"] == "deal" and f["hand"] == first), 0)
    cut = timeline.log.truncated
    names = {r["seat"]: f"{r['name']} {r['version']}" for r in timeline.log.of_type("connected")}
    data = {
        "matchId": header["match_id"],
        "title": format_header(timeline, PLAIN)[0].strip().split("  ", 1)[-1],
        "seats": [{"label": timeline.label(s), "bot": names.get(s, "")} for s in (0, 1)],
        "complete": timeline.complete,
        "warning": None
        if cut is None
        else f"line {cut} is cut short (the referee stopped while writing it): shown up to "
        f"line {cut - 1}",
        "start": start,
        "frames": frames,
    }
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # Inside <script>, "</" would end the element: JSON allows "<\/" for it.
    payload = payload.replace("</", "<\\/")
    title = html.escape(f"ginref replay {header['match_id']}")
    return PAGE.replace("{{TITLE}}", title).replace("{{DATA}}", payload)


PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{TITLE}}</title>
<style>
  :root { --felt: #1f5d3a; --felt-dark: #174a2e; --ink: #f4f1e8; --red: #c62828;
          --black: #1b1b1b; --gold: #f2c14e; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.4 system-ui, sans-serif; background: #10291b; color: var(--ink); }
  header { padding: 10px 16px; background: #0c2014; }
  header h1 { margin: 0; font-size: 17px; font-weight: 600; }
  header .sub { font-size: 13px; opacity: .75; }
  main { display: grid; grid-template-columns: minmax(0, 1fr) 340px; gap: 12px; padding: 12px; }
  #table { background: radial-gradient(ellipse at center, var(--felt) 0%, var(--felt-dark) 100%);
           border-radius: 18px; padding: 14px; min-height: 560px;
           box-shadow: inset 0 0 40px #0008; }
  .seat { padding: 8px 10px; border-radius: 12px; }
  .seat.to-act { box-shadow: 0 0 0 2px var(--gold); }
  .seat .who { display: flex; gap: 10px; align-items: baseline; margin-bottom: 6px; }
  .seat .name { font-weight: 600; }
  .seat .score { margin-left: auto; font-variant-numeric: tabular-nums; font-size: 18px; }
  .badge { font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #0005; }
  .badge.turn { background: var(--gold); color: #222; }
  .cards { display: flex; flex-wrap: wrap; gap: 6px; min-height: 88px; align-items: flex-end; }
  .card { position: relative; width: 58px; height: 84px; border-radius: 7px; background: #fff;
          color: var(--black); box-shadow: 0 1px 3px #0009; flex: none; user-select: none; }
  .card.red { color: var(--red); }
  .card .corner { position: absolute; top: 3px; left: 5px; font-size: 15px; font-weight: 700;
                  line-height: 1; text-align: center; }
  .card .corner.low { top: auto; left: auto; bottom: 3px; right: 5px; transform: rotate(180deg); }
  .card .pip { position: absolute; inset: 0; display: flex; align-items: center;
               justify-content: center; font-size: 30px; }
  .card.back { background: repeating-linear-gradient(45deg, #7b1e1e 0 6px, #922828 6px 12px);
               border: 3px solid #fff; }
  .card.moved { outline: 3px solid var(--gold); outline-offset: 1px; }
  .card.layoff { outline: 3px dashed #64b5f6; outline-offset: 1px; }
  .card.small { width: 40px; height: 58px; }
  .card.small .corner { font-size: 12px; }
  .card.small .pip { font-size: 20px; }
  #middle { display: flex; gap: 28px; align-items: center; margin: 18px 10px; }
  .pile-label { font-size: 12px; opacity: .8; margin-bottom: 4px; }
  #pile { display: flex; }
  #pile .card { margin-right: -36px; }
  #pile .card:last-child { margin-right: 0; }
  #info { font-size: 13px; opacity: .9; }
  #event { background: #0c2014cc; border-radius: 10px; padding: 8px 12px; margin: 10px 0;
           min-height: 44px; white-space: pre-wrap; }
  #showdown { background: #0c2014cc; border-radius: 12px; padding: 10px 12px; margin-top: 10px; }
  #showdown[hidden] { display: none; }
  #showdown h2 { font-size: 15px; margin: 0 0 6px; }
  .melds { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-end; margin: 4px 0 8px; }
  .meld { display: flex; gap: 3px; padding: 4px; border-radius: 8px; background: #ffffff18; }
  .meld.deadwood { background: #ff000022; }
  .group-label { font-size: 12px; opacity: .8; }
  aside { background: #0c2014; border-radius: 12px; padding: 8px; max-height: 82vh;
          overflow: auto; }
  #events { list-style: none; margin: 0; padding: 0; font-size: 12.5px; }
  #events li { padding: 2px 6px; border-radius: 6px; cursor: pointer; display: flex; gap: 8px; }
  #events li .ln { opacity: .55; min-width: 32px; text-align: right;
                   font-variant-numeric: tabular-nums; }
  #events li.deal { margin-top: 6px; font-weight: 600; }
  #events li.current { background: var(--gold); color: #222; }
  #controls { position: sticky; bottom: 0; display: flex; flex-wrap: wrap; gap: 10px;
              align-items: center; padding: 10px 16px; background: #0c2014; }
  #controls button { font-size: 15px; padding: 4px 10px; border-radius: 6px; border: 0;
                     background: #e8e3d3; cursor: pointer; }
  #slider { flex: 1; min-width: 160px; }
  #where { font-variant-numeric: tabular-nums; min-width: 150px; }
  .incomplete { color: var(--gold); }
  #play { min-width: 84px; }
  #result { background: #0c2014cc; border-radius: 12px; padding: 10px 12px; margin-top: 10px; }
  #result[hidden] { display: none; }
  #result h2 { font-size: 15px; margin: 0 0 6px; }
  #result div { margin: 2px 0; }
  .seat .score small { font-size: 11px; opacity: .75; margin-left: 4px; }
  header h1, #event, #result, #showdown { overflow-wrap: anywhere; }
  /* A phone held upright: one column, smaller cards that stay legible, nothing wider than
     the screen. */
  @media (max-width: 640px) {
    body { font-size: 14px; }
    main { grid-template-columns: minmax(0, 1fr); padding: 6px; gap: 8px; }
    #table { padding: 8px; min-height: 0; border-radius: 12px; }
    .card { width: 34px; height: 50px; border-radius: 5px; }
    .card .corner { font-size: 13px; top: 2px; left: 3px; }
    .card .corner.low { display: none; }
    .card .pip { font-size: 17px; align-items: flex-end; padding-bottom: 4px; }
    .card.back { border-width: 2px; }
    .card.small { width: 30px; height: 44px; }
    .card.small .corner { font-size: 12px; }
    .card.small .pip { font-size: 14px; }
    .cards { gap: 3px; min-height: 52px; }
    #middle { flex-wrap: wrap; gap: 12px; margin: 10px 4px; }
    #pile .card { margin-right: -20px; }
    .melds { gap: 8px; }
    aside { max-height: 40vh; }
    #controls { gap: 6px; padding: 8px; }
    #controls button { font-size: 14px; padding: 4px 8px; }
    #slider { min-width: 0; flex-basis: 100%; }
    #where { min-width: 0; }
  }
</style>
</head>
<body>
<header><h1 id="title"></h1><div class="sub" id="subtitle"></div></header>
<main>
  <section id="table">
    <div class="seat" id="seat1"><div class="who"></div><div class="cards" id="hand1"></div></div>
    <div id="middle">
      <div><div class="pile-label">Stock</div><div id="stock"></div></div>
      <div><div class="pile-label">Discard pile</div><div id="pile"></div></div>
      <div id="info"></div>
    </div>
    <div class="seat" id="seat0"><div class="who"></div><div class="cards" id="hand0"></div></div>
    <div id="event"></div>
    <div id="showdown" hidden></div>
    <div id="result" hidden></div>
  </section>
  <aside><ul id="events"></ul></aside>
</main>
<div id="controls">
  <button id="first" title="First (Home)">|&#x25C0;</button>
  <button id="prevhand" title="Previous hand (Page Up)">&#x25C0;&#x25C0; hand</button>
  <button id="prev" title="Back (Left arrow)">&#x25C0; back</button>
  <button id="next" title="Forward (Right arrow)">next &#x25B6;</button>
  <button id="nexthand" title="Next hand (Page Down)">hand &#x25B6;&#x25B6;</button>
  <button id="last" title="Last (End)">&#x25B6;|</button>
  <button id="play" title="Play or pause (Space)">&#x25B6; play</button>
  <label>speed <select id="speed" title="Events per second">
    <option value="1">1/s</option><option value="2" selected>2/s</option>
    <option value="5">5/s</option><option value="10">10/s</option>
    <option value="30">30/s</option>
  </select></label>
  <input type="range" id="slider" min="0" value="0">
  <span id="where"></span>
  <label><input type="checkbox" id="show0" checked> seat 0's cards</label>
  <label><input type="checkbox" id="show1" checked> seat 1's cards</label>
</div>
<script type="application/json" id="replay-data">{{DATA}}</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("replay-data").textContent);
const FRAMES = DATA.frames;
const SUITS = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};
let index = 0;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}
function rankText(code) { return code[0] === "T" ? "10" : code[0]; }
function cardEl(code, extra) {
  const suit = code[1];
  const node = el("div", "card " + (suit === "D" || suit === "H" ? "red" : "black"));
  if (extra) node.className += " " + extra;
  node.dataset.card = code;
  node.title = rankText(code) + SUITS[suit];
  const corner = el("span", "corner");
  corner.append(rankText(code), el("br"), SUITS[suit]);
  const low = corner.cloneNode(true);
  low.className = "corner low";
  node.append(corner, el("span", "pip", SUITS[suit]), low);
  return node;
}
function backEl(extra) { return el("div", "card back" + (extra ? " " + extra : "")); }
function shown(seat) { return document.getElementById("show" + seat).checked; }

function renderSeat(f, seat) {
  const box = document.getElementById("seat" + seat);
  const who = box.querySelector(".who");
  who.replaceChildren();
  const info = DATA.seats[seat];
  who.append(el("span", "name", "Seat " + seat + ": " + info.label));
  if (info.bot) who.append(el("span", "badge", info.bot));
  if (f.dealer === seat) who.append(el("span", "badge", "dealer"));
  if (f.toAct === seat && !f.over) who.append(el("span", "badge turn", "to act"));
  const score = el("span", "score", String(f.scores[seat]));
  score.append(el("small", "", f.over ? "final" : "points"));
  who.append(score);
  box.classList.toggle("to-act", f.toAct === seat && !f.over);
  const hand = document.getElementById("hand" + seat);
  hand.replaceChildren();
  const cards = f.hands ? f.hands[seat] : [];
  hand.dataset.count = String(cards.length);
  for (const code of cards) {
    const moved = f.moved === code && f.actor === seat ? "moved" : "";
    hand.append(shown(seat) ? cardEl(code, moved) : backEl());
  }
}

function renderTable(f) {
  const stock = document.getElementById("stock");
  stock.replaceChildren();
  if (f.hands) {
    stock.append(backEl());
    stock.append(el("div", "pile-label", f.stock + " cards"));
  }
  const pile = document.getElementById("pile");
  pile.replaceChildren();
  const top = f.pile.slice(-8);
  for (const code of top) pile.append(cardEl(code, code === f.moved ? "moved" : ""));
  if (!f.pile.length) pile.append(el("div", "pile-label", "empty"));
  const info = document.getElementById("info");
  info.replaceChildren();
  if (f.hand !== null) {
    info.append(el("div", "", "Hand " + f.hand));
    if (f.upcard) info.append(el("div", "", "Upcard " + rankText(f.upcard) + SUITS[f.upcard[1]]));
    if (f.knockLimit !== null) info.append(el("div", "", "Knock limit " + f.knockLimit));
    if (f.pile.length > top.length) info.append(el("div", "", f.pile.length + " in the pile"));
  }
  if (f.games.length) {
    info.append(el("div", "", "Games: " + f.games.map(g => g[0] + "\u2013" + g[1]).join(", ")));
  }
}

function meldEl(cards, layoffs, cls) {
  const box = el("div", "meld" + (cls ? " " + cls : ""));
  for (const code of cards) box.append(cardEl(code, "small"));
  for (const code of layoffs || []) box.append(cardEl(code, "small layoff"));
  return box;
}
function group(label, nodes) {
  const wrap = el("div");
  wrap.append(el("div", "group-label", label));
  const row = el("div", "melds");
  row.append(...nodes);
  wrap.append(row);
  return wrap;
}

function renderShowdown(f) {
  const box = document.getElementById("showdown");
  const s = f.showdown;
  box.replaceChildren();
  box.hidden = !s;
  if (!s) return;
  box.append(el("h2", "", s.title));
  if (s.dead) {
    for (const seat of [0, 1]) {
      box.append(group("Seat " + seat + " held", [meldEl(s.finalHands[seat], [], "deadwood")]));
    }
  } else {
    const k = s.knocker, d = 1 - k;
    const laid = s.knockerMelds.map(() => []);
    for (const [code, i] of s.layoffs) laid[i].push(code);
    const kn = s.knockerMelds.map((m, i) => meldEl(m, laid[i]));
    if (s.knockerDeadwood.length) kn.push(meldEl(s.knockerDeadwood, [], "deadwood"));
    let label = "Seat " + k + " (knocker): melds";
    if (s.knockDiscard) {
      label += ", discard " + rankText(s.knockDiscard) + SUITS[s.knockDiscard[1]] + " face down";
    }
    label += "; deadwood " + s.knockerCount;
    const knocker = group(label, kn);
    knocker.id = "showdown-knocker";
    box.append(knocker);
    const dn = s.defenderMelds.map(m => meldEl(m, []));
    if (s.defenderDeadwood.length) dn.push(meldEl(s.defenderDeadwood, [], "deadwood"));
    const lays = s.layoffs.length
      ? "; lays off " + s.layoffs.map(([c]) => rankText(c) + SUITS[c[1]]).join(" ") + " (dashed)"
      : "";
    const defender = group(
      "Seat " + d + " (defender): melds" + lays + "; deadwood " + s.defenderCount, dn);
    defender.id = "showdown-defender";
    box.append(defender);
  }
  for (const line of s.verdict) box.append(el("div", "verdict", line));
}

function renderResult(f) {
  const box = document.getElementById("result");
  box.replaceChildren();
  box.hidden = !f.result;
  if (!f.result) return;
  box.append(el("h2", "", f.result[0]));
  for (const line of f.result.slice(1)) box.append(el("div", "", line));
}

// A card only the actor saw (a stock draw, a face-down knock discard) is told as the other
// seat was told it whenever the actor's cards are face down.
function textOf(f) { return f.public && !shown(f.actor) ? f.public : f.text; }

function renderEvents() {
  const list = document.getElementById("events");
  FRAMES.forEach((f, i) => {
    const item = el("li", f.kind);
    item.append(el("span", "ln", String(f.line)), el("span", "what"));
    item.addEventListener("click", () => { pause(); go(i); });
    list.append(item);
  });
}
function eventTexts() {
  const items = document.getElementById("events").children;
  FRAMES.forEach((f, i) => {
    items[i].querySelector(".what").textContent = (textOf(f)[0] || f.kind).trim();
  });
}

function render() {
  const f = FRAMES[index];
  renderSeat(f, 0);
  renderSeat(f, 1);
  renderTable(f);
  renderShowdown(f);
  renderResult(f);
  eventTexts();
  // A showdown or result has a panel of its own: the event box gives its first line only.
  const text = f.showdown || f.result ? f.text.slice(0, 1) : textOf(f);
  document.getElementById("event").textContent = "Line " + f.line + ": " + text.join("\n");
  document.getElementById("slider").value = String(index);
  document.getElementById("where").textContent =
    "event " + (index + 1) + " of " + FRAMES.length + " \u00b7 line " + f.line;
  const items = document.getElementById("events").children;
  for (let i = 0; i < items.length; i++) items[i].classList.toggle("current", i === index);
  // Scroll the event list only: scrollIntoView would scroll the page too.
  const item = items[index], list = document.querySelector("aside");
  if (item && list) {
    const top = item.offsetTop - list.offsetTop;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top + item.offsetHeight - list.clientHeight;
    }
  }
  document.body.dataset.line = String(f.line);
  const show = shown(0) && shown(1) ? "both" : shown(0) ? "0" : shown(1) ? "1" : "none";
  const hash = "#line=" + f.line + (show === "both" ? "" : "&show=" + show);
  if (location.hash !== hash && history.replaceState) history.replaceState(null, "", hash);
}

function go(i) { index = Math.max(0, Math.min(FRAMES.length - 1, i)); render(); }

let timer = null;
function playing() { return timer !== null; }
function showPlaying() {
  document.getElementById("play").textContent = playing() ? "\u275A\u275A pause" : "\u25B6 play";
  document.body.dataset.playing = playing() ? "yes" : "no";
}
function pause() { if (timer !== null) clearTimeout(timer); timer = null; showPlaying(); }
function tick() {
  if (index >= FRAMES.length - 1) { pause(); return; }
  go(index + 1);
  const speed = parseFloat(document.getElementById("speed").value);
  timer = setTimeout(tick, 1000 / speed);
}
function play() {
  if (playing()) return;
  if (index >= FRAMES.length - 1) go(DATA.start);
  timer = setTimeout(tick, 0);
  showPlaying();
}
function handStart(from, step) {
  let i = from + step;
  while (i > 0 && i < FRAMES.length - 1 && FRAMES[i].kind !== "deal") i += step;
  return i;
}

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const show = params.get("show");
  if (show) {
    document.getElementById("show0").checked = show === "both" || show === "0";
    document.getElementById("show1").checked = show === "both" || show === "1";
  }
  const line = parseInt(params.get("line") || "", 10);
  if (!isNaN(line)) {
    let best = 0;
    FRAMES.forEach((f, i) => { if (f.line <= line) best = i; });
    return best;
  }
  return DATA.start;
}

document.getElementById("title").textContent = DATA.title;
document.getElementById("subtitle").textContent =
  "Seat 0: " + DATA.seats[0].label + " \u00b7 Seat 1: " + DATA.seats[1].label +
  (DATA.complete ? "" : " \u00b7 incomplete log: the match was cut short") +
  (DATA.warning ? " \u00b7 " + DATA.warning : "");
if (!DATA.complete) document.getElementById("subtitle").classList.add("incomplete");
document.getElementById("slider").max = String(FRAMES.length - 1);
document.getElementById("slider").addEventListener("input", e => {
  pause();
  go(parseInt(e.target.value, 10));
});
document.getElementById("first").onclick = () => { pause(); go(0); };
document.getElementById("last").onclick = () => { pause(); go(FRAMES.length - 1); };
document.getElementById("prev").onclick = () => { pause(); go(index - 1); };
document.getElementById("next").onclick = () => { pause(); go(index + 1); };
document.getElementById("prevhand").onclick = () => { pause(); go(handStart(index, -1)); };
document.getElementById("nexthand").onclick = () => { pause(); go(handStart(index, 1)); };
document.getElementById("play").onclick = () => { if (playing()) pause(); else play(); };
for (const seat of [0, 1]) document.getElementById("show" + seat).onchange = render;
document.addEventListener("keydown", e => {
  if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (e.key === " ") { e.preventDefault(); if (playing()) pause(); else play(); return; }
  const keys = {ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: FRAMES.length - 1,
                PageDown: handStart(index, 1), PageUp: handStart(index, -1)};
  if (e.key in keys) { e.preventDefault(); pause(); go(keys[e.key]); }
});
showPlaying();
window.addEventListener("hashchange", () => go(readHash()));
renderEvents();
go(readHash());
</script>
</body>
</html>
"""
