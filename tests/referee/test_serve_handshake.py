"""What the public port's front reads of a client's TLS handshake from its bytes alone: plain
text, a client that gives up (its alert, its close), a refusal by the referee, and a handshake
that finished (``tests/tournaments/test_serve_console.py`` sees the lines on real runs)."""

from __future__ import annotations

from referee.front import _Handshake


def record(kind: int, size: int) -> bytes:
    """A TLS record: header and a body of ``size`` bytes."""
    return bytes([kind, 3, 3]) + size.to_bytes(2, "big") + bytes(size)


CLIENT_HELLO = record(0x16, 512)
FINISHED = record(0x17, 53)  # TLS 1.3: the client's Finished, sealed
SEALED_ALERT = record(0x17, 19)
HTTP2 = record(0x17, 80)


def read(*chunks: bytes) -> _Handshake:
    watch = _Handshake()
    for chunk in chunks:
        watch.feed(chunk)
    return watch


def test_plain_text_is_told_by_its_first_bytes() -> None:
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    assert read(preface).failure(False, False) == "the client spoke plaintext"
    assert read(b"P", b"RI").failure(False, False) == "the client spoke plaintext"
    assert read(b"GET / HTTP/1.1\r\n").failure(True, False) == "the client spoke plaintext"
    assert read(b"\x00\x01\xff").failure(True, False) == "the client did not speak TLS"


def test_a_client_that_gives_up_is_told_by_its_alert_or_its_close() -> None:
    gave_up = (
        "the client closed the connection during the handshake (does it trust the referee's "
        "certificate?)"
    )
    # Its sealed alert, then the referee closes first: the alert says who gave up.
    assert read(CLIENT_HELLO, SEALED_ALERT).failure(False, False) == gave_up
    assert read(CLIENT_HELLO, record(0x15, 2)).failure(False, False) == gave_up  # in the clear
    assert read(CLIENT_HELLO).failure(True, False) == gave_up
    # Records split across reads are read all the same.
    both = CLIENT_HELLO + SEALED_ALERT
    assert read(both[:3], both[3:600], both[600:]).failure(False, False) == gave_up


def test_a_referee_that_refuses_says_so_and_what_to_check_with_client_certificates() -> None:
    assert read(CLIENT_HELLO).failure(False, False) == "the referee refused the handshake"
    assert "client CA" in (read(CLIENT_HELLO).failure(False, True) or "")


def test_a_finished_handshake_or_no_bytes_at_all_is_no_failure() -> None:
    done = read(CLIENT_HELLO, FINISHED + HTTP2)
    assert done.over and done.failure(True, False) is None
    assert read().failure(True, False) is None
    # A Finished alone is not the end yet: the first HTTP/2 bytes follow it.
    assert not read(CLIENT_HELLO, FINISHED).over
