"""The ``ginref`` command (:mod:`ginref.cli`)."""

import os

# grpc's C-core reads GRPC_VERBOSITY once, when grpc is first imported, and below ERROR it logs
# each failed TLS handshake of 'ginref serve' in a line that names no peer; the public port's
# front names the peer and the reason instead (referee/front.py). The environment is as it was
# once grpc is loaded: nothing started from here sees the variable.
if "GRPC_VERBOSITY" not in os.environ:
    os.environ["GRPC_VERBOSITY"] = "ERROR"
    import grpc  # type: ignore[import-untyped]  # noqa: F401

    del os.environ["GRPC_VERBOSITY"]
