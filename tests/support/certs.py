"""Certificates made by the tests with the ``openssl`` command, as docs/hosting.md tells an
organiser to: a CA, the referee's certificate for 127.0.0.1 and localhost signed by it, a
client certificate for mutual TLS, and a second, unrelated CA with its own server and client
certificates (what a bot or a referee must not trust)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _ca(directory: Path, name: str) -> None:
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.pem",
        "-days",
        "2",
        "-subj",
        f"/CN={name}",
        cwd=directory,
    )


def _signed(directory: Path, ca: str, name: str, extensions: str) -> None:
    (directory / f"{name}.ext").write_text(extensions)
    _openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.csr",
        "-subj",
        f"/CN={name}",
        cwd=directory,
    )
    _openssl(
        "x509",
        "-req",
        "-in",
        f"{name}.csr",
        "-CA",
        f"{ca}.pem",
        "-CAkey",
        f"{ca}.key",
        "-CAcreateserial",
        "-out",
        f"{name}.pem",
        "-days",
        "2",
        "-extfile",
        f"{name}.ext",
        cwd=directory,
    )


SERVER_EXT = "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
CLIENT_EXT = "extendedKeyUsage=clientAuth\n"


@dataclass(frozen=True)
class Certificates:
    """Paths of the PEM files; ``other_*`` come from a CA nothing trusts."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path
    other_server_cert: Path
    other_server_key: Path
    other_client_cert: Path
    other_client_key: Path


def make_certificates(directory: Path) -> Certificates:
    """Make every file in ``directory`` (about a second of openssl)."""
    directory.mkdir(parents=True, exist_ok=True)
    _ca(directory, "ca")
    _signed(directory, "ca", "server", SERVER_EXT)
    _signed(directory, "ca", "client", CLIENT_EXT)
    _ca(directory, "other-ca")
    _signed(directory, "other-ca", "other-server", SERVER_EXT)
    _signed(directory, "other-ca", "other-client", CLIENT_EXT)
    d = directory
    return Certificates(
        d / "ca.pem",
        d / "server.pem",
        d / "server.key",
        d / "client.pem",
        d / "client.key",
        d / "other-ca.pem",
        d / "other-server.pem",
        d / "other-server.key",
        d / "other-client.pem",
        d / "other-client.key",
    )
