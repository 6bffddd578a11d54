"""What every sample client says on stderr, and its exit status, as an entrant on a hosted
referee sees them (docs/writing-a-bot.md §9): connected, waiting for a match, each match started
and ended, and how the stream ended: 0 when the competition is over, 3 when the referee refused
the bot (its token revoked while it was connected, or unknown when it connects).

The lines' wording is the Python client's (:mod:`sample_bots.progress`, checked here line by
line); each language's bots then join a real ``ginref serve`` over TLS and must print the same
lines (tests/support/progress_lines.py) and exit with the same statuses.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.version import REFEREE_VERSION
from referee.wire import ginrummy_pb2 as pb
from sample_bots.progress import EXIT_REFUSED, ending, message_lines
from tests.support.certs import Certificates
from tests.support.language_bots import LANGS, built
from tests.support.progress_lines import story, unexpected_lines
from tests.support.serve_helpers import (
    BOUND,
    GREEDY,
    Serve,
    issue,
    remote_bot,
    until,
    write_file,
)

# --- The wording (the Python client's) ---------------------------------------------------------


def test_a_welcome_says_who_is_connected_and_that_the_bot_waits() -> None:
    welcome = pb.Welcome(protocol_version=1, referee_version="ginref 1.2", bot_name="bob")
    assert message_lines(pb.RefereeMessage(welcome=welcome)) == (
        "connected to ginref 1.2 as bob",
        "waiting for a match",
    )


def test_a_match_start_names_the_seat_and_the_opponents() -> None:
    two = pb.MatchStart(match_id="m7", seat=1, player_names=["ann", "bob"], opponent_name="ann")
    assert message_lines(pb.RefereeMessage(match_start=two)) == (
        "match m7 started: seat 1 against ann",
    )
    # Partnerships: the partner (seat 3 for seat 1) is not an opponent.
    four = pb.MatchStart(
        match_id="m8", seat=1, players=4, partner=3, player_names=["a", "b", "c", "d"]
    )
    assert message_lines(pb.RefereeMessage(match_start=four)) == (
        "match m8 started: seat 1 against a, c",
    )
    # A referee that names only the opponent.
    old = pb.MatchStart(match_id="m9", seat=0, opponent_name="ann")
    assert message_lines(pb.RefereeMessage(match_start=old)) == (
        "match m9 started: seat 0 against ann",
    )


@pytest.mark.parametrize(
    ("result", "text"),
    [
        (
            pb.MatchResult(winner=0, margin=131, termination=pb.TERMINATION_TARGET_REACHED),
            "seat 0 won by 131 (target_reached)",
        ),
        (
            pb.MatchResult(winning_team=1, margin=12, termination=pb.TERMINATION_HOLLYWOOD),
            "team 1 won by 12 (hollywood)",
        ),
        (pb.MatchResult(termination=pb.TERMINATION_SINGLE_HAND), "no winner (single_hand)"),
        (
            pb.MatchResult(
                winner=1,
                margin=0,
                termination=pb.TERMINATION_FORFEIT,
                forfeit=pb.Forfeit(seat=0, rule="R11.5", reason="the bot disconnected"),
            ),
            "seat 1 won by 0 (forfeit, R11.5: the bot disconnected)",
        ),
    ],
)
def test_a_match_end_says_who_won_and_how_then_the_bot_waits(
    result: pb.MatchResult, text: str
) -> None:
    end = pb.MatchEnd(match_id="m3", result=result)
    assert message_lines(pb.RefereeMessage(match_end=end)) == (
        f"match m3 ended: {text}",
        "waiting for a match",
    )


def test_other_messages_say_nothing() -> None:
    assert message_lines(pb.RefereeMessage(hand_start=pb.HandStart())) == ()


@pytest.mark.parametrize(
    ("code", "line", "status"),
    [
        ("OK", "no more matches: the referee ended the stream (OK)", 0),
        ("PERMISSION_DENIED", "refused by the referee: PERMISSION_DENIED: why", EXIT_REFUSED),
        ("UNAUTHENTICATED", "refused by the referee: UNAUTHENTICATED: why", EXIT_REFUSED),
        ("ALREADY_EXISTS", "refused by the referee: ALREADY_EXISTS: why", EXIT_REFUSED),
        ("FAILED_PRECONDITION", "refused by the referee: FAILED_PRECONDITION: why", EXIT_REFUSED),
        ("UNAVAILABLE", "the referee ended the stream: UNAVAILABLE: why", 1),
        ("INTERNAL", "the referee ended the stream: INTERNAL: why", 1),
    ],
)
def test_the_end_of_the_stream_says_whether_to_connect_again(
    code: str, line: str, status: int
) -> None:
    assert ending(code, "why") == (line, status)


# --- Every language against a real hosted referee ----------------------------------------------

ALL_LANGS = ["python", *LANGS]
PY_GREEDY = ("greedy-bot", tuple(GREEDY))


def greedy(lang: str) -> tuple[str, tuple[str, ...]]:
    """The name a language's greedy bot gives in its Hello, and its command."""
    if lang == "python":
        return PY_GREEDY
    bots = built(lang)
    return bots.greedy_name, bots.greedy


