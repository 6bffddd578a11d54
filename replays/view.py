"""``ginref replay`` in the terminal: pure functions from a replayed log to lines of text.

Nothing here prints. :func:`format_replay` yields one block of lines per log record (the
command prints them, pausing between blocks with ``--step``); every block starts with the
record's line number, which is the event number ``ginref replay --at`` takes. Cards are shown
with suit symbols (``10♦``) or letters (``TD``), red suits in red when colour is on
(:class:`Style`).

With a seat (``--seat N``) only what the referee sent that seat is shown, rebuilt with
:func:`referee.engine.observation.observe` (see :func:`referee.timeline.seat_observation`): its own
cards and requests, the opponent's public events (a card drawn from the stock stays hidden, so
does a face-down knock discard), its own faults, and the public hand and match results.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from referee.engine.actions import (
    Action,
    BigGin,
    ChooseDeal,
    DeclareDead,
    DefenderPlay,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    Pass,
)
from referee.engine.cards import (
    NUM_CARDS,
    RANKS,
    SUIT_MASK,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    LazyTable,
    mask_of,
    sort_key,
)
from referee.engine.melds import min_deadwood
from referee.engine.observation import Observation
from referee.engine.outcomes import Event, HandOutcome, HandResult, Phase
from referee.text import safe_text
from referee.timeline import (
    Step,
    Timeline,
    request_observation,
    seat_events,
    seat_observation,
)
from replays.breakdown import result_lines
from replays.group_timeline import GroupStep, GroupTimeline

_RED = "\x1b[31m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"
GUTTER = 7  # width of the line-number column, spaces included


@dataclass(frozen=True, slots=True)
class Style:
    """How cards look: suit symbols or letters; ANSI colours or none."""

    symbols: bool = True
    color: bool = False

    def bold(self, text: str) -> str:
        """``text`` in bold when colour is on."""
        return f"{_BOLD}{text}{_RESET}" if self.color else text

    def dim(self, text: str) -> str:
        """``text`` dimmed when colour is on."""
        return f"{_DIM}{text}{_RESET}" if self.color else text


PLAIN = Style(symbols=False, color=False)


def _one_card_text(card: Card, symbols: bool, color: bool) -> str:
    rank, suit = RANKS[card % 13], card // 13
    if not symbols:
        return rank + SUITS[suit]
    text = ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit]
    if color and suit in (1, 2):
        return f"{_RED}{text}{_RESET}"
    return text


def _suit_table(texts: tuple[str, ...], suit: int) -> LazyTable[str]:
    cards = texts[13 * suit : 13 * suit + 13]
    return LazyTable(lambda bits: " ".join(cards[r] for r in range(13) if bits >> r & 1))


# Every card's text by (symbols, color), then by card; and per suit, the text of its cards by
# their 13-bit rank mask. Looked up, not formatted: a long match's replay names a million cards.
_CARD_TEXTS = {
    (symbols, color): tuple(_one_card_text(card, symbols, color) for card in range(NUM_CARDS))
    for symbols in (False, True)
    for color in (False, True)
}
_SUIT_TEXTS = {
    key: tuple(_suit_table(texts, s) for s in range(4)) for key, texts in _CARD_TEXTS.items()
}


def card_text(card: Card, style: Style = PLAIN) -> str:
    """One card: ``10♦`` (red when coloured) or ``TD``."""
    return _CARD_TEXTS[style.symbols, style.color][card]


def _mask_text(mask: int, style: Style) -> str:
    clubs, diamonds, hearts, spades = _SUIT_TEXTS[style.symbols, style.color]
    suits = (
        clubs[mask & SUIT_MASK],
        diamonds[mask >> 13 & SUIT_MASK],
        hearts[mask >> 26 & SUIT_MASK],
        spades[mask >> 39 & SUIT_MASK],
    )
    return "  ".join(suit for suit in suits if suit) or "-"


def cards_text(cards: Iterable[Card], style: Style = PLAIN, *, sort: bool = True) -> str:
    """Cards separated by spaces; sorted by suit then rank, two spaces between suits."""
    if not sort:
        texts = _CARD_TEXTS[style.symbols, style.color]
        return " ".join(texts[card] for card in cards) or "-"
    return _mask_text(mask_of(cards), style)


def meld_text(cards: Sequence[Card], style: Style = PLAIN) -> str:
    """A meld in brackets, in its own order: ``[7♦ 7♥ 7♠]``."""
    return "[" + " ".join(card_text(c, style) for c in cards) + "]"


def action_text(action: Action, style: Style = PLAIN) -> str:
    """An action in words: ``discard 10♦``, ``knock with K♠``, ``draw stock``."""
    if isinstance(action, Discard):
        return f"discard {card_text(action.card, style)}"
    if isinstance(action, Knock):
        melds = (
            ""
            if action.melds is None
            else ": " + " ".join(meld_text(m, style) for m in action.melds)
        )
        return f"knock with {card_text(action.card, style)}{melds}"
    if isinstance(action, BigGin):
        melds = (
            ""
            if action.melds is None
            else ": " + " ".join(meld_text(m, style) for m in action.melds)
        )
        return "big gin" + melds
    if isinstance(action, DefenderPlay):
        melds = " ".join(meld_text(m, style) for m in action.melds) or "no melds"
        lay = " ".join(card_text(c, style) for c in action.layoffs) or "none"
        return f"defend: {melds}; lay off {lay}"
    if isinstance(action, ChooseDeal):
        return "deal first" if action.deal else "let the other seat deal"
    if isinstance(action, DrawStock | DrawDiscard | Pass | DeclareDead):
        return str(action)
    return str(action)  # pragma: no cover (every kind is handled above)


def legal_text(actions: Sequence[Action], style: Style = PLAIN) -> str:
    """The legal actions of a request, discards and knocks grouped."""
    discards = [a.card for a in actions if isinstance(a, Discard)]
    knocks = [a.card for a in actions if isinstance(a, Knock)]
    parts: list[str] = []
    if discards:
        parts.append(f"discard any of {len(discards)}")
    if knocks:
        parts.append(
            "knock with " + " ".join(card_text(c, style) for c in sorted(knocks, key=sort_key))
        )
    parts += [action_text(a, style) for a in actions if not isinstance(a, Discard | Knock)]
    return ", ".join(parts) or "-"


def seat_name(timeline: Timeline | GroupTimeline, seat: int | None, you: int | None = None) -> str:
    """``seat 0 (greedy_bot)``; ``you`` for the viewing seat."""
    if seat is None:
        return "nobody"
    if you is not None and seat == you:
        return f"seat {seat} (you)"
    return f"seat {seat} ({timeline.label(seat)})"


def gutter(line: int, style: Style) -> str:
    """The line-number column: the record's line, dimmed, right-aligned."""
    return style.dim(f"{line:>{GUTTER - 2}}") + "  "


