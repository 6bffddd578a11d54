"""Deal sets: the file (its mistakes named by line), ``ginref deals make`` and ``check``, and the
schedules that play a set's seeds in order whatever the master seed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tournaments.file.config import TournamentConfig, load_file, parse_text
from tournaments.file.deals import DealSetError, load_deals, make_seeds, parse_deals
from tournaments.file.toml_lines import TournamentFileError
from tournaments.schedule import build_schedule, deal_key

BOTS = "".join(f'\n[[bots]]\nname = "{b}"\ncommand = "x"\n' for b in ("a", "b", "c"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("12\n\n# a comment\nseven\n", "deals.txt:4: 'seven' is not a match seed"),
        ("12\n-3\n", "deals.txt:2: '-3' is not a match seed"),
        ("1\n9223372036854775808\n", "deals.txt:2: '9223372036854775808' is not a match seed"),
        ("5\n6\n5\n", "deals.txt:3: seed 5 is already on line 1"),
        ("# nothing but comments\n\n", "deals.txt: no deals"),
    ],
)
def test_a_mistake_in_a_deal_set_is_one_line_with_its_file_and_line(
    text: str, message: str
) -> None:
    with pytest.raises(DealSetError) as caught:
        parse_deals(text, "deals.txt")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_a_set_is_read_in_order_and_started_again_when_it_runs_out(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    path.write_text("# made by hand\n30\n 10 \n20\n")
    deals = load_deals(path)
    assert deals.seeds == (30, 10, 20)
    assert [deals.seed(d) for d in range(1, 6)] == [30, 10, 20, 30, 10]
    path.write_bytes(b"\xff\xfe1\n")
    with pytest.raises(DealSetError, match="not a deal set"):
        load_deals(path)
    with pytest.raises(DealSetError, match="cannot read the deal set"):
        load_deals(tmp_path / "missing.txt")


def test_made_seeds_are_distinct_and_reproducible_from_a_seed() -> None:
    one, again, other = make_seeds(500, 7), make_seeds(500, 7), make_seeds(500, 8)
    assert one == again and one != other
    assert len(set(one)) == 500 and all(0 <= s < 2**63 for s in one)
    assert make_seeds(3) != make_seeds(3)  # random without a seed


def config(tmp_path: Path, extra: str, seed: int) -> TournamentConfig:
    path = tmp_path / "t.toml"
    path.write_text(f"seed = {seed}\nmatches = 4\nduplicate = true\n{extra}\n{BOTS}")
    return load_file(path)


def test_a_tournament_plays_the_sets_seeds_whatever_its_master_seed(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("111\n222\n333\n")
    with_set = [config(tmp_path, 'deals = "d.txt"', seed) for seed in (1, 2)]
    schedules = [build_schedule(c, deal_key(c.seed)) for c in with_set]
    assert [s.seed for s in schedules[0]] == [s.seed for s in schedules[1]]
    # Deals 1 and 2 of every pairing (games 1-2 and 3-4 with duplicate deals): 111, then 222.
    assert {(s.deal, s.seed) for s in schedules[0]} == {(1, 111), (2, 222)}
    without = [config(tmp_path, "", seed) for seed in (1, 2)]
    plain = [build_schedule(c, deal_key(c.seed)) for c in without]
    assert [s.seed for s in plain[0]] != [s.seed for s in plain[1]]
    # The set is part of the tournament's identity (its content), and no bot may see it.
    identity = with_set[0].identity()
    assert identity["deals"]["deals"] == 3 and len(identity["deals"]["sha256"]) == 64
    assert (tmp_path / "d.txt").resolve() in with_set[0].protected
    (tmp_path / "d.txt").write_text("111\n222\n334\n")
    changed = config(tmp_path, 'deals = "d.txt"', 1)
    assert changed.identity() != identity


def test_a_tournament_files_deal_set_mistakes_name_their_line(tmp_path: Path) -> None:
    with pytest.raises(TournamentFileError) as caught:
        parse_text('deals = "nowhere.txt"\n' + BOTS, "t.toml", tmp_path)
    assert str(caught.value).startswith("t.toml:1: deals: 'nowhere.txt' is not a file")
    (tmp_path / "d.txt").write_text("1\n2\nthree\n")
    with pytest.raises(DealSetError) as inner:
        parse_text('deals = "d.txt"\n' + BOTS, "t.toml", tmp_path)
    assert str(inner.value).startswith(f"{tmp_path / 'd.txt'}:3: 'three' is not a match seed")


def test_ginref_deals_make_and_check(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "set.txt"
    made = runner.invoke(main, ["deals", "make", "20", "--out", str(out), "--seed", "4"])
    assert made.exit_code == 0, made.output
    assert load_deals(out).seeds == tuple(make_seeds(20, 4))
    again = runner.invoke(main, ["deals", "make", "20", "--out", str(out)])
    assert again.exit_code == 1 and "exists: choose another --out" in again.output
    assert load_deals(out).seeds == tuple(make_seeds(20, 4))  # not overwritten
    checked = runner.invoke(main, ["deals", "check", str(out)])
    assert checked.exit_code == 0 and "20 deals" in checked.output
    out.write_text("1\nx\n")
    bad = runner.invoke(main, ["deals", "check", str(out)])
    assert bad.exit_code == 1
    assert bad.output.strip() == (
        f"Error: {out}:2: 'x' is not a match seed (a whole number from 0 to 2^63-1, one per line)"
    )


def test_ginref_deals_make_creates_the_directory_of_its_out(tmp_path: Path) -> None:
    """Like every other --out: deals/200.txt in a folder that does not exist yet."""
    out = tmp_path / "deals" / "sets" / "20.txt"
    made = CliRunner().invoke(main, ["deals", "make", "20", "--out", str(out), "--seed", "4"])
    assert made.exit_code == 0, made.output
    assert load_deals(out).seeds == tuple(make_seeds(20, 4))
    (tmp_path / "file").write_text("")
    blocked = CliRunner().invoke(
        main, ["deals", "make", "2", "--out", str(tmp_path / "file" / "x")]
    )
    assert blocked.exit_code == 1
    assert blocked.output.startswith(f"Error: cannot create the folder {tmp_path / 'file'}: ")
