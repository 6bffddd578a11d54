"""What every rule parameter and profile means: the one source for `ginref rules`, error messages
and docs/rules.md (whose tables `tests/test_rules_reference.py` checks against this module).

Pure data and a few pure lookups, no I/O. Values are spelled as on the command line, in TOML files
and in replay logs: words, ``on`` / ``off``, ``none`` and numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.engine.rules import PARAMETERS, Rules


@dataclass(frozen=True, slots=True)
class ParameterDoc:
    """One rule parameter: what it decides, the rules it belongs to, and its values."""

    name: str
    summary: str
    rules: tuple[str, ...]
    # (value, meaning): every word of an enumerated parameter, in CHOICES order; "on" / "off"
    # for a switch; for a number, its range or notable values ("0", "1-10", "none").
    values: tuple[tuple[str, str], ...]
    note: str = ""


@dataclass(frozen=True, slots=True)
class ProfileDoc:
    """One named profile and what it is for."""

    name: str
    purpose: str


_P = ParameterDoc

PARAMETER_DOCS: dict[str, ParameterDoc] = {
    doc.name: doc
    for doc in (
        _P(
            "scope",
            "Whether a match is a game to a target score or a single hand.",
            ("R9.9",),
            (
                ("match", "hands are dealt until a player reaches the target (§9)"),
                (
                    "single_hand",
                    "one hand only: no target, game bonus, boxes, shutout or dealer rotation",
                ),
            ),
        ),
        _P(
            "players",
            "Number of players.",
            ("§10", "R10.1", "R10.2"),
            (
                ("2", "two-player gin"),
                ("3", "three players: the dealer sits out, the loser deals next (R10.1)"),
                ("4", "two partnerships at two tables, team scores per round, target 125 (R10.2)"),
            ),
            "With 3 or 4 players every hand is an ordinary two-player hand; scope must be match, "
            "and hollywood and cut_high_chooses are refused.",
        ),
        _P(
            "first_dealer",
            "Who deals the first hand.",
            ("R2.2",),
            (
                ("random", "drawn from the match seed"),
                (
                    "cut_low_deals",
                    "each seat cuts a card; the lower rank deals (equal ranks cut again)",
                ),
                (
                    "cut_high_chooses",
                    "each seat cuts a card; the higher rank chooses whether to deal "
                    "(phase CHOOSE_DEALER)",
                ),
                ("seat0", "seat 0 deals the first hand"),
                ("seat1", "seat 1 deals the first hand, so seat 0 is offered the upcard first"),
            ),
        ),
        _P(
            "dealer_rotation",
            "Who deals the next hand after a hand with a winner.",
            ("R2.6",),
            (
                ("alternate", "the deal alternates"),
                ("loser_deals", "the loser of the hand deals the next one"),
                ("winner_deals", "the winner of the hand deals the next one"),
            ),
        ),
        _P(
            "dead_hand_dealer",
            "Who deals after a hand without a winner (a dead hand or a push).",
            ("R2.7",),
            (
                ("same_dealer", "the same dealer deals again"),
                ("rotate", "the deal passes as after any hand (needs dealer_rotation = alternate)"),
            ),
        ),
        _P(
            "deal_mode",
            "How the cards are dealt.",
            ("R2.4", "R2.5"),
            (
                ("upcard", "ten cards each and an upcard, offered to the non-dealer first (§3)"),
                (
                    "eleven_card",
                    "eleven cards to the non-dealer, ten to the dealer, no upcard; the "
                    "non-dealer opens with a discard (or a knock)",
                ),
            ),
        ),
        _P(
            "deal_order",
            "Which seat the deck's first card (and every other one of the first 20) goes to.",
            ("R2.4",),
            (
                ("non_dealer_first", "the non-dealer, then the dealer, alternately (R2.4)"),
                (
                    "seat0_first",
                    "seat 0, then seat 1, whoever deals: a seat's cards depend on the deck "
                    "alone, so the two matches of a duplicate pair deal each hand mirrored even "
                    "when their dealers differ (two players, deal_mode = upcard)",
                ),
            ),
        ),
        _P(
            "discard_taken_card",
            "Whether a card taken from the discard pile may be discarded in the same turn.",
            ("R4.3",),
            (
                ("forbidden", "no: neither face up nor as the knock discard"),
                (
                    "allowed_gra",
                    "yes, but its first discarder may take it back on their next turn only to "
                    "knock or go gin with it (the upcard is exempt)",
                ),
                ("allowed", "yes, without restriction"),
            ),
        ),
        _P(
            "knock_limit_mode",
            "Where the knock limit L comes from.",
            ("R5.5",),
            (
                ("fixed", "L = knock_limit"),
                (
                    "oklahoma",
                    "L = the value of the hand's upcard (a face card counts 10; an ace, see "
                    "oklahoma_ace)",
                ),
            ),
        ),
        _P(
            "knock_limit",
            "The knock limit L under knock_limit_mode = fixed: the most deadwood a knock leaves.",
            ("R5.5",),
            (("0-10", "the limit"), ("0", "straight gin: only gin ends a hand")),
        ),
        _P(
            "oklahoma_ace",
            "The knock limit when an Oklahoma upcard is an ace.",
            ("R5.5",),
            (("gin_only", "L = 0: only gin ends the hand"), ("one", "L = 1")),
        ),
        _P(
            "spade_double",
            "Oklahoma: a hand whose upcard is a spade scores double, bonuses included.",
            ("R8.6",),
            (("on", "double"), ("off", "no doubling")),
        ),
        _P(
            "knocker_arrangement",
            "Who arranges the knocker's melds.",
            ("R5.4",),
            (
                (
                    "free",
                    "the knocker may declare any valid arrangement within the limit; without "
                    "one, the referee's default arrangement (R5.4)",
                ),
                ("auto", "the referee arranges the knocker's cards for least deadwood"),
            ),
        ),
        _P(
            "force_gin",
            "Whether a player able to go gin must.",
            ("R5.1",),
            (("on", "gin is the only legal knock when one exists"), ("off", "gin is optional")),
        ),
        _P(
            "defender_play",
            "How the defender's melds and layoffs are decided after a knock.",
            ("R6.6",),
            (
                (
                    "auto_optimal",
                    "the referee finds the defender's least deadwood over every choice of melds "
                    "and chained layoffs",
                ),
                (
                    "declared",
                    "the defender declares its melds and layoffs (phase DEFENDER) and is scored "
                    "on them as declared",
                ),
                (
                    "auto_greedy",
                    "the referee picks the defender's melds, then lays off the first card that "
                    "fits, repeated, trying sets before runs (neller-eaai's logs before "
                    "declared_melds)",
                ),
                (
                    "declared_melds",
                    "the defender declares its melds only (phase DEFENDER); the referee lays "
                    "off the rest first fit, trying the knocker's melds in the order the knocker "
                    "declared them (the Neller framework)",
                ),
            ),
        ),
        _P(
            "knock_discard",
            "Whether the knocker's discard is face down or face up on the discard pile.",
            ("R5.2",),
            (
                ("face_down", "face down, out of play, shown when the hand ends"),
                (
                    "face_up",
                    "face up on the discard pile, where the defender sees it before the "
                    "showdown (the Neller framework)",
                ),
            ),
        ),
        _P(
            "gin_bonus",
            "Bonus for gin, added to the defender's deadwood.",
            ("R8.2",),
            (("0 or more", "the bonus (25 in standard, 20 in pagat)"),),
        ),
        _P(
            "big_gin_bonus",
            "Big gin (all eleven cards melded, no discard) and its bonus.",
            ("R5.9", "R8.2"),
            (("none", "no big gin"), ("0 or more", "big gin is allowed and scores this bonus")),
        ),
        _P(
            "undercut_bonus",
            "Bonus for an undercut, added to the difference in deadwood.",
            ("R8.3",),
            (("0 or more", "the bonus (25 in standard, 10 in pagat)"),),
        ),
        _P(
            "undercut_on_tie",
            "Whether equal deadwood after a knock is an undercut.",
            ("R8.3",),
            (
                ("on", "a tie is an undercut: the defender scores the bonus"),
                ("off", "a tie is a push: nobody scores and the hand has no winner"),
            ),
        ),
        _P(
            "wall_rule",
            "What happens when the stock is down to two cards (the wall).",
            ("§7",),
            (
                (
                    "dead",
                    "whoever draws the stock down to two cards knocks, or the hand is dead (R7.2)",
                ),
                (
                    "fiftieth_card_pagat",
                    "the other player may take that discard only to knock or go gin, "
                    "discarding a different card; otherwise the hand is dead (R7.3)",
                ),
                (
                    "fiftieth_card_gamecolony",
                    "as fiftieth_card_pagat, but the taken card may itself be the knock "
                    "discard (R7.4)",
                ),
                (
                    "rlcard",
                    "each player at the wall takes the discard and plays on, or declares the "
                    "hand dead (R7.5); needs max_turns",
                ),
            ),
        ),
        _P(
            "max_turns",
            "A cap on draws in one hand, after which the hand is dead.",
            ("R4.5",),
            (
                ("none", "no cap"),
                ("1 or more", "the hand is dead after the discard of this many draws"),
            ),
        ),
        _P(
            "max_discard_draws",
            "A cap on draws from the discard pile in one hand (OpenSpiel's rule).",
            ("R4.3", "R4.5"),
            (
                ("none", "no cap"),
                (
                    "1 or more",
                    "the hand ends dead at once when its draws from the discard pile, both "
                    "players' together, reach this number (the upcard offer and the wall are not "
                    "counted)",
                ),
            ),
        ),
        _P(
            "repeated_discard_dead",
            "OpenSpiel's repeated-move rule: take the discard and throw it back, twice in a row.",
            ("R4.3", "R4.5"),
            (
                (
                    "on",
                    "when both players in succession discard the card they just took, the hand "
                    "is dead",
                ),
                ("off", "no such rule"),
            ),
        ),
        _P(
            "target",
            "Hand points that win a game.",
            ("R9.1", "R9.2"),
            (
                (
                    "1 or more",
                    "the target (100 in most profiles, 150 in oklahoma, 125 with players = 4)",
                ),
            ),
        ),
        _P(
            "game_bonus",
            "Bonus to the winner of a game.",
            ("R9.3",),
            (("0 or more", "the bonus (0 in standard, 100 in pagat)"),),
        ),
        _P(
            "box_bonus",
            "Points per hand won (a box), added at the end of a game.",
            ("R9.4",),
            (("0 or more", "the value of a box (0 in standard, 20 in pagat)"),),
        ),
        _P(
            "boxes_count_toward_target",
            "Whether boxes are credited as each hand is won, counting toward the target.",
            ("R9.4",),
            (
                ("on", "credited with each won hand, toward the target"),
                ("off", "added at the end of the game only"),
            ),
        ),
        _P(
            "shutout",
            "The reward for winning a game in which the loser scored no hand points.",
            ("R9.5",),
            (
                ("none", "no reward"),
                ("game_bonus_doubled", "the game bonus counts twice"),
                ("total_doubled", "the winner's whole final score is doubled"),
                ("hand_points_doubled", "the winner's hand points are doubled before bonuses"),
            ),
        ),
        _P(
            "oklahoma_extra_boxes",
            "Oklahoma: extra boxes for an undercut (1) and a gin (2), doubled on a spade upcard.",
            ("R9.7",),
            (("on", "extra boxes are earned"), ("off", "no extra boxes")),
        ),
        _P(
            "hollywood",
            "Hollywood scoring: three games scored at once.",
            ("R9.8",),
            (("on", "three games, filled one after another"), ("off", "one game")),
        ),
        _P(
            "payoff",
            "The return each seat gets for a hand (what a learning agent is paid).",
            ("R8.7", "§12.6"),
            (
                ("points", "the scorer gets its points, the other seat 0"),
                ("zero_sum", "the scorer gets its points, the other seat their negative"),
                (
                    "rlcard_shaped",
                    "RLCard's: gin 1, a knock 0.2, anyone else minus their best deadwood / 100",
                ),
            ),
        ),
    )
}

PROFILE_DOCS: dict[str, ProfileDoc] = {
    doc.name: doc
    for doc in (
        ProfileDoc("standard", "North American rules: gin 25, undercut 25, 100 up, no bonuses"),
        ProfileDoc("pagat", "Pagat's classic rules: gin 20, undercut 10, game and box bonuses"),
        ProfileDoc("oklahoma", "Oklahoma gin on pagat's scoring: the upcard sets the knock limit"),
        ProfileDoc("oklahoma-std", "Oklahoma gin on standard's scoring (gin 25, undercut 25)"),
        ProfileDoc("openspiel", "one hand as OpenSpiel's gin_rummy plays it, zero-sum"),
        ProfileDoc("rlcard", "one hand as RLCard's gin-rummy environment plays it"),
        ProfileDoc(
            "neller-eaai",
            "the Neller EAAI framework's game: standard with its deal, face-up knock discard, "
            "and the defender's own melds then greedy layoffs",
        ),
    )
}


def format_value(value: Any) -> str:
    """A parameter value as it is written in a file or on the command line."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def profile_values(profile: str) -> dict[str, str]:
    """Every parameter of ``profile`` by name, formatted."""
    rules = Rules.profile(profile).to_dict()
    return {name: format_value(rules[name]) for name in PARAMETERS}


def lookup(name: str) -> ParameterDoc | ProfileDoc | None:
    """The profile or parameter called ``name`` (a parameter may be spelled with dashes)."""
    if name in PROFILE_DOCS:
        return PROFILE_DOCS[name]
    return PARAMETER_DOCS.get(name.replace("-", "_"))
