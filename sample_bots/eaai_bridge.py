"""Play an agent written for the Python port of Neller's EAAI framework as a ginref bot.

::

    python -m sample_bots.eaai_bridge --path PORT_DIR MODULE:CLASS
    python -m sample_bots.eaai_bridge --path PORT_DIR agents/my_player.py:MyPlayer

The agent is a class of the port (AnthonyHein/GinRummyEAAI-Python, ``Python/``): it has the ten
methods of the port's ``GinRummyPlayer`` (``startGame``, ``willDrawFaceUpCard``, ``reportDraw``,
``getDiscard``, ``reportDiscard``, ``getFinalMelds``, ``reportFinalMelds``, ``reportScores``,
``reportLayoff``, ``reportFinalHand``) and is built with no arguments, once for the whole
process, as the framework builds its players once for all its games. ``MODULE`` is found on
``--path`` (repeatable: the port's directory, whose modules import one another by their bare
names, ``from Card import Card``) and the working directory; a file path's directory is added
too. A sandboxed bot sees the directories its command names, so ``--path`` is also what shows
the port to the bot.

Cards cross as the port's own objects: the ones of its ``Deck.strCardMap`` (``Card.strCardMap``
in a port that keeps Java's layout), found at run time among the modules the agent imported or
on the path, so that an agent that compares cards by identity, as the port's players do
(``list.remove``), finds its own cards; a card goes back to the wire as ``str(card)``, which is
the port's ``"TD"`` notation and ours.

The calls come in the order of the port's ``GinRummyGame.play``, one hand being one of its
games (``profile neller-eaai``, docs/rules.md §12.6):

- the hand's start: ``startGame(seat, non-dealer, dealt cards)``;
- an offer of the upcard or of the top discard: ``willDrawFaceUpCard(card)``; the draw is then
  reported to both players with ``reportDraw`` (the opponent's stock draw as ``None``); a
  declined upcard is reported to nobody, and the draw that follows two declines is not offered;
- after the draw: ``getDiscard()``, ``reportDiscard`` of it to the agent, then
  ``getFinalMelds()``: melds mean a knock with those melds and that discard (face up), ``None``
  a plain discard. A card the agent may not discard is sent as it is, and the referee refuses
  it as the framework forfeits it;
- a knock: the opponent's discard and melds reach the agent (``reportDiscard``,
  ``reportFinalMelds``), then, as the defender, ``getFinalMelds()`` declares its own melds (the
  referee lays off the rest, as the framework does); the defender's melds and each layoff
  (``reportLayoff`` with the meld as it was before the card) follow;
- the hand's end, knocked or dead: ``reportFinalHand`` of seat 0 then seat 1, then
  ``reportScores`` with the match scores.

The knocker's melds reach the opponent in ginref's order (sets, then runs), not in the order the
knocker declared them (docs/rules.md §12.6). Exit codes are
:func:`sample_bots.client.run_bot`'s, and 2 when the agent cannot be loaded.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.engine.cards import card_str
from sample_bots.client import (
    EXIT_CONFIG,
    ConfigError,
    action_kind,
    config_from_env,
    discard_action,
    pb,
    run_bot,
)

PROG = "eaai-bridge"
PLAYER_METHODS = (
    "startGame",
    "willDrawFaceUpCard",
    "reportDraw",
    "getDiscard",
    "reportDiscard",
    "getFinalMelds",
    "reportFinalMelds",
    "reportScores",
    "reportLayoff",
    "reportFinalHand",
)
# Where a port keeps its 52 card objects by name: the Python port in Deck, Java's in Card.
CARD_REGISTRIES = (("Deck", "Deck"), ("Card", "Card"))
WIRE_CARDS = frozenset(card_str(c) for c in range(52))


class LoadError(ValueError):
    """The agent or the port's cards cannot be loaded; the message says what to change."""


# --- Loading ------------------------------------------------------------------------------------


