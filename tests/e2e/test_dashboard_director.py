"""The director's page beyond rulings (issue 5), in headless Debian chromium against the real collector and a real
virtual unit: the auction so far as a bidding diagram in an irregularity alert, the live auctions page
(/director/live) following the calls without a reload, an artificial adjusted score entered from the page (in the
audit list, on the traveller and in the ranking), and the page at a tablet's size (820x1180).
Screenshots go to build/screenshots/.
"""
import subprocess
import sys
from pathlib import Path

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring
from test_dashboard import PASSWORD, SHOTS, browser, chromium_installed, log_in  # noqa: F401 (fixtures)
from vunit import SECRET, VUnit, write_config

BIDWIRE = Path(sys.executable).parent / "bidwire"
TABLET = {"width": 820, "height": 1180}




@pytest.fixture
def collector(tmp_path, monkeypatch):
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", PASSWORD)
    data = tmp_path / "collector"
    data.mkdir()
    c = Collector(data, keyring(data / "keyring.json", {"T01": SECRET}))
    yield c
    c.stop()


@pytest.fixture
def event_collector(tmp_path, monkeypatch):
    """A collector with a 3-table Mitchell loaded (adjusted scores need the movement); no unit plays."""
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", PASSWORD)
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Club pairs",
                    "--movement", "mitchell", "--tables", "3", "--boards-per-round", "2"], check=True,
                   capture_output=True)
    data = tmp_path / "collector"
    data.mkdir()
    c = Collector(data, keyring(data / "keyring.json", {"T01": SECRET}),
                  extra=("--event", str(event_file), "--tables", "T01=1"))
    yield c
    c.stop()


def test_live_auctions_and_the_bidding_diagram_in_an_alert(tmp_path, collector, browser):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=TABLET)
    director = context.new_page()
    log_in(director, collector.url)
    director.wait_for_url("**/director")
    director.locator("#live").filter(has_text="live").wait_for()
    vugraph = context.new_page()  # the same session, a second tab
    vugraph.goto(collector.url + "/director/live")
    vugraph.locator("#live").filter(has_text="live").wait_for()
    vugraph.evaluate("window.__no_reload = true")

    unit = VUnit(write_config(tmp_path / "T01.json", tmp_path / "T01-state", collector.url, unit="T01"))
    try:
        unit.write("clock 1000")  # the unit's ticks_ms from here on, moved by the script: each call's tempo
        unit.send("N PASS")  # set-up: board 1, dealer N
        unit.write("clock +4200")
        for line in ("N 1", "N C"):  # N opens 1C after 4.2 s
            unit.send(line)
        unit.write("sync 10000")
        table = vugraph.locator("article.live-table[data-unit=T01]")
        table.locator('td[data-call="1C"]').wait_for(timeout=15000)  # live, without a reload
        unit.write("clock +700")
        unit.send("E PASS")
        unit.write("sync 10000")
        table.locator('td[data-call="P"]').wait_for(timeout=15000)
        assert vugraph.evaluate("window.__no_reload") is True
        cells = table.locator("table.auction tbody tr").first.locator("td").all_inner_texts()
        assert cells == ["", "1♣ 4.2s", "Pass 0.7s", ""], cells  # W N E S, from the dealer N; each call's tempo
        vugraph.screenshot(path=str(SHOTS / "director-live-auctions.png"), full_page=True)

        unit.write("clock +15000")
        for line in ("W 1", "W S"):  # W bids 1S at S's turn: out of rotation (Law 31), after 15 s
            unit.send(line)
        assert unit.frame()[0].startswith("IRREGULAR L31")
        unit.write("sync 10000")
        alert = director.locator("article.alert.open", has_text="out of rotation")
        alert.wait_for(timeout=15000)
        diagram = alert.locator("table.auction")
        assert diagram.locator("thead th").all_inner_texts() == ["W", "N", "E", "S"]
        rows = [r.locator("td").all_inner_texts() for r in diagram.locator("tbody tr").all()]
        assert rows == [["", "1♣ 4.2s", "Pass 0.7s", ""], ["1♠* 15.0s", "", "", ""]], rows
        assert diagram.locator("td.irregular").count() == 1
        # 15 s is over the event's long_call_s (10 s by default), 4.2 s is not: marked and named under the diagram
        assert diagram.locator("td.long").all_inner_texts() == ["1♠* 15.0s"]
        assert alert.locator("p.long-note").inner_text() == "Long: 1♠ by W (15.0s)"
        assert "new" in (alert.get_attribute("class") or "")  # the visual cue on a new alert
        director.get_by_role("button", name="Enable sound on new alerts").click()
        assert director.locator("#sound").get_attribute("aria-pressed") == "true"
        director.screenshot(path=str(SHOTS / "director-alert-diagram-tablet.png"), full_page=True)
        table.locator('td[data-call="1S"]').wait_for(timeout=15000)
    finally:
        unit.finish()


