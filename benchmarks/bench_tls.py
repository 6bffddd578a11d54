"""Referee speed over TLS: the decision round trip and the referee's CPU with TLS, and with
mutual TLS, against plain text on loopback, side by side in one run.

Everything but the encryption is the same in the three modes: the referee server code
(``RefereeServer`` on 127.0.0.1, with ``tls=None`` or a ``TlsFiles``), the bots (two copies of
the trivial test bot, tests/support/testbot.py, which speaks TLS when ``GINREF_CA_CERT`` is set,
unsandboxed, over TCP), the messages, and the matches: each round plays the same fresh seeds in
every mode, in an order that rotates from round to round so that the machine's noise hits all
alike. The certificates are EC P-256, made with openssl as the tests make them
(tests/support/certs.py).

Per decision, from bench_referee.py's ``referee_run``: the round trip as the referee measures
it (request written -> reply read: the replay log's think_ms; median), the same minus the bots'
own compute, and the referee process's CPU (all its threads) divided by the decisions. Each
figure is the median over the rounds, each ratio the median of the rounds' ratios.

Run: ``.venv/bin/python benchmarks/bench_tls.py [--rounds N] [--matches N]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_referee
import grpc  # type: ignore[import-untyped]

from referee.bots.sandbox import SandboxSettings
from referee.bots.spec import BotSpec
from referee.server import RefereeServer
from referee.settings import RefereeOptions
from referee.tls import TlsFiles
from tests.support.certs import Certificates, make_certificates

MODES = {"plain": "plain text", "tls": "TLS", "mutual": "mutual TLS"}
# Unsandboxed: a sandboxed bot reaches the referee through a Unix socket of its own, which is
# never encrypted; the referee's TCP listener is what TLS is for.
OPTIONS = RefereeOptions(exit_grace=1.0, kill_grace=1.0, sandbox=SandboxSettings(mode="none"))


def mode_setup(
    mode: str, certs: Certificates
) -> tuple[tuple[BotSpec, BotSpec], Callable[[], RefereeServer]]:
    """The two bots and the server of one mode."""
    env: dict[str, str] = {}
    tls = None
    if mode != "plain":
        env["GINREF_CA_CERT"] = str(certs.ca)
        tls = TlsFiles(certs.server_cert, certs.server_key)
    if mode == "mutual":
        env |= {
            "GINREF_CLIENT_CERT": str(certs.client_cert),
            "GINREF_CLIENT_KEY": str(certs.client_key),
        }
        tls = TlsFiles(certs.server_cert, certs.server_key, client_ca=certs.ca)
    bot = BotSpec(bench_referee.BOT.command, "trivial", env=tuple(env.items()))

    def make_server() -> RefereeServer:
        return RefereeServer(tls=tls)

    return (bot, bot), make_server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--matches", type=int, default=10, help="matches per mode and round")
    args = parser.parse_args()
    # grpcio's TLS is the BoringSSL built into it, on both sides here.
    print(f"python {sys.version.split()[0]}, grpcio {grpc.__version__}, {os.cpu_count()} CPUs")
    rounds: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    order = list(MODES)
    with tempfile.TemporaryDirectory(prefix="bench-tls-") as tmp:
        out = Path(tmp)
        certs = make_certificates(out / "certs")
        setups = {mode: mode_setup(mode, certs) for mode in MODES}
        for mode, (bots, make_server) in setups.items():  # warm-up, not counted
            bench_referee.referee_run(
                1, 1, out / f"warm-{mode}", options=OPTIONS, bots=bots, make_server=make_server
            )
        for k in range(args.rounds):
            seed = 1000 + k * args.matches
            for mode in order[k % len(order) :] + order[: k % len(order)]:
                bots, make_server = setups[mode]
                rounds[mode].append(
                    bench_referee.referee_run(
                        args.matches,
                        seed,
                        out / f"{mode}{k}",
                        options=OPTIONS,
                        bots=bots,
                        make_server=make_server,
                    )
                )
            print(
                f"  round {k + 1}: "
                + "; ".join(
                    f"{MODES[mode]} {r[-1]['rt_us']:.0f} µs round trip, "
                    f"{r[-1]['cpu_us']:.0f} µs CPU"
                    for mode, r in rounds.items()
                ),
                flush=True,
            )
    plain = rounds["plain"]
    decisions = sum(int(r["decisions"]) for r in plain)
    print()
    print(
        f"{args.rounds} rounds of {args.matches} matches per mode (standard profile, the trivial "
        f"bot against itself, the same seeds in every mode): {decisions} decisions per mode"
    )
    print()
    header = f"{'per decision (median of rounds)':<36}{'plain':>8}{'TLS':>8}{'ratio':>7}"
    print(header + f"{'mutual':>8}{'ratio':>7}")
    for label, key in (
        ("round trip, median (µs)", "rt_us"),
        ("round trip minus bot compute (µs)", "rt_net_us"),
        ("referee CPU (µs)", "cpu_us"),
        ("referee wall time (µs)", "wall_us"),
    ):
        row = f"{label:<36}{bench_referee.median_of(plain, key):>8.0f}"
        for mode in ("tls", "mutual"):
            row += f"{bench_referee.median_of(rounds[mode], key):>8.0f}"
            row += f"{bench_referee.median_ratio(rounds[mode], plain, key, key):>7.2f}"
        print(row)
    print("(ratio: the median over the rounds of TLS / plain text, measured in the same round)")


if __name__ == "__main__":
    main()
