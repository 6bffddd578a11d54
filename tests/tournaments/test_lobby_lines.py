"""The words ``ginref serve`` prints of its lobby: a stream that comes or goes, the lobby at a
glance, and what play waits for (``tests/tournaments/test_serve_lobby.py`` reads them off real
runs)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tournaments.executors.lobby_lines import format_lobby, format_streams, format_waiting

NOW = datetime(2026, 12, 3, 13, 0, tzinfo=UTC)


def test_a_stream_that_comes_names_where_from_and_the_bots_streams() -> None:
    assert format_streams("alice", 1, "203.0.113.7") == (
        "Lobby: alice connected from 203.0.113.7 (1 stream)"
    )
    assert format_streams("alice", 3, "::1") == "Lobby: alice connected from ::1 (3 streams)"


def test_a_stream_that_goes_says_what_is_left() -> None:
    assert format_streams("bob", 1, None) == "Lobby: bob lost a stream (1 stream left)"
    assert format_streams("bob", 0, None) == "Lobby: bob lost a stream (0 streams: absent)"


def test_the_lobby_at_a_glance_names_who_is_there_and_who_is_not() -> None:
    counts = {"alice": 2, "bob": 0, "carol": 1, "dave": 0}
    assert format_lobby(counts, {"dave"}) == (
        "Lobby: alice (2 streams), carol (1 stream) connected; missing: bob, dave (token revoked)"
    )
    assert format_lobby({"alice": 1}, set()) == "Lobby: alice (1 stream) connected; none missing"
    assert format_lobby({"alice": 0, "bob": 0}, set()) == (
        "Lobby: no remote bot connected; missing: alice, bob"
    )


def test_play_waits_for_a_moment_or_for_the_missing_bots() -> None:
    assert format_waiting(None, NOW, ["bob", "carol"]) == (
        "Play starts when every remote bot is connected; waiting for bob, carol."
    )
    soon = NOW + timedelta(minutes=12, seconds=30)
    assert format_waiting(soon, NOW, []) == "Play starts at 13:12:30 (in 12:30); waiting."
    tomorrow = NOW + timedelta(days=1, hours=1)
    assert format_waiting(tomorrow, NOW, []) == (
        "Play starts at 2026-12-04 14:00 (in 25:00:00); waiting."
    )
