"""The season's web app in headless Chromium (tests/support/browser.py): the leaderboard, a
bot's page with its rating plot, a replay page under the app's Content Security Policy, an
archive submitted through the form, and an entrant's own page; each read from the rendered
DOM. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ladder.archives import zip_bytes
from tests.ladder.test_web import MANIFEST
from tests.ladder.web_season import FAILURE_TAIL, SINGLE, WebSeason, build_season, output_text
from tests.support.browser import Browser
from tournaments.ladder.service import SUBMISSIONS
from tournaments.ladder.web import LadderWeb

pytestmark = pytest.mark.slow  # a browser


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[WebSeason, LadderWeb, Browser]]:
    season = build_season(tmp_path)
    web = LadderWeb(season.directory, port=0)
    web.start()
    try:
        with Browser(tmp_path / "profile") as browser:
            yield season, web, browser
    finally:
        web.stop()
        season.tournament.journal.close()


def texts(browser: Browser, selector: str) -> list[str]:
    """The rendered text of each element ``selector`` picks."""
    found = browser.js(
        f"JSON.stringify([...document.querySelectorAll({json.dumps(selector)})]"
        ".map(e => e.textContent.trim()))"
    )
    return list(json.loads(found))


def fill(browser: Browser, values: dict[str, str]) -> None:
    for ident, value in values.items():
        browser.js(f"document.getElementById({json.dumps(ident)}).value = {json.dumps(value)}")


def test_the_pages_render(served: tuple[WebSeason, LadderWeb, Browser]) -> None:
    _, web, browser = served
    browser.load(web.url)
    rows = texts(browser, "main table tr td:nth-child(2)")
    assert {"alice@2", "bob@1", "greedyhouse", "randomhouse"} <= set(rows)
    ranks = texts(browser, "main table tr td:first-child")
    assert ranks == [str(n) for n in range(1, len(rows) + 1)]
    browser.screenshot("ladder-leaderboard.png")

    browser.load(web.url + "bot/alice")
    points = browser.js("document.querySelector('svg.plot polyline.mu').points.numberOfItems")
    assert points == 3
    # Drawn, and as wide as its box: the page's style sheet applied under its policy.
    width = browser.js("document.querySelector('svg.plot polygon.band').getBBox().width")
    assert width > 100
    assert "failed at build" in texts(browser, "main table td")
    assert texts(browser, f'a[href="/match/{SINGLE}"]') == [SINGLE]
    browser.screenshot("ladder-bot.png")

    # The replay page's own script runs under the policy sent with it: it draws the table.
    browser.click(f'a[href="/match/{SINGLE}"]')
    browser.wait_for("document.querySelectorAll('#hand0 [data-card]').length > 0")
    assert browser.js("location.pathname") == f"/match/{SINGLE}"
    browser.screenshot("ladder-replay.png")


def test_an_archive_submitted_through_the_form_and_the_entrants_page(
    served: tuple[WebSeason, LadderWeb, Browser], tmp_path: Path
) -> None:
    season, web, browser = served
    archive = tmp_path / "bot.zip"
    archive.write_bytes(zip_bytes({"ginref-bot.toml": MANIFEST}))
    browser.load(web.url + "submit")
    fill(browser, {"entrant": "alice", "token": season.tokens["alice"]})
    root = browser.call("DOM.getDocument")["root"]["nodeId"]
    node = browser.call("DOM.querySelector", nodeId=root, selector="#archive")["nodeId"]
    browser.call("DOM.setFileInputFiles", nodeId=node, files=[str(archive)])
    browser.click("button[type=submit]")
    browser.wait_for("document.getElementById('answer') !== null")
    (answer,) = texts(browser, "#answer")
    assert answer.startswith("queued as alice@3")
    stored = season.directory / SUBMISSIONS / "alice" / "3.archive"
    assert stored.read_bytes() == archive.read_bytes()

    browser.load(web.url + "me")
    fill(browser, {"entrant": "alice", "token": season.tokens["alice"]})
    browser.click("button[type=submit]")
    browser.wait_for("document.querySelectorAll('h2.version').length > 0")
    assert texts(browser, "h2.version") == [
        "alice@3: queued",
        "alice@2: accepted",
        "alice@1: failed at build",
    ]
    assert FAILURE_TAIL in texts(browser, "pre.tail")
    outputs = texts(browser, "pre.output")
    assert output_text(SINGLE, "alice@2") in outputs
    assert browser.js("document.querySelectorAll('main script').length") == 0
    browser.screenshot("ladder-entrant.png")
