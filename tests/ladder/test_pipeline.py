"""A submission from archive to acceptance: the sample greedy bot of each of the five languages
is unpacked, built in the sandbox and validated; a submission that fails at a step says so in
its log, after the lines of every step before it, and leaves no bot directory behind."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.bots.confine import sandbox_problem
from tests.ladder.archives import manifest, sample_archive, zip_bytes
from tests.ladder.test_validate import CRASHER
from tests.support.sandbox_helpers import SANDBOX
from tournaments.file.config import TournamentConfig, load_default
from tournaments.ladder.archive import ArchiveCaps
from tournaments.ladder.build import BuildLimits
from tournaments.ladder.errors import SubmissionError
from tournaments.ladder.pipeline import process, process_version
from tournaments.ladder.season import LadderSettings, Season

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sandbox_problem(SANDBOX) is not None, reason="no sandbox here"),
]
# The sample greedy bots of the other three languages (Python, JavaScript, Go) are accepted by
# the service itself, end to end, in tests/ladder/test_ladder_e2e.py: built once in the suite.
LANGUAGES = ("cpp", "java")
# Far more than the sample bots need (a JVM connects in a few seconds on a busy machine).
CONFIG = dataclasses.replace(load_default(), sandbox=SANDBOX, connect_timeout=60.0, retries=0)
LIMITS = BuildLimits(time_s=300, disk_bytes=256 << 20)


def fails(data: bytes, tmp_path: Path, config: TournamentConfig = CONFIG) -> tuple[str, str]:
    """Process ``data``, expect a failure: its step and the log's lines."""
    log = tmp_path / "submissions" / "e" / "1.log"
    with pytest.raises(SubmissionError) as caught:
        process(data, tmp_path / "v", config, ArchiveCaps(), LIMITS, log)
    assert not (tmp_path / "v" / "bot").exists()
    return caught.value.step, log.read_text()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sample_greedy_bot_is_accepted(language: str, tmp_path: Path) -> None:
    directory = tmp_path / "versions" / "alice" / "1"
    log = tmp_path / "submissions" / "alice" / "1.log"
    season = Season(tmp_path, CONFIG, LadderSettings(build={"time": 300, "disk": 256 << 20}))
    began = time.perf_counter()
    accepted = process_version(sample_archive(language), directory, season, log)
    seconds = time.perf_counter() - began
    assert accepted.language == language
    assert accepted.cwd == directory / "bot"
    assert accepted.transport == ("tcp" if language == "java" else "unix")
    spec = accepted.spec("alice@1")
    assert (spec.cwd, spec.dirs, spec.name) == (str(directory / "bot"), (".",), "alice@1")
    lines = log.read_text().splitlines()
    assert lines[0].startswith("unpack: ")
    assert lines[1].startswith(f"manifest: {language}, run ")
    assert lines[-3:-1] == [
        "validate: one match against greedy",
        f"validate: no fault ({accepted.summary})",
    ]
    assert lines[-1] == "accepted"
    built = [line for line in lines if line.startswith("build: exit 0 after ")]
    assert len(built) == 1
    print(f"{language}: {built[0] if built else 'no build'}; the pipeline {seconds:.1f} s")
    # The validation match's log and the bots' output stay beside the bot.
    assert len(list((directory / "validation").glob("*.jsonl"))) == 1


def test_a_second_run_starts_over(tmp_path: Path) -> None:
    log = tmp_path / "1.log"
    data = sample_archive("python")
    process(data, tmp_path / "v", CONFIG, ArchiveCaps(), LIMITS, log)
    accepted = process(data, tmp_path / "v", CONFIG, ArchiveCaps(), LIMITS, log)
    assert log.read_text().count("accepted") == 1
    assert accepted.command == (sys.executable, "greedy_bot.py")
    assert accepted.run == "{python} greedy_bot.py"
    assert len(list((tmp_path / "v" / "validation").glob("*.jsonl"))) == 1


def test_a_hostile_archive_fails_at_unpack(tmp_path: Path) -> None:
    step, log = fails(zip_bytes({"ginref-bot.toml": b"", "../escape": b"x"}), tmp_path)
    assert step == "unpack"
    assert log.splitlines() == [
        "unpack: '../escape': a '..' in the path",
        "failed at the unpack step",
    ]
    assert not (tmp_path / "escape").exists()


def test_a_bad_manifest_fails_after_the_unpack_line(tmp_path: Path) -> None:
    step, log = fails(zip_bytes({"ginref-bot.toml": b'language = "python"\n'}), tmp_path)
    assert step == "manifest"
    data = zip_bytes({"ginref-bot.toml": b'language = "python"\n'})
    assert log.splitlines() == [
        f"unpack: 1 file from an archive of {len(data)} bytes",
        'manifest: ginref-bot.toml: no run command (run = "..."), the command that starts the bot',
        "failed at the manifest step",
    ]


def test_a_compile_error_fails_at_the_build_with_its_tail(tmp_path: Path) -> None:
    members = {
        "ginref-bot.toml": manifest("cpp", "./bot", "cc bot.c -o bot"),
        "bot.c": b"int main(void) { return missing; }\n",
    }
    step, log = fails(zip_bytes(members), tmp_path)
    assert step == "build"
    lines = log.splitlines()
    assert lines[:3] == [lines[0], "manifest: cpp, run './bot'", "build: cc bot.c -o bot"]
    assert "undeclared" in log
    assert lines[-2].startswith("build: exit 1 after ")
    assert lines[-1] == "failed at the build step"


def test_a_bot_that_crashes_fails_at_validation(tmp_path: Path) -> None:
    members = {
        "ginref-bot.toml": manifest("python", "{python} bot.py", "echo nothing to build"),
        "bot.py": CRASHER.encode(),
    }
    step, log = fails(zip_bytes(members), tmp_path)
    assert step == "validate"
    lines = log.splitlines()
    assert [line.split(":")[0] for line in lines[:4]] == [
        "unpack",
        "manifest",
        "build",
        "nothing to build",
    ]
    assert lines[5] == "validate: one match against greedy"
    assert lines[6].startswith("validate: crashed: ")
    assert "no idea what to do" in log
    assert lines[-1] == "failed at the validate step"


def test_what_a_killed_build_left_is_cleared(tmp_path: Path) -> None:
    # The service killed mid-build: the build's tmpfs still mounted, its source beside it.
    home = tmp_path / "v" / "bot"
    home.mkdir(parents=True)
    (tmp_path / "v" / ".bot.source").mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "left", str(home)], check=True)
    (home / "half-built").write_text("x")
    accepted = process(
        sample_archive("python"), tmp_path / "v", CONFIG, ArchiveCaps(), LIMITS, tmp_path / "log"
    )
    assert not os.path.ismount(home)
    assert sorted(p.name for p in home.iterdir()) == ["ginref-bot.toml", "greedy_bot.py"]
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == ["bot", "validation"]
    assert accepted.cwd == home
