"""Two attacks that once succeeded: reading the seed in the match id (and dealing the match
oneself), and making a user namespace to hold every capability inside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.referee_helpers import of_type
from tests.support.sandbox_helpers import assert_attempted, assert_played_out, attempts, duel

pytestmark = pytest.mark.slow  # sandboxed matches of real bot processes


def test_the_match_id_does_not_give_away_the_deal(tmp_path: Path) -> None:
    """The attacker looks for a seed in MatchStart.match_id and deals the first hand itself
    (the algorithm is documented). Whatever it names as the opponent's hand must not be it."""
    match = duel(tmp_path, "seed")
    (line,) = attempts(match.text, "seed")
    deal = of_type(match.outcome.log_path, "deal")[0]
    deck, dealer = deal["deck"], deal["dealer"]
    theirs = deck[0:20:2] if 1 - match.seat != dealer else deck[1:20:2]
    named = line.split("opponent holds ")[1].split(";")[0].split() if "holds" in line else []
    assert set(named) != set(theirs), line
    assert "-s11-" not in match.outcome.match_id
    assert_played_out(match)


def test_no_user_namespace_can_be_made(tmp_path: Path) -> None:
    """A user namespace gives its creator every capability inside it: new mount and network
    namespaces, filesystems to mount, the kernel code behind them to attack."""
    match = duel(tmp_path, "userns")
    assert_attempted(match.text, "userns", ["early"])
    assert_played_out(match)
