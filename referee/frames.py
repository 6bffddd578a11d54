"""The protobuf wire format, written by hand for the one message sent at every decision.

A DecisionRequest is mostly parts that do not change from one decision to the next: the rules
(the same for the whole match), the hand's events so far (they only grow), the last hand's
result (the same for a whole hand) and the wire form of each legal action. Serialized once and
kept as bytes, they are joined with the few fields that do change into the message grpc writes,
so that no protobuf message is copied, filled or serialized again at each decision.

The protobuf encoding makes that exact: a message's bytes are its fields' encodings one after
the other, each a tag (field number and wire type) then a varint or a length and the bytes of a
string or a nested message. Fields are written in field-number order and a proto3 field at its
default value not at all, as protobuf's own serializer does; tests/referee/test_frames.py checks
every request of whole matches against the message :func:`referee.requests.decision_request_pb`
builds the ordinary way.
"""

from __future__ import annotations

from collections.abc import Iterable

from referee.engine.cards import Card, card_str

_VARINT_WIRE = 0
_LENGTH_WIRE = 2


def varint(value: int) -> bytes:
    """``value`` as a base-128 varint; a negative int32 or int64 takes ten bytes, as in
    protobuf (two's complement on 64 bits)."""
    if 0 <= value < 0x80:
        return _SMALL[value]
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL = tuple(bytes((n,)) for n in range(0x80))


def tag(field: int, wire_type: int) -> bytes:
    """The key of a field: its number and wire type."""
    return varint(field << 3 | wire_type)


def int_tag(field: int) -> bytes:
    """The key of an integer, enum or bool field."""
    return tag(field, _VARINT_WIRE)


def length_tag(field: int) -> bytes:
    """The key of a string, bytes, nested message or packed repeated field."""
    return tag(field, _LENGTH_WIRE)


def int_field(key: bytes, value: int) -> bytes:
    """An integer (or enum, or bool) field; nothing at its default, 0."""
    return key + varint(value) if value else b""


def length_field(key: bytes, payload: bytes) -> bytes:
    """A length-delimited field (string, nested message, packed list); written even when
    empty, as a present nested message is."""
    return key + varint(len(payload)) + payload


def card_fields(field: int) -> tuple[bytes, ...]:
    """Every card as one entry of the string field ``field``, by card number."""
    key = length_tag(field)
    return tuple(length_field(key, card_str(c).encode()) for c in range(52))


def cards_field(table: tuple[bytes, ...], cards: Iterable[Card]) -> bytes:
    """A repeated card field: one entry per card, from :func:`card_fields`'s table."""
    return b"".join([table[c] for c in cards])
