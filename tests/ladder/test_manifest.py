"""A submission's ``ginref-bot.toml``: what it says, and each mistake named by its key."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tournaments.ladder.errors import SubmissionError
from tournaments.ladder.manifest import parse_manifest, read_manifest


def refusal(text: str) -> str:
    with pytest.raises(SubmissionError) as caught:
        parse_manifest(text)
    assert caught.value.step == "manifest"
    return caught.value.message


def test_a_full_manifest() -> None:
    manifest = parse_manifest(
        'language = "python"\nbuild = "sh build.sh"\nrun = "{python} bot.py --fast"\n'
        'transport = "tcp"\n'
    )
    assert manifest.language == "python"
    assert manifest.build == "sh build.sh"
    assert manifest.run == (sys.executable, "bot.py", "--fast")
    assert manifest.transport == "tcp"


def test_defaults_and_java_speaks_tcp() -> None:
    assert parse_manifest('language = "go"\nrun = "./bot"').transport == "unix"
    assert parse_manifest('language = "go"\nrun = "./bot"').build is None
    # Debian's grpc-java cannot dial a Unix socket.
    assert parse_manifest('language = "java"\nrun = "sh run.sh"').transport == "tcp"


def test_the_spec_sees_only_its_directory(tmp_path: Path) -> None:
    manifest = parse_manifest('language = "cpp"\nrun = "out/bot /etc"')
    spec = manifest.spec(tmp_path, "alice@1")
    assert spec.command == ("out/bot", "/etc")
    assert (spec.cwd, spec.dirs, spec.name) == (str(tmp_path), (".",), "alice@1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('language = "rust"\nrun = "x"', "language 'rust': expected one of python, javascript"),
        ('run = "x"', "no language"),
        ('language = "python"\nrun = "x"\ncompile = "y"', "unknown key 'compile'"),
        ('language = "python"', "no run command"),
        ('language = "python"\nrun = ""', "run must be a non-empty string"),
        ('language = "python"\nrun = 3', "run must be a non-empty string"),
        ('language = "python"\nrun = "x \'unclosed"', "run: cannot parse"),
        ('language = "python"\nrun = "x"\ntransport = "udp"', "transport 'udp'"),
        ('language = "python"\nrun = "x"\nbuild = "make \'"', "build: cannot parse"),
        ('language = "python"\nrun = x', "not valid TOML"),
    ],
)
def test_mistakes_name_their_key(text: str, message: str) -> None:
    got = refusal(text)
    assert got.startswith("ginref-bot.toml: ")
    assert message in got
    assert "\n" not in got


def test_read_from_the_directory(tmp_path: Path) -> None:
    (tmp_path / "ginref-bot.toml").write_text('language = "go"\nrun = "./bot"\n')
    assert read_manifest(tmp_path).run == ("./bot",)


def test_a_manifest_one_folder_down_says_so(tmp_path: Path) -> None:
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "ginref-bot.toml").write_text('language = "go"\nrun = "./bot"\n')
    with pytest.raises(SubmissionError) as caught:
        read_manifest(tmp_path)
    assert caught.value.message == (
        "no ginref-bot.toml at the archive's root (found mybot/ginref-bot.toml: archive the "
        "folder's contents, not the folder)"
    )


def test_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "ginref-bot.toml").write_bytes(b"language = '\xff'")
    with pytest.raises(SubmissionError, match="not UTF-8"):
        read_manifest(tmp_path)
