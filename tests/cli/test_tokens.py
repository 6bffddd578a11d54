"""``ginref tokens``: issue, list, re-issue and revoke remote bots' tokens; only hashes kept."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ginref.cli import main
from tournaments.tokens import TokenCheck, token_hash

FILE = """name = "league"
out = "{out}"
[[bots]]
name = "local"
command = "{{python}} -m sample_bots.random_bot"
[[bots]]
name = "alice"
remote = true
[[bots]]
name = "bob"
remote = true
"""


@pytest.fixture
def file(tmp_path: Path) -> Path:
    path = tmp_path / "league.toml"
    path.write_text(FILE.format(out=tmp_path / "out"))
    return path


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def tokens_of(result: Result) -> dict[str, str]:
    assert result.exit_code == 0, result.output
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


def test_issue_gives_each_remote_bot_a_token_once_and_keeps_only_its_hash(
    file: Path, tmp_path: Path
) -> None:
    issued = tokens_of(run("tokens", "issue", str(file)))
    assert sorted(issued) == ["alice", "bob"]
    assert issued["alice"] != issued["bob"]
    stored = tmp_path / "out" / "tokens.json"
    text = stored.read_text()
    assert issued["alice"] not in text and token_hash(issued["alice"]) in text
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "out").stat().st_mode) == 0o700
    check = TokenCheck(tmp_path / "out", {"alice", "bob"})
    assert check(issued["alice"]) == "alice" and check(issued["bob"]) == "bob"
    assert check("") is None and check(issued["alice"][:-1]) is None
    # Again: nothing new, and a bot that has one is refused by name.
    again = run("tokens", "issue", str(file))
    assert again.exit_code == 0 and again.stdout == ""
    refused = run("tokens", "issue", str(file), "alice")
    assert refused.exit_code == 1 and "already has a token" in refused.output


def test_reissue_and_revoke(file: Path, tmp_path: Path) -> None:
    issued = tokens_of(run("tokens", "issue", str(file)))
    check = TokenCheck(tmp_path / "out", {"alice", "bob"})
    new = tokens_of(run("tokens", "reissue", str(file), "alice"))["alice"]
    assert check(issued["alice"]) is None and check(new) == "alice"
    assert check.take_changed() == {"alice"}
    result = run("tokens", "revoke", str(file), "bob")
    assert result.exit_code == 0, result.output
    assert check(issued["bob"]) is None and check.take_changed() == {"bob"}
    listing = run("tokens", "list", str(file))
    assert listing.exit_code == 0
    lines = {line.split()[0]: line for line in listing.stdout.splitlines()}
    assert "active" in lines["alice"] and "revoked" in lines["bob"]
    assert token_hash(new)[:12] in lines["alice"]
    twice = run("tokens", "revoke", str(file), "bob")
    assert twice.exit_code == 1 and "already revoked" in twice.output
    # A revoked bot gets a token again with issue.
    assert "bob" in tokens_of(run("tokens", "issue", str(file)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["issue", "local"], "'local' is not a remote bot"),
        (["revoke", "carol"], "'carol' is not a remote bot"),
        (["revoke", "alice"], "bot 'alice' has no token"),
    ],
)
def test_mistakes_are_one_line(file: Path, args: list[str], message: str) -> None:
    result = run("tokens", args[0], str(file), *args[1:])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_damaged_tokens_file_is_one_line(file: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "tokens.json").write_text(json.dumps({"version": 9}))
    result = run("tokens", "list", str(file))
    assert result.exit_code == 1 and "not a valid tokens file" in result.output


def test_tournament_refuses_remote_bots(file: Path) -> None:
    result = run("tournament", str(file), "--no-check-bots", "--sandbox", "none")
    assert result.exit_code == 1, result.output
    assert "remote bots connect to a hosted referee" in result.output
    assert "ginref serve" in result.output


def test_a_remote_bot_has_no_command(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        FILE.format(out=tmp_path / "out").replace(
            "remote = true\n", 'remote = true\ncommand = "x"\n', 1
        )
    )
    result = run("tokens", "list", str(path))
    assert result.exit_code == 1
    assert "bad.toml:9: bots[2].command: a remote bot is not started" in result.output