def load_player_class(target: str) -> type:
    """The class ``MODULE:CLASS`` or ``FILE.py:CLASS`` names, checked to be an EAAI player."""
    module_name, sep, class_name = target.rpartition(":")
    if not sep or not module_name or not class_name:
        raise LoadError(
            f"{target!r}: expected MODULE:CLASS or FILE.py:CLASS, "
            "e.g. SimpleGinRummyPlayer:SimpleGinRummyPlayer"
        )
    if module_name.endswith(".py") or os.sep in module_name:
        # Imported by its bare name from its own directory, as the port's modules import one
        # another, so that the modules beside it import too.
        path = Path(module_name)
        if not path.is_file():
            raise LoadError(f"{target!r}: no file {module_name}")
        sys.path.insert(0, str(path.resolve().parent))
        module_name = path.stem
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise LoadError(
                f"{target!r}: no module {module_name!r} in the --path directories or the working "
                "directory (a sandboxed bot sees only the directories its command names: give "
                "the agent's and the port's with --path DIR)"
            ) from None
        raise LoadError(f"{target!r}: cannot import {module_name!r}: {exc}") from None
    except Exception as exc:  # the agent's own module failing is the user's to fix
        raise LoadError(
            f"{target!r}: cannot import {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    player_class = getattr(module, class_name, None)
    if not isinstance(player_class, type):
        raise LoadError(f"{target!r}: module {module_name!r} has no class {class_name!r}")
    missing = [m for m in PLAYER_METHODS if not callable(getattr(player_class, m, None))]
    if missing:
        raise LoadError(
            f"{target!r}: {class_name} has no {', '.join(missing)}: an EAAI player has the ten "
            "methods of the port's GinRummyPlayer"
        )
    return player_class


def make_player(target: str) -> Any:
    """The agent: its class built with no arguments, as the framework builds its players."""
    player_class = load_player_class(target)
    try:
        return player_class()
    except Exception as exc:  # the agent's constructor is the user's to fix
        what = f"{type(exc).__name__}: {exc}"
        raise LoadError(f"{target!r}: {player_class.__name__}() failed: {what}") from None


def find_cards() -> PortCards:
    """The port's card objects by name: its registry among the modules already imported (the
    agent's own, even inside a package), else imported from the path."""
    for module_name, class_name in CARD_REGISTRIES:
        modules = [m for n, m in list(sys.modules.items()) if n.rpartition(".")[2] == module_name]
        if not modules:
            try:
                modules = [importlib.import_module(module_name)]
            except Exception:  # not this layout (or not on the path): try the next one
                continue
        for module in modules:
            registry = getattr(getattr(module, class_name, None), "strCardMap", None)
            if isinstance(registry, Mapping) and set(registry) == WIRE_CARDS:
                return PortCards(registry)
    raise LoadError(
        "cannot find the port's cards (Deck.strCardMap in the port's Deck.py, or "
        "Card.strCardMap): give the port's directory with --path DIR"
    )


class PortCards:
    """Wire cards as the port's card objects and back (``str(card)``: the same notation)."""

    def __init__(self, by_text: Mapping[str, Any]) -> None:
        self._by_text = by_text

    def card(self, text: str) -> Any:
        """The port's object of a wire card, e.g. ``"TD"``."""
        return self._by_text[text]

    def cards(self, texts: Iterable[str]) -> list[Any]:
        """The port's objects of wire cards, in the same order."""
        return [self._by_text[t] for t in texts]

    def melds(self, melds: Iterable[pb.Meld]) -> list[list[Any]]:
        """Wire melds as the port's lists of cards."""
        return [self.cards(m.cards) for m in melds]

    @staticmethod
    def wire_melds(melds: Iterable[Iterable[Any]]) -> list[pb.Meld]:
        """The agent's melds (lists of its cards) as wire melds."""
        return [pb.Meld(cards=[str(c) for c in meld]) for meld in melds]


# --- The framework's calls ------------------------------------------------------------------------


class Bridge:
    """One agent played over the stream: the referee's messages as the framework's calls."""

    def __init__(self, player: Any, cards: PortCards) -> None:
        self.player = player
        self.cards = cards
        self.seat = 0
        # The agent's own melds as it returned them, reported back to it unchanged as the
        # framework does (the wire shows them in ginref's order); None: the referee arranged.
        self._knock_melds: list[list[Any]] | None = None
        self._defender_melds: list[list[Any]] = []

    def on_message(self, message: pb.RefereeMessage) -> None:
        """Report what ``message`` brings, before :meth:`decide` answers it."""
        kind = message.WhichOneof("kind")
        if kind == "match_start" and message.match_start.rules.profile != "neller-eaai":
            print(
                f"{PROG}: this match plays {message.match_start.rules.profile}; the EAAI "
                "framework's game is neller-eaai (ginref match -p neller-eaai)",
                file=sys.stderr,
                flush=True,
            )
        elif kind == "hand_start":
            start = message.hand_start
            self.seat = start.hand_seat
            self.player.startGame(self.seat, 1 - start.dealer, self.cards.cards(start.hand))
        elif kind == "event":
            self._report(message.event, None)
        elif kind == "decision_request":
            request = message.decision_request
            for event in request.new_events:
                self._report(event, request.observation)
        elif kind == "hand_end":
            end = message.hand_end
            for seat, held in enumerate(end.result.final_hands):
                self.player.reportFinalHand(seat, self.cards.cards(held.cards))
            self.player.reportScores([score.points for score in end.scores])

    def _report(self, event: pb.GameEvent, observation: pb.Observation | None) -> None:
        kind = event.WhichOneof("kind")
        player, seat = self.player, event.seat
        if kind in ("take_upcard", "draw_discard", "draw_stock"):
            text = getattr(event, kind).card
            player.reportDraw(seat, self.cards.card(text) if text else None)
        elif kind == "discard" and seat != self.seat:  # the agent's own was reported at once
            player.reportDiscard(seat, self.cards.card(event.discard.card))
        elif kind == "knock":
            self._report_knock(event, observation)
        elif kind == "showdown":
            show = event.showdown
            defender = 1 - show.knocker
            own = defender == self.seat
            melds = self._defender_melds if own else self.cards.melds(show.defender_melds)
            player.reportFinalMelds(defender, melds)
            targets = self.cards.melds(show.knocker_arrangement.melds)
            for layoff in show.layoffs:
                card, meld = self.cards.card(layoff.card), targets[layoff.meld_index]
                player.reportLayoff(defender, card, list(meld))
                meld.append(card)

    def _report_knock(self, event: pb.GameEvent, observation: pb.Observation | None) -> None:
        seat, shown = event.seat, event.knock.arrangement.melds
        if seat == self.seat:  # its discard was reported as it was made
            own = self._knock_melds
            self.player.reportFinalMelds(seat, self.cards.melds(shown) if own is None else own)
            return
        # The knock discard lies face up on the pile the defender is shown (knock_discard =
        # face_up); the framework reports it as a discard before the melds.
        if observation is not None and observation.discard_pile and _face_up(observation):
            self.player.reportDiscard(seat, self.cards.card(observation.discard_pile[-1]))
        self.player.reportFinalMelds(seat, self.cards.melds(shown))

    def decide(self, request: pb.DecisionRequest) -> pb.Action:
        """The agent's answer to ``request``, asked as the framework asks it."""
        legal: list[pb.Action] = list(request.legal_actions)
        by_kind: dict[str, list[pb.Action]] = {}
        for action in legal:
            by_kind.setdefault(action_kind(action), []).append(action)
        if "defender_play" in by_kind:
            self._defender_melds = _melds_list(self.player.getFinalMelds())
            wire = PortCards.wire_melds(self._defender_melds)
            return pb.Action(defender_play=pb.DefenderPlay(melds=wire))
        if "discard" in by_kind or "knock" in by_kind:
            return self._discard(by_kind)
        if "draw_discard" in by_kind:
            top = self.cards.card(request.observation.discard_pile[-1])
            if self.player.willDrawFaceUpCard(top):
                return by_kind["draw_discard"][0]
            declined = by_kind.get("draw_stock") or by_kind.get("pass_offer")
            if declined:
                return declined[0]
        if "draw_stock" in by_kind:  # after both declined the upcard: the framework asks nobody
            return by_kind["draw_stock"][0]
        # What the framework's game has no call for (other profiles: the wall, the choice of
        # dealer, big gin): the first legal action.
        return legal[0]

    def _discard(self, by_kind: Mapping[str, Sequence[pb.Action]]) -> pb.Action:
        card = self.player.getDiscard()
        text = str(card)
        allowed = {a.discard.card for a in by_kind.get("discard", ())}
        allowed |= {a.knock.discard for a in by_kind.get("knock", ())}
        if text not in allowed:
            return discard_action(text)  # refused by the referee, as the framework forfeits it
        self.player.reportDiscard(self.seat, card)
        melds = self.player.getFinalMelds()
        if melds is None and "discard" in by_kind:
            return discard_action(text)
        # Only when the rules leave no plain discard (must_knock, not in the framework's game)
        # does a knock go without the agent's melds: the referee then arranges (R5.4).
        self._knock_melds = None if melds is None else _melds_list(melds)
        knock = pb.Knock(discard=text)
        if self._knock_melds is not None:
            knock.arrangement.SetInParent()  # present even with no melds: the agent's own
            knock.arrangement.melds.extend(PortCards.wire_melds(self._knock_melds))
        return pb.Action(knock=knock)


def _melds_list(melds: Any) -> list[list[Any]]:
    """The agent's melds as a list of lists (``None``, which the framework cannot take from a
    defender, as no melds)."""
    return [list(meld) for meld in melds] if melds is not None else []


def _face_up(observation: pb.Observation) -> bool:
    mode: str = observation.rules.params.get("knock_discard", "")
    return mode == "face_up"


# --- The command ----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Load the agent, then play with the launch environment; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m sample_bots.eaai_bridge",
        description="Play an agent of the EAAI framework's Python port as a ginref bot.",
    )
    parser.add_argument("agent", help="MODULE:CLASS or FILE.py:CLASS, e.g. MyPlayer:MyPlayer")
    parser.add_argument(
        "--path", action="append", default=[], help="a directory to import from (repeatable)"
    )
    parser.add_argument("--name", default=None, help="the bot's name (default: the class's)")
    args = parser.parse_args(argv)
    name = args.name or args.agent.rpartition(":")[2] or PROG
    try:
        for directory in args.path:
            if not Path(directory).is_dir():
                raise LoadError(
                    f"--path {directory}: no such directory (a sandboxed bot sees the "
                    "directories its command names)"
                )
        sys.path[:0] = args.path
        player = make_player(args.agent)
        cards = find_cards()
        config = config_from_env()
    except (LoadError, ConfigError) as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    if config.matches > 1:
        # One agent, whose calls must not interleave between matches.
        print(
            f"{name}: GINREF_MATCHES={config.matches}: an EAAI agent plays one match at a time",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    bridge = Bridge(player, cards)
    return run_bot(bridge.decide, name, config=config, on_message=bridge.on_message)


if __name__ == "__main__":
    sys.exit(main())
