"""``ginref match --deals``: one match plays the file's first deal, ``-n N`` match k deal k; the
log says where the decks came from and ``ginref verify --deals`` checks them."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.cards import card_str
from referee.engine.deal import hand_deck
from referee.fairness import deck_line
from tests.support.referee_helpers import TESTBOT

pytestmark = pytest.mark.slow  # the command line playing real matches

BOT = shlex.join([sys.executable, str(TESTBOT)])
FIRST, SECOND = hand_deck(500, 0), hand_deck(501, 0)
SET = f"deal dealer 1\n{deck_line(FIRST)}\ndeal dealer 0\n{deck_line(SECOND)}\n"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def headers_and_first_deals(folder: Path) -> list[tuple[dict[str, object], dict[str, object]]]:
    out = []
    for log in sorted(folder.rglob("*.jsonl")):
        records = [json.loads(line) for line in log.read_text().splitlines()]
        out.append((records[0], next(r for r in records if r["type"] == "deal")))
    return out


def test_one_match_plays_the_files_first_deal_and_verifies_against_it(tmp_path: Path) -> None:
    deals = tmp_path / "deals" / "eaai.deals"
    deals.parent.mkdir()
    deals.write_text(SET)
    out = tmp_path / "logs"
    code, text = run("match", BOT, BOT + " first", "--deals", str(deals), "--out", str(out))
    assert code == 0, text
    ((header, deal),) = headers_and_first_deals(out)
    source = header["deck_source"]
    assert isinstance(source, dict) and (source["file"], source["deal"]) == ("eaai.deals", 1)
    assert deal["dealer"] == 1 and deal["deck"] == [card_str(c) for c in FIRST]
    code, text = run("verify", str(out), "--deals", str(deals))
    assert code == 0 and "decks from deal 1 of eaai.deals" in text, text
    code, text = run("match", BOT, BOT, "--deals", str(deals), "--seed", "3", "--out", str(out))
    assert code == 2 and "--seed and --deals both say how to deal" in text


def test_a_bad_deal_file_is_one_line_and_no_match(tmp_path: Path) -> None:
    deals = tmp_path / "bad.deals"
    deals.write_text(f"deal dealer 1\n{deck_line(FIRST[:51])}\n")
    code, text = run("match", BOT, BOT, "--deals", str(deals), "--out", str(tmp_path / "o"))
    assert code == 1 and "Traceback" not in text
    assert text.strip() == (
        f"Error: {deals}:2: 51 cards: a deck is the 52 cards once each (missing "
        f"{card_str(FIRST[51])})"
    )
    assert not (tmp_path / "o").exists()
    deals.write_text(f"deal dealer 2\n{deck_line(FIRST)}\n")
    code, text = run("match", BOT, BOT, "--deals", str(deals), "--out", str(tmp_path / "o"))
    assert code == 1
    assert text.strip() == (
        f"Error: {deals}:1: dealer 2: with 2 players the first dealer is a seat, 0 or 1"
    )


def test_with_n_matches_match_k_plays_deal_k(tmp_path: Path) -> None:
    deals = tmp_path / "eaai.deals"
    deals.write_text(SET)
    out = tmp_path / "pair"
    code, text = run("match", BOT, BOT + " first", "-n", "2", "--deals", str(deals), "--out",
                     str(out))  # fmt: skip
    assert code == 0, text
    played = {
        h["deck_source"]["deal"]: (d["dealer"], d["deck"])  # type: ignore[index]
        for h, d in headers_and_first_deals(out)
    }
    assert played == {
        1: (1, [card_str(c) for c in FIRST]),
        2: (0, [card_str(c) for c in SECOND]),
    }