INDENT = " " * GUTTER


def phase_words(phase: Phase) -> str:
    """A phase in words: ``upcard offer``."""
    return {
        Phase.CHOOSE_DEALER: "choice of dealer",
        Phase.UPCARD_OFFER: "upcard offer",
        Phase.DRAW: "draw",
        Phase.DISCARD: "discard",
        Phase.WALL: "the wall (two cards left)",
        Phase.DEFENDER: "defence",
        Phase.MATCH_OVER: "over",
    }[phase]


def event_text(event: Event, style: Style = PLAIN) -> str | None:
    """An engine event in words (its card is None when hidden from the viewer)."""
    card = None if event.card is None else card_text(event.card, style)
    kind = event.kind
    if kind == "take_upcard":
        return f"takes the upcard {card}"
    if kind == "draw_discard":
        return f"takes the discard {card}"
    if kind == "draw_stock":
        return f"draws {card} from the stock" if card else "draws from the stock"
    if kind == "discard":
        return f"discards {card}"
    if kind == "pass":
        return "passes"
    if kind == "declare_dead":
        return "declares the hand dead"
    if kind in ("knock", "gin", "big_gin"):
        verb = {"knock": "knocks", "gin": "goes gin", "big_gin": "declares big gin"}[kind]
        if kind == "big_gin" and card is None:
            return verb
        return f"{verb}, discarding {card} face down" if card else f"{verb} (discard face down)"
    if kind == "defender_play":
        return "declares melds and layoffs"
    return None  # deal, hand_over: shown by the deal and result records