def test_the_director_enters_an_adjusted_score_from_the_page(event_collector, browser):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=TABLET)
    log_in(page, event_collector.url)
    page.wait_for_url("**/director")
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]  # no sideways scrolling
    assert event_collector.api.get("/api/v1/ranking").json()["ranking"] == []

    page.locator("#adj-table").fill("2")
    page.locator("#adj-board").fill("1")
    page.locator("#adj-ns").select_option("A+")
    page.locator("#adj-ew").select_option("A-")
    page.locator("#adj-reason").fill("Law 12 C: board fouled")
    page.get_by_role("button", name="Record adjusted score").click()
    page.wait_for_url("**/director?done=adjust*")
    row = page.locator("#audit-table tbody tr").first
    assert "A+/A-" in row.inner_text() and "board 1" in row.inner_text() and "director" in row.inner_text()
    page.screenshot(path=str(SHOTS / "director-tablet.png"), full_page=True)

    with httpx.Client(base_url=event_collector.url, headers=event_collector.api_headers, timeout=10) as client:
        rows = {r["table"]: r for r in client.get("/api/v1/travellers/1").json()["rows"]}
        assert rows[2]["adjusted"] == "A+/A-" and rows[2]["pct_ns"] == 60
        ranking = client.get("/api/v1/ranking").json()["ranking"]
        # nothing was played: the pairs of table 2 are ranked on the adjusted board alone
        ranked = sorted((r["direction"], str(r["pair"]), r["boards"]) for r in ranking)
        assert ranked == [("EW", "3", 1), ("NS", "2", 1)]

    # an assigned score (non-balancing: NS +140 for NS, -620 for EW, laws.md §9.3) from the same form
    page.locator("#adj-table").fill("1")
    page.locator("#adj-board").fill("2")
    page.get_by_label("Assigned score").check()
    page.locator("#adj-score-ns").fill("140")
    page.locator("#adj-score-ew").fill("-620")
    page.locator("#adj-reason").fill("Law 12 C1: misinformation")
    page.get_by_role("button", name="Record adjusted score").click()
    page.wait_for_url("**/director?done=adjust*")
    row = page.locator("#audit-table tbody tr").first.inner_text()
    assert "assigned 140/-620" in row and "board 2" in row and "table 1" in row, row
    with httpx.Client(base_url=event_collector.url, headers=event_collector.api_headers, timeout=10) as client:
        rows = {r["table"]: r for r in client.get("/api/v1/travellers/2").json()["rows"]}
        assert rows[1]["adjusted"] is not None and rows[1]["score_ns"] in (140, None)

    # a table the movement does not have: refused with the collector's reason, and nothing recorded
    page.locator("#adj-table").fill("9")
    page.locator("#adj-board").fill("1")
    page.get_by_role("button", name="Record adjusted score").click()
    page.get_by_role("alert").filter(has_text="tables 1-3, not 9").wait_for()
    assert page.locator("#audit-table tbody tr").count() == 2

    # a penalty, and a form without its CSRF token is refused
    page.locator("#pen-direction").select_option("EW")
    page.locator("#pen-pair").fill("1")
    page.locator("#pen-amount").fill("1")
    page.locator("#pen-reason").fill("Law 90 B2: unduly slow play")
    page.get_by_role("button", name="Record penalty").click()
    page.wait_for_url("**/director?done=penalty*")
    assert "procedural penalty (Law 90): EW 1" in page.locator("#audit-table tbody tr").first.inner_text()
    with httpx.Client(base_url=event_collector.url, timeout=10) as client:
        refused = client.post("/director/adjust", data={"table": "1", "board": "1", "ns": "A", "ew": "A"})
        assert refused.status_code == 403


@pytest.mark.parametrize("viewport", [{"width": 1366, "height": 900}, {"width": 390, "height": 844}])
def test_the_director_enters_a_result_no_unit_reported_from_the_page(event_collector, browser, viewport):  # noqa: F811
    """Table 2's unit never reported board 3; the director enters it from the paper traveller. Law 77, by hand:
    board 3 (dealer S, EW vulnerable) 4S by S making 10, NS not vulnerable: 120 + 300 = +420."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=viewport)
    log_in(page, event_collector.url)
    page.wait_for_url("**/director")
    page.locator("#res-table").fill("2")
    page.locator("#res-board").fill("3")
    page.locator("#res-contract").fill("4S")
    page.locator("#res-declarer").select_option("S")
    page.locator("#res-tricks").fill("10")
    page.locator("#res-lead").select_option("H")
    page.locator("#res-reason").fill("unit T02 died; the pairs' agreed result")
    page.locator("#res-by").fill("TD Jones")
    page.get_by_role("button", name="Enter result").click()
    page.wait_for_url("**/director?done=result*")
    row = page.locator("#audit-table tbody tr").first.inner_text()
    assert "result entered" in row and "board 3" in row and "table 2" in row and "NS 420" in row, row
    assert "TD Jones" in row
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    page.screenshot(path=str(SHOTS / f"director-result-entered-{viewport['width']}.png"), full_page=True)
    with httpx.Client(base_url=event_collector.url, headers=event_collector.api_headers, timeout=10) as client:
        [r] = client.get("/api/v1/travellers/3").json()["rows"]
        assert (r["table"], r["contract"], r["declarer"], r["tricks"], r["score_ns"]) == (2, "4S", "S", 10, 420)
        assert r["entered"]["by"] == "TD Jones"
    # the scorer's traveller says who entered it
    page.goto(event_collector.url + "/scorer")
    assert "entered by the director" in page.content()
    # a contract that is not one: refused naming the field, the form kept, nothing recorded
    page.goto(event_collector.url + "/director")
    page.locator("#res-table").fill("2")
    page.locator("#res-board").fill("4")
    page.locator("#res-contract").fill("8S")
    page.locator("#res-declarer").select_option("E")
    page.locator("#res-tricks").fill("9")
    page.get_by_role("button", name="Enter result").click()
    page.get_by_role("alert").filter(has_text="contract").wait_for()
    assert page.locator("#res-contract").input_value() == "8S"
    assert page.locator("#audit-table tbody tr").count() == 1
