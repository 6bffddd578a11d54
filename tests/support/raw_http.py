"""Bytes on a socket of their own, for the tests of the guarded web servers (the live page, the
ladder's web app) that send what no HTTP client would."""

from __future__ import annotations

import socket


def exchange(address: tuple[str, int], data: bytes, timeout: float) -> bytes:
    """Send ``data`` on a connection of its own; everything the server answers."""
    with socket.create_connection(address, timeout=timeout) as sock:
        sock.sendall(data)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out