def think_text(record: dict[str, Any], style: Style) -> str:
    """A decision's think time, ``  (1.5 ms)``, or nothing."""
    think = record.get("think_ms")
    if not isinstance(think, int | float) or isinstance(think, bool):
        return ""
    return style.dim(f"  ({think:.1f} ms)")


def hand_line(cards: Sequence[Card], style: Style) -> str:
    """A hand and its minimum deadwood."""
    return mask_line(mask_of(cards), style)


def mask_line(mask: int, style: Style) -> str:
    """A hand given as a card mask, and its minimum deadwood."""
    return f"{_mask_text(mask, style)}  (deadwood {min_deadwood(mask)})"


def score_text(scores: Sequence[int]) -> str:
    """Scores by seat (or team): ``120–35``, ``50–50–95``."""
    return "–".join(str(s) for s in scores)


def format_header(timeline: Timeline, style: Style = PLAIN, seat: int | None = None) -> list[str]:
    """The match: id, rules, seed, seats."""
    header = timeline.header
    rules = timeline.rules
    scope = "one hand" if rules.scope == "single_hand" else f"target {rules.target}"
    extra = ", Hollywood" if rules.hollywood else ""
    head = (
        f"Match {header['match_id']}: {rules.profile_name} ({scope}{extra}), seed {timeline.seed}"
    )
    series = header.get("series", {})
    if isinstance(series, dict) and series.get("length", 1) != 1:
        head += f", match {series.get('match_number')} of {series.get('length')}"
    lines = [gutter(1, style) + style.bold(head)]
    names = {
        r["seat"]: f"{r['name']} {r['version']}".strip()
        for r in timeline.log.of_type("connected")
        if r["seat"] in (0, 1)
    }
    for s in (0, 1):
        who = f"seat {s}: {timeline.label(s)}"
        if s in names:
            who += f" ({names[s]})"
        if seat is not None:
            who += "  <- you" if s == seat else ""
        lines.append(INDENT + who)
    return lines


def format_replay(
    timeline: Timeline,
    style: Style = PLAIN,
    *,
    seat: int | None = None,
    hand: int | None = None,
) -> Iterator[list[str]]:
    """One block of lines per record shown, from the header (or hand ``hand``'s deal) on."""
    yield format_header(timeline, style, seat)
    started = hand is None
    for step in timeline.steps:
        if step.kind == "header":
            continue
        if not started:
            if step.kind == "deal" and step.record["hand"] == hand:
                started = True
            else:
                continue
        block = format_step(timeline, step, style, seat)
        if block:
            yield block
    if not timeline.complete:
        yield [
            INDENT + f"(the log ends at line {timeline.last_line} without a match result: "
            "the match was cut short)"
        ]


def format_step(
    timeline: Timeline, step: Step, style: Style = PLAIN, seat: int | None = None
) -> list[str]:
    """The lines of one record; empty when ``seat`` was not sent anything about it."""
    kind = step.kind
    if kind == "connected":
        if seat is not None:
            return []
        r = step.record
        return [
            gutter(step.line, style) + f"seat {r['seat']} connected: {r['name']} {r['version']}"
        ]
    if kind == "connection_rejected":
        if seat is not None:
            return []
        r = step.record
        who = "unknown token" if r["seat"] is None else f"seat {r['seat']}"
        return [
            gutter(step.line, style)
            + f"connection refused ({who}): {r['code']} ({r['rule']}): {r['reason']}"
        ]
    if kind == "deal":
        return _format_deal(timeline, step, style, seat)
    if kind == "decision":
        return _format_decision(timeline, step, style, seat)
    if kind == "fault":
        return _format_fault(timeline, step, style, seat)
    if kind == "hand_result":
        return _format_hand_result(timeline, step, style, seat)
    if kind == "match_result":
        return _format_match_result(timeline, step, style, seat)
    return []


def _format_deal(timeline: Timeline, step: Step, style: Style, seat: int | None) -> list[str]:
    h = step.played
    assert h is not None
    obs = seat_observation(step, seat if seat is not None else 0)
    head = (
        f"══ Hand {h.number + 1} · dealer: {seat_name(timeline, h.dealer, seat)} · "
        f"knock limit {h.knock_limit} · score {score_text(obs.scores)}"
    )
    lines = ["", gutter(step.line, style) + style.bold(head)]
    for s in (0, 1):
        if seat is None or s == seat:
            cards = seat_observation(step, s).hand
            lines.append(INDENT + f"{seat_name(timeline, s, seat)}: {hand_line(cards, style)}")
        else:
            lines.append(INDENT + f"{seat_name(timeline, s)}: {obs.opponent_hand_size} cards")
    up = "none (eleven-card deal)" if h.upcard is None else card_text(h.upcard, style)
    lines.append(INDENT + f"upcard {up} · stock {h.stock_size}")
    return lines


