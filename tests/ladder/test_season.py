"""A season's file: the template ``ginref ladder new`` writes loads; each mistake in the
``[ladder]`` table is one line naming the file, its line and the key; the deadline closes
submissions by itself."""

from __future__ import annotations

import asyncio
import datetime as _dt
from pathlib import Path

import pytest

from referee.errors import GinRefError
from tournaments.ladder.errors import LadderError, SubmissionError
from tournaments.ladder.season import TEMPLATE, load_season
from tournaments.ladder.service import LadderService, failure_line
from tournaments.ladder.store import open_season


def season(tmp_path: Path, ladder: str = "") -> Path:
    """The template with ``ladder`` (a ``key = value`` line) in its [ladder] table, in place of
    the template's own line for that key if it has one."""
    directory = tmp_path / "s"
    directory.mkdir(exist_ok=True)
    lines = TEMPLATE.format(name="s").splitlines()
    key = ladder.split("=")[0].strip()
    lines = [line for line in lines if not (key and line.startswith(f"{key} ="))]
    at = lines.index("[ladder]") + 1
    text = "\n".join([*lines[:at], *([ladder.rstrip()] if ladder else []), *lines[at:]])
    (directory / "season.toml").write_text(text + "\n")
    return directory


def test_the_template_loads_with_its_defaults(tmp_path: Path) -> None:
    loaded = load_season(season(tmp_path))
    assert loaded.house == ["greedy", "random"] and loaded.validation == "greedy"
    assert loaded.ladder.quota == 5 and loaded.ladder.duplicate
    assert loaded.ladder.final_top == 0 and loaded.ladder.final_matches == 4
    assert loaded.ladder.rating == {"model": "plackett-luce", "k": 3}


@pytest.mark.parametrize(
    ("ladder", "says"),
    [
        ("quotas = 3\n", "ladder.quotas: unknown key (did you mean 'quota'?)"),
        ("quota = 0\n", "ladder.quota: must be at least 1, got 0"),
        ('deadline = "soon"\n', "ladder.deadline: not a date and time: 'soon'"),
        ("max_per_bot = true\n", "ladder.max_per_bot: expected a whole number"),
    ],
)
def test_a_mistake_is_one_line_with_its_line_and_key(
    tmp_path: Path, ladder: str, says: str
) -> None:
    directory = season(tmp_path, ladder)
    with pytest.raises(GinRefError) as caught:
        load_season(directory)
    message = str(caught.value)
    assert "\n" not in message and says in message
    line = (directory / "season.toml").read_text().splitlines().index(ladder.rstrip()) + 1
    assert message.startswith(f"{directory / 'season.toml'}:{line}: ")


def test_mistakes_in_the_sub_tables_and_the_validation_bot(tmp_path: Path) -> None:
    text = TEMPLATE.format(name="s").replace('validation = "greedy"', 'validation = "nobody"')
    (tmp_path / "season.toml").write_text(text)
    with pytest.raises(GinRefError, match=r"ladder\.validation: 'nobody' is not a house bot"):
        load_season(tmp_path)
    text = TEMPLATE.format(name="s").replace("k = 3 ", "k = -1 ")
    (tmp_path / "season.toml").write_text(text)
    with pytest.raises(GinRefError, match=r"ladder\.rating\.k: must be more than 0, got -1"):
        load_season(tmp_path)
    with pytest.raises(LadderError, match=r"no season in .*: start one with 'ginref ladder new"):
        load_season(tmp_path / "elsewhere")


def test_the_deadline_closes_submissions(tmp_path: Path) -> None:
    past = (_dt.datetime.now(_dt.UTC) - _dt.timedelta(minutes=1)).isoformat(timespec="seconds")
    directory = season(tmp_path, f'deadline = "{past}"\n')
    loaded = load_season(directory)
    assert loaded.ladder.deadline is not None and loaded.ladder.deadline.tzinfo is not None
    said: list[str] = []

    async def run() -> None:
        service = LadderService(loaded, say=said.append)
        service._freeze_at_deadline()
        service.store.close()
        service.journal.close()

    asyncio.run(run())
    store = open_season(directory)
    try:
        assert store.meta("frozen") == loaded.ladder.deadline.isoformat()
        with pytest.raises(LadderError, match="frozen"):
            store.add_entrant("alice")
            store.queue_version("alice", 10, "0" * 64, 5, "2000-01-01T00:00:00+00:00")
    finally:
        store.close()
    assert said == ["Ladder: the deadline has passed: submissions are closed"]


def test_a_failure_shows_on_the_console_without_escape_sequences() -> None:
    exc = SubmissionError("manifest", "unknown key '\x1b[2J\x1b]0;owned\x07' in ginref-bot.toml")
    line = failure_line("eve@1", exc)
    assert line.startswith("Ladder: eve@1 failed at manifest: unknown key")
    assert line.isprintable() and "\\x1b[2J" in line


def test_the_second_match_of_a_pair_waits_for_the_first(tmp_path: Path) -> None:
    from tournaments.schedule import Job, MatchSpec

    first = MatchSpec("a.b.000001", 1, 1, ("greedy", "random"), 1, 7, 99, ("greedy", "random"))
    second = MatchSpec("a.b.000002", 2, 1, ("greedy", "random"), 2, 7, 99, ("random", "greedy"))
    other = MatchSpec("a.b.000003", 3, 1, ("greedy", "random"), 3, 8, 5, ("greedy", "random"))

    async def run() -> None:
        service = LadderService(load_season(season(tmp_path)))
        try:
            playing = asyncio.get_running_loop().create_future()
            service._running = {playing: Job("1", (first,), False)}  # type: ignore[dict-item]
            service._waiting = [Job("2", (second,), False)]
            service._new_jobs = lambda: [Job("3", (other,), False)]  # type: ignore[method-assign]
            assert service._next_job() == Job("3", (other,), False)  # a new deal, not the twin
            assert service._waiting == [Job("2", (second,), False)]
            service._running = {}
            assert service._next_job() == Job("2", (second,), False)  # the first is over
        finally:
            service.store.close()
            service.journal.close()

    asyncio.run(run())
