"""Rule parameters (docs/rules.md §12.1) and the named profiles (§12.2).

A :class:`Rules` value holds every parameter; :meth:`Rules.profile` builds one from a profile name
and overrides given by name, and every construction path goes through :meth:`Rules.validate`, so
an invalid combination (e.g. ``eleven_card`` with Oklahoma) can never reach the engine.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from referee.engine.errors import RulesError

# The values of every enumerated parameter, spelled as in logs, the proto and TOML files. Literal
# types let mypy reject a misspelt value anywhere one is compared or assigned.
Scope = Literal["match", "single_hand"]  # R9.9
FirstDealer = Literal["random", "cut_low_deals", "cut_high_chooses", "seat0", "seat1"]  # R2.2
DealerRotation = Literal["alternate", "loser_deals", "winner_deals"]  # R2.6
DeadHandDealer = Literal["same_dealer", "rotate"]  # R2.7
DealMode = Literal["upcard", "eleven_card"]  # R2.4, R2.5
DealOrder = Literal["non_dealer_first", "seat0_first"]  # R2.4
DiscardTakenCard = Literal["forbidden", "allowed_gra", "allowed"]  # R4.3
KnockLimitMode = Literal["fixed", "oklahoma"]  # R5.5
OklahomaAce = Literal["gin_only", "one"]  # R5.5
KnockerArrangement = Literal["free", "auto"]  # R5.4
DefenderPlayMode = Literal["auto_optimal", "declared", "auto_greedy", "declared_melds"]  # R6.6
KnockDiscard = Literal["face_down", "face_up"]  # R5.2
WallRule = Literal["dead", "fiftieth_card_pagat", "fiftieth_card_gamecolony", "rlcard"]  # §7
Shutout = Literal["none", "game_bonus_doubled", "total_doubled", "hand_points_doubled"]  # R9.5
Payoff = Literal["points", "zero_sum", "rlcard_shaped"]  # R8.7, §12.6

# Allowed values of every enumerated parameter by name; the first is the default.
CHOICES: dict[str, tuple[str, ...]] = {
    "scope": get_args(Scope),
    "first_dealer": get_args(FirstDealer),
    "dealer_rotation": get_args(DealerRotation),
    "dead_hand_dealer": get_args(DeadHandDealer),
    "deal_mode": get_args(DealMode),
    "deal_order": get_args(DealOrder),
    "discard_taken_card": get_args(DiscardTakenCard),
    "knock_limit_mode": get_args(KnockLimitMode),
    "oklahoma_ace": get_args(OklahomaAce),
    "knocker_arrangement": get_args(KnockerArrangement),
    "defender_play": get_args(DefenderPlayMode),
    "knock_discard": get_args(KnockDiscard),
    "wall_rule": get_args(WallRule),
    "shutout": get_args(Shutout),
    "payoff": get_args(Payoff),
}
BOOLS = (
    "spade_double",
    "force_gin",
    "undercut_on_tie",
    "boxes_count_toward_target",
    "oklahoma_extra_boxes",
    "hollywood",
    "repeated_discard_dead",
)
OPTIONAL_INTS = ("big_gin_bonus", "max_turns", "max_discard_draws")
# R10.2: a partnership game is played to 125 unless the target is set as well.
PARTNERSHIP_TARGET = 125
_TRUE = {"on", "true", "yes", "1"}
_FALSE = {"off", "false", "no", "0"}


@dataclass(frozen=True, slots=True)
class Rules:
    """Every parameter of §12.1 (plus two OpenSpiel compatibility switches)."""

    profile_name: str = "standard"
    scope: Scope = "match"  # R9.9
    players: int = 2  # §10: 2, 3 (R10.1) or 4 in two partnerships (R10.2)
    first_dealer: FirstDealer = "random"  # R2.2 (seat0 / seat1: that seat deals first)
    dealer_rotation: DealerRotation = "alternate"  # R2.6
    dead_hand_dealer: DeadHandDealer = "same_dealer"  # R2.7
    deal_mode: DealMode = "upcard"  # R2.4, R2.5
    deal_order: DealOrder = "non_dealer_first"  # R2.4: who gets deck positions 0, 2, 4, ...
    discard_taken_card: DiscardTakenCard = "forbidden"  # R4.3
    knock_limit_mode: KnockLimitMode = "fixed"  # R5.5
    knock_limit: int = 10  # R5.5 (0 = straight gin)
    oklahoma_ace: OklahomaAce = "gin_only"  # R5.5
    spade_double: bool = False  # R8.6
    knocker_arrangement: KnockerArrangement = "free"  # R5.4
    force_gin: bool = False  # R5.1
    defender_play: DefenderPlayMode = "auto_optimal"  # R6.6
    # R5.2. A log written before this parameter existed has no such key in its header's rules,
    # which then reads as this default: the face-down discard every log was played with.
    knock_discard: KnockDiscard = "face_down"
    gin_bonus: int = 25  # R8.2
    big_gin_bonus: int | None = None  # R5.9, R8.2 (None = big gin disabled)
    undercut_bonus: int = 25  # R8.3
    undercut_on_tie: bool = True  # R8.3
    wall_rule: WallRule = "dead"  # §7
    max_turns: int | None = None  # R4.5: draws per hand before the hand is dead
    # OpenSpiel's extra ends of a hand (R4.3 `allowed`): the Nth draw from the discard pile, and
    # both players in succession taking the discard and discarding it again, are 0-0 draws.
    max_discard_draws: int | None = None
    repeated_discard_dead: bool = False
    target: int = 100  # R9.2
    game_bonus: int = 0  # R9.3
    box_bonus: int = 0  # R9.4
    boxes_count_toward_target: bool = False  # R9.4
    shutout: Shutout = "none"  # R9.5
    oklahoma_extra_boxes: bool = False  # R9.7
    hollywood: bool = False  # R9.8
    payoff: Payoff = "points"  # R8.7, §12.6

    @staticmethod
    def profile(name: str = "standard", **overrides: Any) -> Rules:
        """The named profile with parameter overrides (values may be strings, as on a CLI)."""
        if name not in PROFILES:
            raise RulesError(unknown_profile_message(name))
        base = Rules(profile_name=name, **PROFILES[name])
        return base.with_overrides(overrides) if overrides else base.validate()

    def with_overrides(self, overrides: Mapping[str, Any]) -> Rules:
        """A copy with parameters replaced by name; values are coerced and then validated."""
        changes: dict[str, Any] = {}
        for key, raw in overrides.items():
            name = key.replace("-", "_")
            if name not in PARAMETERS:
                raise RulesError(unknown_parameter_message(key))
            changes[name] = coerce(name, raw)
        if changes.get("players") == 4 and "target" not in changes:
            changes["target"] = PARTNERSHIP_TARGET  # R10.2: unless the target is given too
        if changes.get("players", 2) > 2 and "deal_order" not in changes:
            # R2.4: seat 0 first (neller-eaai's deal) is a two-player deal; three or four
            # players are dealt the usual way unless deal_order is given too (and refused).
            changes["deal_order"] = "non_dealer_first"
        return dataclasses.replace(self, **changes).validate()

    def validate(self) -> Rules:
        """Check every value and every combination; return ``self`` or raise :class:`RulesError`."""
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise RulesError(f"{name} = {value!r} is not one of: {', '.join(allowed)}")
        if self.players not in (2, 3, 4):
            raise RulesError(
                f"players = {self.players} must be 2, 3 (R10.1) or 4 in partnerships (R10.2)"
            )
        if self.players > 2:
            self._validate_group()
        if not 0 <= self.knock_limit <= 10:
            raise RulesError(f"knock_limit = {self.knock_limit} must be between 0 and 10 (R5.5)")
        for name in ("gin_bonus", "undercut_bonus", "game_bonus", "box_bonus"):
            if getattr(self, name) < 0:
                raise RulesError(f"{name} must not be negative")
        if self.big_gin_bonus is not None and self.big_gin_bonus < 0:
            raise RulesError("big_gin_bonus must be none or a non-negative number")
        if self.target < 1:
            raise RulesError(f"target = {self.target} must be at least 1 (R9.2)")
        for name in ("max_turns", "max_discard_draws"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise RulesError(f"{name} = {value} must be none or at least 1 (R4.5)")
        if self.deal_mode == "eleven_card":
            if self.knock_limit_mode == "oklahoma":
                raise RulesError(
                    "deal_mode = eleven_card has no upcard, so it cannot be played with "
                    "knock_limit_mode = oklahoma (R2.5)"
                )
            if self.spade_double:
                raise RulesError(
                    "spade_double doubles on a spade upcard; deal_mode = eleven_card has no "
                    "upcard (R2.5)"
                )
        if self.deal_order == "seat0_first" and self.deal_mode == "eleven_card":
            raise RulesError(
                "deal_order = seat0_first deals ten cards to each seat; deal_mode = eleven_card "
                "gives the non-dealer eleven (R2.4, R2.5)"
            )
        if self.dead_hand_dealer == "rotate" and self.dealer_rotation != "alternate":
            raise RulesError(
                "dead_hand_dealer = rotate needs dealer_rotation = alternate: a dead hand has no "
                "winner or loser to rotate by (R2.7)"
            )
        if self.wall_rule == "rlcard" and self.max_turns is None:
            raise RulesError(
                "wall_rule = rlcard lets play go on through the discard pile, so it needs a "
                "max_turns cap (R7.5, R4.5)"
            )
        if self.hollywood and self.scope == "single_hand":
            raise RulesError(
                "hollywood scoring needs scope = match (R9.8, R9.9)", needs=(("scope", "match"),)
            )
        return self

    def _validate_group(self) -> None:
        """The combinations that three players (R10.1) or partnerships (R10.2) rule out."""
        rule = "R10.1" if self.players == 3 else "R10.2"
        what = f"players = {self.players}"
        if self.scope == "single_hand":
            raise RulesError(
                f"{what} plays a match of many hands, so it needs scope = match ({rule}, R9.9)",
                needs=(("scope", "match"),),
            )
        if self.hollywood:
            raise RulesError(f"{what} cannot be scored Hollywood style ({rule}, R9.8)")
        if self.first_dealer == "cut_high_chooses":
            raise RulesError(
                f"{what}: first_dealer = cut_high_chooses is a choice between two players; "
                f"use random or cut_low_deals ({rule}, R2.2)"
            )
        if self.payoff != "points":
            raise RulesError(f"{what} is scored in points: payoff must be points ({rule}, R8.7)")
        if self.deal_order != "non_dealer_first":
            raise RulesError(
                f"{what}: the players at a hand change from hand to hand, so deal_order must be "
                f"non_dealer_first ({rule}, R2.4)"
            )
        if self.players == 4 and self.oklahoma_extra_boxes:
            raise RulesError(
                "players = 4: partnerships score rounds, not hands, so oklahoma_extra_boxes "
                "cannot be on (R10.2, R9.7)"
            )

    def to_dict(self) -> dict[str, Any]:
        """Every parameter by name (JSON-ready), profile name included."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; unknown keys are an error."""
        data = dict(data)
        name = data.pop("profile_name", "standard")
        unknown = sorted(set(data) - set(PARAMETERS))
        if unknown:
            raise RulesError(unknown_parameter_message(unknown[0]))
        if not isinstance(name, str):
            raise RulesError(f"profile_name must be a string, not {name!r}")
        if name not in PROFILES:
            raise RulesError(unknown_profile_message(name))
        return dataclasses.replace(
            Rules(profile_name=name), **{k: coerce(k, v) for k, v in data.items()}
        ).validate()


