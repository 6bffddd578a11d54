"""TLS for a referee that bots reach over a network: the server's certificate and key, and
optionally the CA whose client certificates it requires (mutual TLS).

A hosted referee (``ginref serve``) listens where remote bots can reach it, so it speaks TLS;
plain text is allowed only on a loopback address (:func:`is_loopback`), where nothing leaves the
machine. The files are read once, when the server starts, and each problem is one
:class:`~referee.errors.ConfigError` naming the file.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]

from referee.errors import ConfigError

PEM_CERTIFICATE = b"-----BEGIN CERTIFICATE-----"
PEM_KEY_MARKS = (
    b"-----BEGIN PRIVATE KEY-----",
    b"-----BEGIN RSA PRIVATE KEY-----",
    b"-----BEGIN EC PRIVATE KEY-----",
    b"-----BEGIN ENCRYPTED PRIVATE KEY-----",
)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or name as given to listen on) is this machine only."""
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _read_pem(path: Path, what: str, marks: tuple[bytes, ...]) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the {what} {str(path)!r}: {exc.strerror or exc}") from None
    if not any(mark in data for mark in marks):
        raise ConfigError(f"{str(path)!r} is not a PEM {what}")
    if b"-----BEGIN ENCRYPTED PRIVATE KEY-----" in data:
        raise ConfigError(
            f"the {what} {str(path)!r} is encrypted; give the referee an unencrypted key "
            "(readable by its user only)"
        )
    return data


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """Where the referee's certificate chain and key are, and the client CA for mutual TLS."""

    cert: Path
    key: Path
    client_ca: Path | None = None

    def load(self) -> tuple[bytes, bytes, bytes | None]:
        """The three files' bytes (the CA's None without mutual TLS), checked to be PEM."""
        cert = _read_pem(self.cert, "certificate", (PEM_CERTIFICATE,))
        key = _read_pem(self.key, "private key", PEM_KEY_MARKS)
        ca = None
        if self.client_ca is not None:
            ca = _read_pem(self.client_ca, "client CA certificate", (PEM_CERTIFICATE,))
        return cert, key, ca

    def credentials(self) -> Any:
        """gRPC server credentials: TLS, and client certificates required with a client CA."""
        cert, key, ca = self.load()
        return grpc.ssl_server_credentials(
            [(key, cert)], root_certificates=ca, require_client_auth=ca is not None
        )

    @property
    def mutual(self) -> bool:
        """Whether clients must present a certificate signed by :attr:`client_ca`."""
        return self.client_ca is not None