@pytest.mark.slow
@pytest.mark.parametrize("lang", ALL_LANGS)
def test_a_remote_bot_says_what_happens_and_exits_by_how_the_stream_ended(
    lang: str, certs: Certificates, tmp_path: Path
) -> None:
    name, command = greedy(lang)
    # Play starts once every remote bot is connected (or revoked): not before carol comes.
    file = write_file(tmp_path, certs, ["alice", "bob", "carol"], extra='start = "all"')
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice", list(command))
    bob = remote_bot(serve, tokens["bob"], certs, tmp_path, "bob", list(command))
    bob_out = tmp_path / "bob.out"
    until(lambda: "waiting for a match" in bob_out.read_text(), "bob waits in the lobby")
    # Revoked while connected: bob's stream, idle in the lobby (play waits for carol), ends with
    # PERMISSION_DENIED, which he reports, and he stops with the status of a refusal.
    result = CliRunner().invoke(main, ["tokens", "revoke", str(file), "bob"])
    assert result.exit_code == 0, result.output
    assert bob.wait(BOUND) == EXIT_REFUSED, bob_out.read_text()
    said = bob_out.read_text()
    assert story(said, name) == "CWR", said  # connected, waiting, refused
    assert (
        f"{name}: refused by the referee: PERMISSION_DENIED: the organiser revoked bob's token"
        in said
    )
    # Connecting with the revoked token is refused before any Welcome.
    again = remote_bot(serve, tokens["bob"], certs, tmp_path, "bob-again", list(command))
    assert again.wait(BOUND) == EXIT_REFUSED
    said = (tmp_path / "bob-again.out").read_text()
    assert said.startswith(
        f"{name}: refused by the referee: UNAUTHENTICATED: unknown or revoked token"
    ), said
    assert story(said, name) == "R", said  # one line: no Welcome, no wait
    # Carol comes, the competition is played out and ends: alice stops with 0.
    carol = remote_bot(serve, tokens["carol"], certs, tmp_path, "carol", GREEDY)
    serve.wait()
    assert alice.wait(BOUND) == 0 and carol.wait(BOUND) == 0
    said = (tmp_path / "alice.out").read_text()
    assert unexpected_lines(said) == [], said
    # Connected, waiting; each of her matches (against carol at least; bob's may have been
    # given up without her) started, ended and followed by a wait; then the end, with OK.
    assert re.fullmatch("CW(SEW)+O", story(said, name)), said
    assert said.startswith(f"{name}: connected to {REFEREE_VERSION} as {name}\n"), said
    assert f" against {PY_GREEDY[0]}\n" in said  # carol's name, as her Hello gives it
    assert said.endswith(f"{name}: no more matches: the referee ended the stream (OK)\n")
