"""The lines every language's sample client prints on stderr as it plays (docs/writing-a-bot.md
§9, sample_bots/progress.py), as patterns: what the tests of the sample bots allow a bot to
print in a clean match, and the order they come in."""

from __future__ import annotations

import re

# Each line is "NAME: " and one of these.
CONNECTED = r"connected to .* as .*"
WAITING = r"waiting for a match"
STARTED = r"match \S+ started: seat \d against .*"
ENDED = (
    r"match \S+ ended: (seat \d won by \d+|team \d won by \d+|no winner) "
    r"\((target_reached|single_hand|hollywood|unspecified|forfeit, \S+: .*)\)"
)
NO_MORE_MATCHES = r"no more matches: the referee ended the stream \(OK\)"
REFUSED = r"refused by the referee: [A-Z_]+: .*"
ENDED_STREAM = r"the referee ended the stream: [A-Z_]+: .*"

# What a bot that plays its matches and is let go prints: nothing else (no fault, no error).
CLEAN = (CONNECTED, WAITING, STARTED, ENDED, NO_MORE_MATCHES)


def unexpected_lines(text: str, patterns: tuple[str, ...] = CLEAN) -> list[str]:
    """The lines of a bot's output that are none of ``patterns`` (after the bot's name)."""
    return [
        line
        for line in text.splitlines()
        if not any(re.fullmatch(rf"[^:]+: {pattern}", line) for pattern in patterns)
    ]


def story(text: str, name: str) -> str:
    """The kinds of the lines ``name`` printed, one letter each, in order: C connected, W waiting,
    S match started, E match ended, O no more matches, R refused, X the stream ended otherwise;
    ? any other line."""
    kinds = {
        "C": CONNECTED,
        "W": WAITING,
        "S": STARTED,
        "E": ENDED,
        "O": NO_MORE_MATCHES,
        "R": REFUSED,
        "X": ENDED_STREAM,
    }
    letters = []
    for line in text.splitlines():
        rest = line.removeprefix(f"{name}: ")
        found = [k for k, p in kinds.items() if rest != line and re.fullmatch(p, rest)]
        letters.append(found[0] if found else "?")
    return "".join(letters)
