"""The wire contract (proto/ginrummy/v1/ginrummy.proto) and its generated Python code.

- The committed modules in referee/wire are exactly what scripts/gen_proto produces now.
- Generation is deterministic.
- Every service, rpc, message, oneof, field, enum and enum value has a leading comment.
- A few conventions a bot author relies on: units in milliseconds, *_UNSPECIFIED zero values,
  no field named after a Python keyword, the action and event kinds of the engine's model.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import keyword
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType

import pytest
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool

from referee.wire import PROTOCOL_VERSION
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_proto"
PROTO = ROOT / "proto" / "ginrummy" / "v1" / "ginrummy.proto"
WIRE = ROOT / "referee" / "wire"


@functools.cache
def _gen_proto() -> ModuleType:
    """scripts/gen_proto loaded as a module (it has no .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("gen_proto", str(SCRIPT))
    spec = importlib.util.spec_from_loader("gen_proto", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@functools.cache
def _fresh() -> dict[str, bytes]:
    """The generated modules as the script produces them now (protoc run once per session)."""
    files: dict[str, bytes] = _gen_proto().generated_files()
    return files


def _version_line(data: bytes) -> str:
    match = re.search(rb"^# Protobuf Python Version: (\S+)$", data, re.MULTILINE)
    return match.group(1).decode() if match else "?"


# --- generated code is current ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ginrummy_pb2.py", "ginrummy_pb2.pyi", "ginrummy_pb2_grpc.py"])
def test_committed_generated_code_is_current(name: str) -> None:
    fresh = _fresh()
    assert set(fresh) == set(_gen_proto().GENERATED)
    path = WIRE / name
    assert path.is_file(), f"referee/wire/{name} is missing: run scripts/gen_proto"
    committed = path.read_bytes()
    if committed != fresh[name]:
        hint = ""
        old, new = (
            _version_line((WIRE / "ginrummy_pb2.py").read_bytes()),
            _version_line(fresh["ginrummy_pb2.py"]),
        )
        if old != new:
            hint = (
                f" (the committed code was made with protobuf gencode {old}, the installed "
                f"grpcio-tools makes {new}: install the project's grpcio-tools version, or "
                "regenerate and commit if the upgrade is intended)"
            )
        pytest.fail(
            f"referee/wire/{name} is stale: it differs from what scripts/gen_proto generates "
            f"from proto/ginrummy/v1/ginrummy.proto. Run scripts/gen_proto and commit the "
            f"result{hint}."
        )


def test_generation_is_deterministic() -> None:
    assert _gen_proto().generated_files() == _fresh()


def test_generation_writes_the_three_modules(tmp_path: Path) -> None:
    paths = _gen_proto().generate(tmp_path)
    assert sorted(p.name for p in paths) == sorted(_gen_proto().GENERATED)
    assert {p.name: p.read_bytes() for p in paths} == _fresh()


def test_check_mode_reports_current_code() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr


def test_check_mode_names_stale_files(tmp_path: Path) -> None:
    _gen_proto().generate(tmp_path)
    (tmp_path / "ginrummy_pb2.pyi").write_text("# edited by hand\n")
    assert _gen_proto().stale_files(tmp_path) == ["ginrummy_pb2.pyi"]


def test_grpc_module_imports_messages_from_referee_wire() -> None:
    grpc_source = _fresh()["ginrummy_pb2_grpc.py"].decode()
    assert "from referee.wire import ginrummy_pb2 as" in grpc_source
    assert "from ginrummy.v1 import" not in grpc_source
    assert pb.DecisionRequest.__module__ == "referee.wire.ginrummy_pb2"


# --- the contract's shape -----------------------------------------------------------------------


def test_package_and_file_name_are_versioned() -> None:
    assert pb.DESCRIPTOR.package == "ginrummy.v1"
    assert pb.DESCRIPTOR.name == "ginrummy/v1/ginrummy.proto"
    assert PROTOCOL_VERSION == 1
    # Server reflection looks files and symbols up in the default pool, under these names.
    pool = descriptor_pool.Default()
    assert pool.FindFileByName("ginrummy/v1/ginrummy.proto") is pb.DESCRIPTOR
    assert pool.FindServiceByName("ginrummy.v1.Referee").file is pb.DESCRIPTOR


def test_referee_service_has_one_bidirectional_play_rpc() -> None:
    service = pb.DESCRIPTOR.services_by_name["Referee"]
    assert service.full_name == "ginrummy.v1.Referee"
    assert [m.name for m in service.methods] == ["Play"]
    play = service.methods_by_name["Play"]
    assert play.input_type is pb.BotMessage.DESCRIPTOR
    assert play.output_type is pb.RefereeMessage.DESCRIPTOR
    assert play.client_streaming and play.server_streaming
    assert hasattr(pb_grpc, "RefereeStub") and hasattr(pb_grpc, "RefereeServicer")
    assert hasattr(pb_grpc, "add_RefereeServicer_to_server")


def test_action_kinds_mirror_the_engine() -> None:
    kinds = [f.name for f in pb.Action.DESCRIPTOR.oneofs_by_name["kind"].fields]
    assert kinds == [
        "draw_stock",
        "draw_discard",
        "pass_offer",
        "declare_dead",
        "discard",
        "knock",
        "big_gin",
        "defender_play",
        "choose_deal",
    ]


def test_event_kinds_mirror_the_engine() -> None:
    kinds = [f.name for f in pb.GameEvent.DESCRIPTOR.oneofs_by_name["kind"].fields]
    assert kinds == [
        "take_upcard",
        "pass_offer",
        "draw_stock",
        "draw_discard",
        "discard",
        "knock",
        "declare_dead",
        "showdown",
        "choose_deal",
    ]


def _all_messages() -> list[_descriptor.Descriptor]:
    out: list[_descriptor.Descriptor] = []
    todo = list(pb.DESCRIPTOR.message_types_by_name.values())
    while todo:
        msg = todo.pop()
        out.append(msg)
        todo.extend(msg.nested_types)
    return out


def test_enum_zero_values_are_unspecified() -> None:
    for enum in pb.DESCRIPTOR.enum_types_by_name.values():
        prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper()
        zero = enum.values_by_number[0].name
        assert zero == f"{prefix}_UNSPECIFIED", enum.name
        for value in enum.values:
            assert value.name.startswith(prefix + "_"), value.name


def test_no_field_is_named_after_a_python_keyword() -> None:
    # A field named `pass` would be reachable only through getattr() in Python.
    for msg in _all_messages():
        for field in msg.fields:
            assert not keyword.iskeyword(field.name), f"{msg.full_name}.{field.name}"


def test_times_are_int64_milliseconds() -> None:
    proto = _parse_proto()
    for msg in _all_messages():
        for field in msg.fields:
            name = field.name
            timed = any(word in name for word in ("time", "deadline", "bank", "_ms"))
            if not timed or field.type == _descriptor.FieldDescriptor.TYPE_MESSAGE:
                continue
            key = f"{msg.name}.{name}"
            assert name.endswith("_ms"), f"{key}: a duration field must end in _ms"
            assert field.type == _descriptor.FieldDescriptor.TYPE_INT64, key
            assert "millisecond" in proto.comments[("field", key)], f"{key}: say the unit"


# --- every declaration is commented -------------------------------------------------------------

_DECLARATION = re.compile(
    r"""^(?:
        (?P<block>message|enum|service|oneof)\s+(?P<block_name>\w+)\s*\{(?P<empty>\s*\})?
      | rpc\s+(?P<rpc>\w+)\s*\(
      | (?:optional\s+|repeated\s+)?(?:map<[\w\s,.]+>|[\w.]+)\s+(?P<field>\w+)\s*=\s*\d+\s*;
      | (?P<value>[A-Z][A-Z0-9_]*)\s*=\s*-?\d+\s*;
    )""",
    re.VERBOSE,
)
_OTHER = re.compile(r"^(?:\}|syntax\s*=.*;|package\s+[\w.]+;|option\s+.*;|import\s+.*;)$")


class _Parsed:
    """Declarations found in the .proto text, each with the comment lines just above it."""

    def __init__(self) -> None:
        self.comments: dict[tuple[str, str], str] = {}
        self.uncommented: list[str] = []
        self.unrecognized: list[str] = []


@functools.cache
def _parse_proto() -> _Parsed:
    parsed = _Parsed()
    stack: list[tuple[str, str]] = []  # (kind, name) of the enclosing blocks
    comment: list[str] = []
    for number, raw in enumerate(PROTO.read_text().splitlines(), start=1):
        line = raw.strip()
        if line.startswith("//"):
            comment.append(line[2:].strip())
            continue
        above, comment = comment, []
        if not line:
            continue
        match = _DECLARATION.match(line)
        if match is None:
            if _OTHER.match(line) is None:
                parsed.unrecognized.append(f"line {number}: {line}")
            if line == "}":
                stack.pop()
            continue
        if match["block"]:
            kind, name = match["block"], match["block_name"]
            if kind in ("message", "enum"):
                outer = [n for k, n in stack if k == "message"]
                name = ".".join([*outer, name])
            elif kind == "oneof":
                name = f"{stack[-1][1]}.{name}"
            if not match["empty"]:
                stack.append((kind, name))
            key = (kind, name)
        elif match["rpc"]:
            key = ("rpc", f"{stack[-1][1]}.{match['rpc']}")
        elif match["field"]:
            message = next(n for k, n in reversed(stack) if k == "message")
            key = ("field", f"{message}.{match['field']}")
        else:
            key = ("value", f"{stack[-1][1]}.{match['value']}")
        parsed.comments[key] = " ".join(above)
        if not above:
            parsed.uncommented.append(f"line {number}: {line}")
    assert not stack, f"unbalanced braces in {PROTO}"
    return parsed


def _declared_in_descriptor() -> set[tuple[str, str]]:
    expected: set[tuple[str, str]] = set()
    prefix = pb.DESCRIPTOR.package + "."
    for msg in _all_messages():
        if msg.GetOptions().map_entry:
            continue  # synthesised by protoc for a map<,> field
        name = msg.full_name.removeprefix(prefix)
        expected.add(("message", name))
        expected.update(("field", f"{name}.{f.name}") for f in msg.fields)
        # Oneofs named "_x" are protoc's synthetic ones for proto3 `optional` fields.
        expected.update(("oneof", f"{name}.{o.name}") for o in msg.oneofs if o.name[0] != "_")
    for enum in pb.DESCRIPTOR.enum_types_by_name.values():
        expected.add(("enum", enum.name))
        expected.update(("value", f"{enum.name}.{v.name}") for v in enum.values)
    for service in pb.DESCRIPTOR.services_by_name.values():
        expected.add(("service", service.name))
        expected.update(("rpc", f"{service.name}.{m.name}") for m in service.methods)
    return expected


def test_proto_text_parser_sees_every_declaration() -> None:
    parsed = _parse_proto()
    assert parsed.unrecognized == []
    assert set(parsed.comments) == _declared_in_descriptor()


def test_every_declaration_has_a_leading_comment() -> None:
    uncommented = _parse_proto().uncommented
    assert uncommented == [], "add a // comment on the line(s) just above:\n" + "\n".join(
        uncommented
    )


# --- messages round-trip ------------------------------------------------------------------------


def _decision_request() -> pb.DecisionRequest:
    """Seat 1 after drawing KS, able to knock (docs/rules.md example E1)."""
    obs = pb.Observation(
        seat=1,
        phase=pb.PHASE_DISCARD,
        to_act=1,
        hand=["3S", "4S", "5S", "7H", "7D", "7C", "9C", "TC", "JC", "TD", "KS"],
        discard_pile=["8H", "2D"],
        stock_size=20,
        knock_limit=10,
        upcard="8H",
        opponent_known_cards=["QH"],
        scores=[pb.SeatScore(points=31, hands_won=2), pb.SeatScore(points=0)],
        dealer=0,
        hand_number=3,
        events=[
            pb.GameEvent(seat=1, pass_offer=pb.PassEvent()),
            pb.GameEvent(seat=0, take_upcard=pb.TakeUpcardEvent(card="QH")),
            pb.GameEvent(seat=0, discard=pb.DiscardEvent(card="2D")),
            pb.GameEvent(seat=1, draw_stock=pb.DrawStockEvent(card="KS")),
        ],
        rules=pb.Rules(profile="standard", params={"knock_limit": "10", "gin_bonus": "25"}),
        last_hand_result=pb.HandResult(
            hand_number=2,
            outcome=pb.HAND_OUTCOME_DEAD,
            dead_reason=pb.DEAD_REASON_STOCK_EXHAUSTED,
        ),
    )
    return pb.DecisionRequest(
        request_id=42,
        observation=obs,
        legal_actions=[
            pb.Action(discard=pb.Discard(card="KS")),
            pb.Action(knock=pb.Knock(discard="KS")),
        ],
        time_left_ms=5_500,
        move_time_ms=1_000,
        bank_ms=4_500,
    )


def test_decision_request_round_trips_through_the_referee_envelope() -> None:
    sent = pb.RefereeMessage(decision_request=_decision_request())
    received = pb.RefereeMessage.FromString(sent.SerializeToString())
    assert received == sent
    assert received.WhichOneof("kind") == "decision_request"
    request = received.decision_request
    assert request.observation.rules.params["knock_limit"] == "10"
    assert [e.WhichOneof("kind") for e in request.observation.events] == [
        "pass_offer",
        "take_upcard",
        "discard",
        "draw_stock",
    ]
    assert request.observation.last_hand_result.HasField("winner") is False
    assert request.observation.barred_card == ""


def test_a_bot_may_answer_by_echoing_a_legal_action() -> None:
    request = pb.DecisionRequest.FromString(_decision_request().SerializeToString())
    knock = request.legal_actions[1]
    assert not knock.knock.HasField("arrangement")  # absent: the referee arranges (R5.4)
    reply = pb.BotMessage(action_reply=pb.ActionReply(request_id=request.request_id, action=knock))
    back = pb.BotMessage.FromString(reply.SerializeToString())
    assert back.action_reply.request_id == 42
    assert back.action_reply.action in _decision_request().legal_actions


def test_knock_with_an_arrangement_round_trips() -> None:
    arrangement = pb.Arrangement(
        melds=[
            pb.Meld(cards=["3S", "4S", "5S"]),
            pb.Meld(cards=["7H", "7D", "7C"]),
            pb.Meld(cards=["9C", "TC", "JC"]),
        ],
        deadwood=["TD"],
    )
    action = pb.Action(knock=pb.Knock(discard="KS", arrangement=arrangement))
    back = pb.Action.FromString(action.SerializeToString())
    assert back.knock.HasField("arrangement")
    assert [list(m.cards) for m in back.knock.arrangement.melds][2] == ["9C", "TC", "JC"]


def test_optional_winner_distinguishes_seat_zero_from_none() -> None:
    won = pb.MatchResult(winner=0, final_scores=[104, 37], margin=67)
    none = pb.MatchResult(termination=pb.TERMINATION_SINGLE_HAND)
    assert pb.MatchResult.FromString(won.SerializeToString()).HasField("winner")
    assert not pb.MatchResult.FromString(none.SerializeToString()).HasField("winner")


# --- the generated service code works over a real channel ---------------------------------------


class _EchoReferee(pb_grpc.RefereeServicer):
    """Answers Hello with Welcome, then echoes each ActionReply's action as a knock event."""

    async def Play(
        self, request_iterator: AsyncIterator[pb.BotMessage], context: object
    ) -> AsyncIterator[pb.RefereeMessage]:
        async for message in request_iterator:
            if message.WhichOneof("kind") == "hello":
                yield pb.RefereeMessage(
                    welcome=pb.Welcome(protocol_version=1, bot_name=message.hello.bot_name)
                )
            else:
                action = message.action_reply.action
                yield pb.RefereeMessage(
                    event=pb.GameEvent(seat=0, knock=pb.KnockEvent(kind=pb.KNOCK_KIND_GIN))
                    if action.WhichOneof("kind") == "knock"
                    else pb.GameEvent(seat=0, pass_offer=pb.PassEvent())
                )


def test_stub_and_servicer_talk_over_grpc_aio() -> None:
    import asyncio

    import grpc
    from grpc_reflection.v1alpha import reflection
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
        ProtoReflectionDescriptorDatabase,
    )

    def reflected_file(address: str) -> str:
        with grpc.insecure_channel(address) as channel:
            database = ProtoReflectionDescriptorDatabase(channel)
            return str(database.FindFileContainingSymbol("ginrummy.v1.Referee").name)

    async def scenario() -> tuple[pb.RefereeMessage, pb.RefereeMessage, str]:
        server = grpc.aio.server()
        pb_grpc.add_RefereeServicer_to_server(_EchoReferee(), server)
        reflection.enable_server_reflection(
            [pb.DESCRIPTOR.services_by_name["Referee"].full_name, reflection.SERVICE_NAME], server
        )
        address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
        await server.start()
        try:
            # The reflection client is synchronous: run it off the server's event loop.
            reflected = await asyncio.to_thread(reflected_file, address)
            async with grpc.aio.insecure_channel(address) as channel:
                call = pb_grpc.RefereeStub(channel).Play()
                await call.write(pb.BotMessage(hello=pb.Hello(token="t", bot_name="b")))
                first = await call.read()
                knock = pb.Action(knock=pb.Knock(discard="KS"))
                reply = pb.ActionReply(request_id=1, action=knock)
                await call.write(pb.BotMessage(action_reply=reply))
                second = await call.read()
                await call.done_writing()
                assert await call.read() == grpc.aio.EOF
                return first, second, reflected
        finally:
            await server.stop(None)

    first, second, reflected = asyncio.run(asyncio.wait_for(scenario(), timeout=20))
    assert reflected == "ginrummy/v1/ginrummy.proto"
    assert first.welcome.bot_name == "b"
    assert second.event.knock.kind == pb.KNOCK_KIND_GIN
