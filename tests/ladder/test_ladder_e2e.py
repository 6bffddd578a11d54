"""A season from start to final through the command line, with real submissions.

Entrants submit the sample greedy bot in Python, JavaScript and Go, a bot that does not
compile, and one that crashes in its validation match; the service (a real ``ginref ladder run``
process, its bots in the sandbox) builds and validates each one, plays the pool, and rates every
match. A second version of an entrant takes over from the first in matchmaking while the first's
history stays. Uploads that break a rule (a wrong token, over the cap, a second one while one is
in the pipeline, over the day's quota, after the freeze) are refused in one line with nothing
queued. The final is an ordinary tournament of the frozen versions.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ginref.cli import main
from tests.ladder.archives import manifest, sample_archive, zeros_zip, zip_bytes
from tests.support.referee_helpers import ROOT
from tournaments.journal.store import open_journal
from tournaments.ladder.service import PLAY
from tournaments.ladder.store import open_season

pytestmark = pytest.mark.slow  # builds, a service process, sandboxed matches

WAIT = 600.0  # seconds: far beyond what these builds and matches need on a busy machine

BROKEN_CPP = b"int main() { return undeclared; }\n"
CRASHER = b"import sys\nsys.exit(3)\n"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def ok(*args: str) -> str:
    result = cli(*args)
    assert result.exit_code == 0, result.output
    return result.output


def refused(*args: str) -> str:
    """A refusal: exit 1, one line, no traceback."""
    result = cli(*args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.output.count("\n") == 1
    return result.output


def wait_for(what: str, check: Callable[[], bool], service: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert service.poll() is None, f"the service ended while waiting for {what}"
        assert time.monotonic() < deadline, f"{what}: not within {WAIT:g} s"
        time.sleep(0.2)


def statuses(directory: Path) -> dict[str, tuple[str, str | None]]:
    store = open_season(directory, read_only=True)
    try:
        return {v.name: (v.status, v.step) for v in store.versions()}
    finally:
        store.close()


def records(directory: Path) -> list[tuple[str, ...]]:
    if not (directory / PLAY / "journal.sqlite").exists():
        return []
    journal = open_journal(directory / PLAY, create=False, read_only=True)
    try:
        return [r.seats for r in journal.records()]
    finally:
        journal.close()


@pytest.fixture
def season(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "spring"
    ok("ladder", "new", str(directory))
    text = (directory / "season.toml").read_text()
    # Matches to 50: shorter, as many decisions of each kind.
    text = text.replace('profile = "standard"', 'profile = "standard"\n[rules.set]\ntarget = 50')
    text = text.replace("quota = 5", "quota = 3").replace(
        "[ladder.rating]", "[ladder.archive]\nupload_bytes = 3000000\n\n[ladder.rating]"
    )
    (directory / "season.toml").write_text(text)
    yield directory


def token(directory: Path, name: str) -> str:
    output = ok("ladder", "entrant", str(directory), name)
    return output.splitlines()[-1]


def submit(directory: Path, name: str, key: str, data: bytes, tmp: Path) -> Result:
    path = tmp / f"{name}-{len(data)}.archive"
    path.write_bytes(data)
    return cli("ladder", "submit", str(directory), str(path), "--entrant", name, "--token", key)


def test_a_season_from_submissions_to_final(season: Path, tmp_path: Path) -> None:
    tokens = {name: token(season, name) for name in ("alice", "bob", "carol", "dave", "eve")}
    archives = {"alice": "python", "bob": "javascript", "carol": "go"}
    for name, language in archives.items():
        result = submit(season, name, tokens[name], sample_archive(language), tmp_path)
        assert result.exit_code == 0 and f"Queued as {name}@1" in result.output, result.output
    broken = {
        "ginref-bot.toml": manifest("cpp", "./bot", "g++ -o bot bot.cc"),
        "bot.cc": BROKEN_CPP,
    }
    assert submit(season, "dave", tokens["dave"], zip_bytes(broken), tmp_path).exit_code == 0
    # A zip bomb: 1 GiB of zeros in about a megabyte, under the upload cap.
    bomb = zeros_zip("ginref-bot.toml", 1 << 30)
    assert len(bomb) < 3_000_000
    assert submit(season, "eve", tokens["eve"], bomb, tmp_path).exit_code == 0

    # Refusals, each one line, none queued.
    path = tmp_path / "x.zip"
    path.write_bytes(sample_archive("python"))
    assert "no entrant 'alice' with that token" in refused(
        "ladder", "submit", str(season), str(path), "--entrant", "alice", "--token", tokens["bob"]
    )
    assert "no entrant 'zed' with that token" in refused(
        "ladder", "submit", str(season), str(path), "--entrant", "zed", "--token", tokens["bob"]
    )
    assert "still being built or validated" in refused(
        "ladder", "submit", str(season), str(path), "--entrant", "dave", "--token", tokens["dave"]
    )
    path.write_bytes(os.urandom(3_000_001))
    assert "over the season's cap" in refused(
        "ladder", "submit", str(season), str(path), "--entrant", "alice", "--token", tokens["alice"]
    )
    assert set(statuses(season)) == {"alice@1", "bob@1", "carol@1", "dave@1", "eve@1"}

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ginref", "ladder", "run", str(season), "-j", "2"]
    service = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_for("the first five versions", lambda: all(
            s[0] in ("accepted", "failed") for s in statuses(season).values()
        ), service)  # fmt: skip
        # The sample greedy bots in Python, JavaScript and Go: their whole pipeline, in the service.
        for name in archives:
            log = (season / "submissions" / name / "1.log").read_text().splitlines()
            assert log[0].startswith("unpack: ") and log[-1] == "accepted", log
        assert statuses(season) == {
            "alice@1": ("accepted", None),
            "bob@1": ("accepted", None),
            "carol@1": ("accepted", None),
            "dave@1": ("failed", "build"),
            "eve@1": ("failed", "unpack"),
        }
        assert not (season / "versions" / "eve" / "1" / "bot").exists()
        crasher = {"ginref-bot.toml": manifest("python", "{python} bot.py"), "bot.py": CRASHER}
        assert submit(season, "dave", tokens["dave"], zip_bytes(crasher), tmp_path).exit_code == 0
        wait_for("dave@2", lambda: statuses(season)["dave@2"][0] == "failed", service)
        assert statuses(season)["dave@2"] == ("failed", "validate")
        log = (season / "submissions" / "dave" / "2.log").read_text()
        assert "validate" in log
        # dave's third of the day is queued; the fourth is over the quota.
        assert submit(season, "dave", tokens["dave"], zip_bytes(crasher), tmp_path).exit_code == 0
        wait_for("dave@3", lambda: statuses(season)["dave@3"][0] == "failed", service)
        assert (
            "today's 3 submissions"
            in submit(season, "dave", tokens["dave"], zip_bytes(crasher), tmp_path).output
        )

        # Every accepted version plays.
        def played(bot: str, n: int) -> Callable[[], bool]:
            return lambda: sum(bot in seats for seats in records(season)) >= n

        for bot in ("alice@1", "bob@1", "carol@1"):
            wait_for(f"{bot}'s matches", played(bot, 2), service)
        # alice's second version takes over from the first.
        result = submit(season, "alice", tokens["alice"], sample_archive("python"), tmp_path)
        assert "Queued as alice@2" in result.output, result.output
        wait_for("alice@2", lambda: statuses(season)["alice@2"][0] == "accepted", service)
        before = len(records(season))
        wait_for("alice@2's matches", played("alice@2", 4), service)
    finally:
        service.send_signal(signal.SIGINT)
        out, _ = service.communicate(timeout=120)
    text = out.decode()
    assert service.returncode == 0, text
    assert "Traceback" not in text and "alice@2 accepted" in text

    # After alice@2's first match, alice@1 is no longer chosen (a pair already scheduled ends).
    journal = open_journal(season / PLAY, create=False, read_only=True)
    try:
        schedule = journal.schedule()
    finally:
        journal.close()
    first = min(s.position for s in schedule if "alice@2" in s.seats)
    later = [s for s in schedule if s.position > first + 4]
    assert later and not any("alice@1" in s.seats for s in later)
    assert len(records(season)) > before

    # The leaderboard: the house bots and each entrant's newest accepted version.
    rows = json.loads(ok("ladder", "export", str(season), "--format", "json"))
    assert {r["bot"] for r in rows} == {"greedy", "random", "alice@2", "bob@1", "carol@1"}
    assert all(r["low"] <= r["rating"] <= r["high"] for r in rows)
    store = open_season(season, read_only=True)
    try:
        assert store.history("alice@1")  # the old version's history stays
    finally:
        store.close()
    assert "alice@2" in ok("ladder", "status", str(season))

    # The close: frozen, no more submissions; the final is a tournament of the versions.
    assert "closed" in ok("ladder", "freeze", str(season))
    path.write_bytes(sample_archive("python"))
    assert "frozen" in refused(
        "ladder", "submit", str(season), str(path), "--entrant", "bob", "--token", tokens["bob"]
    )
    final = ok("ladder", "final", str(season), "-n", "2", "-q")
    assert "alice@2" in final and "carol@1" in final
    assert (season / "final" / "journal.sqlite").exists()
    assert (season / "final" / "standings.json").exists()