PARAMETERS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(Rules) if f.name != "profile_name"
)
_INT_FIELDS = {f.name for f in dataclasses.fields(Rules) if f.type in ("int", "int | None")}


def coerce(name: str, raw: Any) -> Any:
    """Convert a value given as text (or as its own type) to parameter ``name``'s type."""
    if name in BOOLS:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise RulesError(f"{name} = {raw!r}: expected on or off")
    if name in _INT_FIELDS:
        if raw is None or (isinstance(raw, str) and raw.strip().lower() == "none"):
            if name in OPTIONAL_INTS:
                return None
            raise RulesError(f"{name} = {raw!r}: expected a number")
        if isinstance(raw, bool):
            raise RulesError(f"{name} = {raw!r}: expected a number")
        if isinstance(raw, int):
            return raw
        try:
            return int(str(raw).strip())
        except ValueError:
            extra = " or none" if name in OPTIONAL_INTS else ""
            raise RulesError(f"{name} = {raw!r}: expected a number{extra}") from None
    if name in CHOICES:
        text = str(raw).strip().lower().replace("-", "_")
        if text not in CHOICES[name]:
            raise RulesError(
                f"{name} = {raw!r} is not one of: {', '.join(CHOICES[name])}"
                + did_you_mean(text, CHOICES[name])
            )
        return text
    raise RulesError(unknown_parameter_message(name))


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"; did you mean X?"`` for the known name nearest to ``word``, or ``""`` if none is near."""
    known = list(known)
    key = word.strip().lower().replace("-", "_")
    folded = {k.lower().replace("-", "_"): k for k in known}
    found = difflib.get_close_matches(key, folded, n=1, cutoff=0.6)
    if not found and key:
        # A word cut short ("total" for total_doubled) is too unlike the whole for difflib.
        found = [k for k in folded if key in k][:2]
        found = found if len(found) == 1 else []
    return f"; did you mean {folded[found[0]]}?" if found else ""


def unknown_parameter_message(name: str) -> str:
    """One line naming an unknown rule parameter, the likely one meant, and where to look."""
    hint = did_you_mean(name, PARAMETERS) or " (`ginref rules` lists the parameters)"
    return f"unknown rule parameter {name!r}{hint}"


def unknown_profile_message(name: str) -> str:
    """One line naming an unknown profile and the likely one meant, or the known ones."""
    hint = did_you_mean(name, PROFILES) or f" (known: {', '.join(PROFILES)})"
    return f"unknown profile {name!r}{hint}"


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """Parse ``NAME=VALUE`` strings (as given to ``--set``) into a mapping."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise RulesError(f"expected NAME=VALUE, got {item!r}")
        out[name.strip()] = value.strip()
    return out