def _format_decision(timeline: Timeline, step: Step, style: Style, seat: int | None) -> list[str]:
    actor = step.record["seat"]
    action = step.action
    assert action is not None
    lines: list[str] = []
    left = gutter(step.line, style)
    if seat is not None and actor == seat:
        asked = request_observation(step)
        if asked is not None:
            first, second = request_text(step, asked, style)
            lines += [left + style.dim(first), INDENT + style.dim(second)]
            left = INDENT
    played = step.played
    if seat is None:
        events = [] if played is None else list(played.events[step.events_from :])
    else:
        events = list(seat_events(step, seat))
    texts = [t for t in (event_text(e, style) for e in events) if t]
    if not texts or isinstance(action, ChooseDeal):
        texts = [_decision_words(step, action, style)]
    who = seat_name(timeline, actor, seat)
    # A seat is not told how long its opponent thought.
    think = think_text(step.record, style) if seat is None or actor == seat else ""
    lines.append(left + f"{who} " + "; ".join(texts) + think)
    if isinstance(action, Discard) and (seat is None or actor == seat) and played is not None:
        # The actor's own cards: its observation's hand, without building the observation.
        lines.append(INDENT + "  " + style.dim("holds ") + mask_line(played.held(actor), style))
    return lines


def _decision_words(step: Step, action: Action, style: Style) -> str:
    if isinstance(action, ChooseDeal):
        return "chooses to deal first" if action.deal else "chooses not to deal"
    if isinstance(action, Pass):
        before = step.before
        if before.phase is Phase.WALL:
            return "passes the last discard: the hand is dead"
        pile = before.hand.pile if before.hand is not None else []
        return f"passes the upcard {card_text(pile[-1], style)}" if pile else "passes"
    if isinstance(action, DefenderPlay):
        return "declares the defence: " + action_text(action, style)
    return action_text(action, style)


def request_text(step: Step | GroupStep, obs: Observation, style: Style = PLAIN) -> list[str]:
    """The request a seat was sent, in two lines: phase and legal actions; hand, pile, stock."""
    rid = step.record.get("request_id", "?")
    pile = obs.discard_pile
    count = "1 card" if len(pile) == 1 else f"{len(pile)} cards"
    top = f"{card_text(pile[-1], style)} on top ({count})" if pile else "empty"
    return [
        f"request {rid} ({phase_words(obs.phase)}) · legal: {legal_text(obs.legal_actions, style)}",
        f"  hand {cards_text(obs.hand, style)} · discard pile {top} · stock {obs.stock_size}",
    ]


def _format_fault(timeline: Timeline, step: Step, style: Style, seat: int | None) -> list[str]:
    r = step.record
    if seat is not None and r["seat"] != seat:
        return []
    then = "a new request follows" if r["retry"] else "the seat forfeits the match"
    text = (
        f"FAULT {seat_name(timeline, r['seat'], seat)}: {r['kind']} ({r['rule']}): "
        f"{r['reason']} -- {then}"
    )
    return [gutter(step.line, style) + (style.bold(text) if style.color else text)]


