"""The gRPC wire protocol between the referee and bots (package ``ginrummy.v1``).

The contract is ``proto/ginrummy/v1/ginrummy.proto``; every message and field is documented
there. The modules ``ginrummy_pb2`` (messages), ``ginrummy_pb2.pyi`` (their type stubs) and
``ginrummy_pb2_grpc`` (service stub and servicer) are generated from it by ``scripts/gen_proto``
and must not be edited by hand; ``tests/referee/test_proto_generated.py`` fails when they are stale.

Nothing is imported here, so that ``import referee.wire`` stays cheap and free of grpc.
"""

from __future__ import annotations

# The protocol version of package ginrummy.v1 (Hello.protocol_version, Welcome.protocol_version).
PROTOCOL_VERSION = 1
