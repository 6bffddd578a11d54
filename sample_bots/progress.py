"""What a sample bot says on stderr as it plays: one line per step, worded alike in every language.

The client (:mod:`sample_bots.client`) prints ``NAME: `` and one of these lines when it is
welcomed, waits for a match, starts or ends one, and when the stream ends; the JavaScript, C++,
Go and Java clients print the same words (docs/writing-a-bot.md §9 has the table, and
tests/sample_bots/test_progress_lines.py checks every language against it). An entrant who
runs a bot by hand on a hosted referee reads them; a launched bot's lines go to its output file.

How the stream ended decides the exit status, so that a retry loop knows what to do: 0 when the
referee ended it with OK (no more matches: the competition is over), :data:`EXIT_REFUSED` when
the referee refused the bot (its token unknown or revoked, too many streams, another protocol
version: connecting again cannot help), 1 for anything else (the referee stopped, the network
broke: connect again later).
"""

from __future__ import annotations

from referee.wire import ginrummy_pb2 as pb

EXIT_REFUSED = 3

# The statuses that refuse the bot itself: the same connection again would be refused again.
REFUSALS = frozenset(
    {
        "UNAUTHENTICATED",
        "PERMISSION_DENIED",
        "ALREADY_EXISTS",
        "FAILED_PRECONDITION",
        "INVALID_ARGUMENT",
    }
)

WAITING = "waiting for a match"
NO_MORE_MATCHES = "no more matches: the referee ended the stream (OK)"


def message_lines(message: pb.RefereeMessage) -> tuple[str, ...]:
    """The lines a referee message is worth: a Welcome, a MatchStart or a MatchEnd; none else."""
    kind = message.WhichOneof("kind")
    if kind == "welcome":
        welcome = message.welcome
        return (f"connected to {welcome.referee_version} as {welcome.bot_name}", WAITING)
    if kind == "match_start":
        start = message.match_start
        return (f"match {start.match_id} started: seat {start.seat} against {opponents(start)}",)
    if kind == "match_end":
        end = message.match_end
        return (f"match {end.match_id} ended: {result_text(end.result)}", WAITING)
    return ()


def opponents(start: pb.MatchStart) -> str:
    """The other players' names, by seat (with partnerships, the partner left out)."""
    names = [
        name
        for seat, name in enumerate(start.player_names)
        if seat != start.seat and not (start.players == 4 and seat == start.partner)
    ]
    return ", ".join(names) if names else start.opponent_name


def result_text(result: pb.MatchResult) -> str:
    """Who won, by how much and how, e.g. ``seat 0 won by 131 (target_reached)``."""
    if result.HasField("winner"):
        who = f"seat {result.winner} won by {result.margin}"
    elif result.HasField("winning_team"):
        who = f"team {result.winning_team} won by {result.margin}"
    else:
        who = "no winner"
    how = pb.Termination.Name(result.termination).removeprefix("TERMINATION_").lower()
    if result.termination == pb.TERMINATION_FORFEIT:
        how += f", {result.forfeit.rule}: {result.forfeit.reason}"
    return f"{who} ({how})"


def ending(code: str, details: str) -> tuple[str, int]:
    """The line for the end of the stream with status ``code`` (a name such as ``"OK"``) and
    ``details``, and the exit status it calls for."""
    if code == "OK":
        return NO_MORE_MATCHES, 0
    if code in REFUSALS:
        return f"refused by the referee: {code}: {details}", EXIT_REFUSED
    return f"the referee ended the stream: {code}: {details}", 1