def format_showdown(
    timeline: Timeline | GroupTimeline,
    result: HandResult,
    style: Style = PLAIN,
    you: int | None = None,
) -> list[str]:
    """A finished hand: the knocker's melds and deadwood, the defender's melds, layoffs and
    deadwood, who won how many points (or why the hand was dead), and the score (its last line).

    The hand's seats are named as the match seats that played them (with two players, the
    same): ``you`` is a match seat.
    """

    def name(hand_seat: int | None) -> str:
        return seat_name(timeline, result.match_seat(hand_seat), you)

    lines: list[str] = []
    outcome = result.outcome
    if outcome is HandOutcome.DEAD:
        reason = (result.dead_reason or "").replace("_", " ")
        lines.append(f"dead hand ({reason}): nobody scores")
        for s in (0, 1):
            lines.append(f"  {name(s)} held {cards_text(result.final_hands[s], style)}")
    else:
        knocker = result.knocker
        arrangement = result.knocker_arrangement
        assert knocker is not None and arrangement is not None
        verb = {
            HandOutcome.GIN: "gin",
            HandOutcome.BIG_GIN: "big gin",
        }.get(outcome, "knock")
        if outcome in (HandOutcome.UNDERCUT, HandOutcome.PUSH):
            verb = "knock"
        discard = (
            ""
            if result.knock_discard is None
            else f", discarding {card_text(result.knock_discard, style)} face down"
        )
        lines.append(f"{verb} by {name(knocker)}{discard}")
        melds = " ".join(meld_text(m.cards, style) for m in arrangement.melds) or "none"
        lines.append(
            f"  {name(knocker)} melds {melds} · deadwood "
            f"{cards_text(arrangement.deadwood, style)} = {result.knocker_deadwood}"
        )
        defender = result.defender
        if defender is not None:
            dmelds = " ".join(meld_text(m.cards, style) for m in defender.melds) or "none"
            lays = ", ".join(
                f"{card_text(c, style)} on {meld_text(arrangement.melds[i].cards, style)}"
                for c, i in defender.layoffs
            )
            lines.append(
                f"  {name(1 - knocker)} melds {dmelds}"
                + (f" · lays off {lays}" if lays else " · lays off nothing")
                + f" · deadwood {cards_text(defender.deadwood, style)} = {result.defender_deadwood}"
            )
        if outcome is HandOutcome.PUSH:
            lines.append("  a tie: nobody scores (push)")
        else:
            how = {
                HandOutcome.UNDERCUT: "undercut",
                HandOutcome.KNOCK: "knock",
                HandOutcome.GIN: "gin",
                HandOutcome.BIG_GIN: "big gin",
            }[outcome]
            notes = ""
            if result.doubled:
                notes += ", doubled (spade upcard)"
            if result.extra_boxes:
                notes += f", {result.extra_boxes} extra boxes"
            winner = name(result.winner)
            lines.append(f"  {winner} wins {result.points} points ({how}{notes})")
    lines.append(f"  running score {score_text(result.scores_after)} (hand points)")
    return lines


def _format_hand_result(
    timeline: Timeline, step: Step, style: Style, seat: int | None
) -> list[str]:
    number = step.record["hand"]
    head = gutter(step.line, style) + style.bold(f"── Hand {number} result")
    result = step.result
    if result is None:
        return [head, INDENT + "recorded, but the engine has not finished this hand"]
    return [head] + [INDENT + line for line in format_showdown(timeline, result, style, seat)]


def _format_match_result(
    timeline: Timeline, step: Step, style: Style, seat: int | None
) -> list[str]:
    r = step.record
    result = step.after.result
    final = r["final"] if result is None else list(result.final)
    winner = r["winner"] if result is None else result.winner
    forfeit = r["termination"] == "forfeit"
    if winner is None:
        what = "no winner"
    else:
        what = f"{seat_name(timeline, winner, seat)} wins" + (" by forfeit" if forfeit else "")
    termination = {
        "target": "target reached",
        "single_hand": "one-hand match",
        "hollywood": "all three Hollywood games settled",
    }.get(r["termination"])
    score = f"{score_text(final)}" + (f" ({termination})" if termination else "")
    if forfeit:
        score = f"hand points {score_text(final)} as they stood"
    dealt = r["hands_played"]
    hands = f"{dealt} hand{'' if dealt == 1 else 's'} dealt"
    text = f"══ Result: {what}, {score}, margin {r['margin']}, {hands}"
    lines = ["", gutter(step.line, style) + style.bold(text)]
    lines += [INDENT + line for line in result_lines(timeline, r, final, seat)]
    exits = r.get("exits")  # absent from the logs of earlier referees
    if isinstance(exits, list):
        for n, item in enumerate(exits[:2]):
            if isinstance(item, dict):
                how = safe_text(str(item.get("reason", "")), None)
                lines.append(INDENT + f"{seat_name(timeline, n, seat)} process: {how}")
    return lines


def can_print(text: str, encoding: str | None) -> bool:
    """Whether a stream in ``encoding`` (None: ASCII) can show ``text``."""
    try:
        text.encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
