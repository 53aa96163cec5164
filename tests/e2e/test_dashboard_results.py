"""End to end in a browser (issue 14, item 6): the pages players read, on a phone (390 px) and a desktop
(1366 px), on the real collector (`bidwire serve --event`, a free port) after three real virtual units have played
the 3-table Mitchell of test_dashboard_scorer.py on dealt hand records (`bidwire event create --deal`) with the
players' names in the event file, analysed double dummy by the collector and published.

At both widths: the public results (event, movement, names, ranking), board 1's traveller with its hand diagram,
double-dummy table and par, and a pair's score card. No page scrolls sideways; the ranking's Total column (the one
the ranking follows), the traveller's last column and the score card's last column are on screen; "NS 2" does not
wrap. Screenshots go to build/screenshots/results-*-phone.png and results-*-desktop.png (copies in docs/img/).
"""
import json
import subprocess
import time

import pytest
from collector_proc import BIDWIRE, Collector, keyring
from test_collector_mitchell import UNITS, play_mitchell
from test_collector_units import secret
from test_dashboard import PASSWORD, SHOTS, browser, chromium_installed  # noqa: F401 (fixtures)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
NAMES = {("NS", 1): ("Ann Smith", "Bob Jones"), ("NS", 2): ("Carol White", "Dan Brown"),
         ("NS", 3): ("Eve Green", "Frank Black"), ("EW", 1): ("Grace Hall", "Henry Ford"),
         ("EW", 2): ("Ivy Lane", "Jack Stone"), ("EW", 3): ("Kate Price", "Liam Ward")}


@pytest.fixture
def published(tmp_path, monkeypatch):
    """The played, analysed and published Mitchell on a running collector."""
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", PASSWORD)
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Tuesday Pairs", "--movement",
                    "mitchell", "--tables", "3", "--boards-per-round", "2", "--date", "2026-12-01", "--deal",
                    "--seed", "14"], check=True, capture_output=True)
    event = json.loads(event_file.read_text())
    for p in event["sessions"][0]["sections"][0]["pairs"]:
        p["players"] = [{"name": n} for n in NAMES[(p["line"], p["number"])]]
    event_file.write_text(json.dumps(event))
    data = tmp_path / "collector"
    data.mkdir()
    ring = keyring(data / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
    c = Collector(data, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3"))
    try:
        play_mitchell(tmp_path, c)
        deadline = time.monotonic() + 120
        while len(c.rows("SELECT DISTINCT board FROM analysis")) < 6:  # analysed in the background
            assert time.monotonic() < deadline, "the hand records were not analysed"
            time.sleep(0.2)
        assert c.api.post("/api/v1/publish", json={"minutes": 30}).status_code == 201
        yield c
    finally:
        c.stop()


def fits(page, selector):
    """The element is shown and lies inside the viewport's width (not cut off, nothing to scroll to)."""
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size[
        "width"]


def no_sideways_scrolling(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("name, viewport", [("phone", PHONE), ("desktop", DESKTOP)])
def test_the_pages_players_read_fit_a_phone_and_a_desktop(published, browser, name, viewport):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=viewport)

    page.goto(published.url + "/results")
    assert page.locator("header h1").inner_text() == "Tuesday Pairs"
    assert "Tue 1 Dec 2026" in page.locator("#event").inner_text()
    assert "Mitchell, 3 tables, 6 boards" in page.locator("#sections").inner_text()
    ns1 = page.locator("table.ranking tr[data-direction='NS'][data-pair='1']")
    assert "Ann Smith & Bob Jones" in ns1.inner_text()
    page.screenshot(path=str(SHOTS / f"results-{name}.png"), full_page=True)
    assert no_sideways_scrolling(page), name
    assert fits(page, "table.ranking tbody tr .total") and fits(page, "table.ranking thead th:last-child"), name
    for pair in page.locator("table.ranking .pair-no").all():  # "NS 2" on one line
        assert pair.evaluate("e => e.getClientRects().length") == 1, (name, pair.inner_text())

    page.get_by_role("link", name="Board 1", exact=True).first.click()
    page.wait_for_url("**/results/boards/1")
    assert page.locator(".deal .hand").count() == 4 and fits(page, ".deal")
    assert page.locator("table.dd tbody tr").count() == 4 and page.locator(".par").inner_text().startswith("Par: ")
    assert page.locator("table.traveller tbody tr[data-table]").count() == 3
    page.screenshot(path=str(SHOTS / f"results-board-{name}.png"), full_page=True)
    assert no_sideways_scrolling(page), name
    assert fits(page, "table.traveller tbody tr[data-table] td:visible >> nth=-1"), name

    page.goto(published.url + "/results")
    page.get_by_role("link", name="EW 1", exact=True).click()
    page.wait_for_url("**/results/pairs/EW/1*")
    rows = page.locator("table.scorecard tbody tr")
    assert rows.count() == 6
    assert rows.nth(0).locator(".opponents").inner_text() == "NS 1 — Ann Smith & Bob Jones"
    page.screenshot(path=str(SHOTS / f"results-card-{name}.png"), full_page=True)
    assert no_sideways_scrolling(page), name
    assert fits(page, "table.scorecard tbody tr .pct"), name