_STANDARD: dict[str, Any] = {}
_PAGAT: dict[str, Any] = {
    "first_dealer": "cut_low_deals",
    "dealer_rotation": "loser_deals",
    "gin_bonus": 20,
    "undercut_bonus": 10,
    "game_bonus": 100,
    "box_bonus": 20,
    "shutout": "game_bonus_doubled",
}
PROFILES: dict[str, dict[str, Any]] = {
    "standard": _STANDARD,
    "pagat": _PAGAT,
    "oklahoma": {**_PAGAT, "knock_limit_mode": "oklahoma", "spade_double": True, "target": 150},
    "oklahoma-std": {"knock_limit_mode": "oklahoma", "spade_double": True},
    "openspiel": {
        "scope": "single_hand",
        "first_dealer": "seat1",
        "discard_taken_card": "allowed",
        # OpenSpiel's defender lays off and melds as it chooses (R6.6).
        "defender_play": "declared",
        "undercut_on_tie": False,
        "wall_rule": "fiftieth_card_gamecolony",
        "max_discard_draws": 50,
        "repeated_discard_dead": True,
        "payoff": "zero_sum",
    },
    "rlcard": {
        "scope": "single_hand",
        "deal_mode": "eleven_card",
        "knocker_arrangement": "auto",
        "force_gin": True,
        "wall_rule": "rlcard",
        # RLCard caps a hand at 200 moves, a draw and a discard each: 100 turns.
        "max_turns": 100,
        "payoff": "rlcard_shaped",
    },
    # Neller's EAAI framework (GinRummyGame.java): seat 0 is dealt the first card whoever starts,
    # the knocker discards face up before showing its melds, and the defender declares its own
    # melds before the framework lays off the rest, first fit, in the knocker's meld order.
    "neller-eaai": {
        "deal_order": "seat0_first",
        "knock_discard": "face_up",
        "defender_play": "declared_melds",
    },
}
