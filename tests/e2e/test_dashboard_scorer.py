"""End to end in a browser (issue 5, items 2 and 3): the scorer's page and the public results on the real
collector (`bidwire serve --event`) with three real virtual units playing the 3-table Mitchell of
test_collector_mitchell.py (3 rounds of 2 boards, two ties), driven by Playwright in headless chromium.

- the public page says "not published yet" and shows no ranking before publication;
- the scorer logs in (the director's login for now), sees a traveller and the ranking (ties "2="), a pair's
  score card, publishes from the page (the correction period's end is shown), downloads the PBN through the
  page's link, and `bidwire score-pbn --method mp` on that file gives the ranking the page shows;
- after publication the public page shows the ranking; the printable page has it too.
Screenshots go to build/screenshots/ (scorer-*.png, results-*.png), also at a tablet's viewport (820x1180).
"""
import json
import subprocess

import httpx2 as httpx
import pytest
from collector_proc import BIDWIRE, Collector, keyring
from test_collector_mitchell import EXPECTED, UNITS, play_mitchell
from test_collector_units import secret
from test_dashboard import PASSWORD, SHOTS, browser, chromium_installed, log_in  # noqa: F401 (fixtures)

TABLET = {"width": 820, "height": 1180}
SCORER_PASSWORD = "scorer only, not the director"


@pytest.fixture
def mitchell(tmp_path, monkeypatch):
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", PASSWORD)  # inherited by `bidwire serve`
    monkeypatch.setenv("BIDWIRE_SCORER_PASSWORD", SCORER_PASSWORD)
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Club pairs", "--movement",
                    "mitchell", "--tables", "3", "--boards-per-round", "2"], check=True, capture_output=True)
    data = tmp_path / "collector"
    data.mkdir()
    ring = keyring(data / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
    c = Collector(data, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3"))
    yield c
    c.stop()


def page_ranking(page):
    """(direction, pair, rank as shown, % as shown) of every row of the page's ranking tables."""
    out = []
    for row in page.locator("table.ranking tbody tr").all():
        out.append((row.get_attribute("data-direction"), row.get_attribute("data-pair"),
                    row.locator(".rank").inner_text().strip(), row.locator(".pct").inner_text().strip()))
    return out


def test_the_scorer_publishes_and_the_pbn_scores_back_to_the_pages_ranking(tmp_path, mitchell, browser):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    public = browser.new_page(viewport=TABLET)
    public.goto(mitchell.url + "/results")
    public.locator("#not-published").wait_for()
    assert public.locator("table.ranking").count() == 0

    play_mitchell(tmp_path, mitchell)

    public.reload()
    assert "not published yet" in public.locator("#not-published").inner_text()  # played, still not published
    assert public.locator("table").count() == 0
    public.screenshot(path=str(SHOTS / "results-not-published.png"), full_page=True)

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    assert page.goto(mitchell.url + "/scorer").url.endswith("/login")  # no session: the login page
    log_in(page, mitchell.url)
    page.wait_for_url("**/director")
    page.goto(mitchell.url + "/scorer")
    assert "Not published yet" in page.locator("#publication").inner_text()

    # board 1's traveller: T1 NS1-EW1 1NT by N 7 tricks (made exactly: "="), East led a club, +90 in the NS
    # column and none in the EW one, 0 MP; T2 +120 and T3 +120 (a tie for the top)
    trav = page.locator("table.traveller[data-board='1'] tbody tr[data-table]")
    assert trav.count() == 3
    cells = [c.strip() for c in trav.nth(0).locator("th, td").all_inner_texts()]
    assert cells[:10] == ["1", "1", "1", "1NT", "N", "=", "♣", "90", "", "0"], cells
    assert trav.nth(1).locator(".mp").inner_text() == "3" and trav.nth(2).locator(".score").inner_text() == "120"

    ranking = page_ranking(page)
    want = [(d, p, f"{rank}=" if tied else str(rank)) for d, p, rank, tied, _ in EXPECTED]
    assert [r[:3] for r in ranking] == want
    assert ("NS", "3", "1", "66.67") in ranking and ("NS", "1", "2=", "41.67") in ranking
    page.screenshot(path=str(SHOTS / "scorer-before-publication.png"), full_page=True)

    # a pair's score card: EW 1 played boards 1-2 against NS 1, 3-4 against NS 3, 5-6 against NS 2
    page.get_by_role("link", name="EW 1", exact=True).click()
    page.wait_for_url("**/scorer/pairs/EW/1*")
    card = page.locator("table.scorecard tbody tr")
    assert card.count() == 6
    first = [c.strip() for c in card.nth(0).locator("th, td").all_inner_texts()]
    assert first[:10] == ["1", "1", "EW", "NS 1", "1NT", "N", "=", "♣", "-90", "4"], first  # the opponents' line
    assert "1=" in page.locator("#summary").inner_text() and "54.17" in page.locator("#summary").inner_text()
    page.screenshot(path=str(SHOTS / "scorer-score-card.png"), full_page=True)
    page.get_by_role("link", name="Back to the scorer's page").click()

    # publish from the page, by keyboard: the correction period's end is shown
    page.get_by_label("Correction period (minutes)").fill("20")
    page.get_by_role("button", name="Publish the results").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/scorer?published=1")
    publication = page.locator("#publication").inner_text()
    assert "Published at" in publication and "correction period (Law 79 C) ends at" in publication
    state = mitchell.api.get("/api/v1/publish").json()
    assert state["minutes"] == 20 and state["open"]
    times = page.locator("#publication time")  # local and human-readable, the instant in the datetime attribute
    assert times.nth(1).get_attribute("datetime") == state["ends_at"] and state["ends_at"] not in publication
    page.screenshot(path=str(SHOTS / "scorer-published.png"), full_page=True)

    # the PBN through the page's link, scored again by `bidwire score-pbn`: the page's ranking
    with page.expect_download() as download:
        page.get_by_role("link", name="Download PBN").click()
    pbn = tmp_path / "session.pbn"
    download.value.save_as(pbn)
    out = subprocess.run([str(BIDWIRE), "score-pbn", "--method", "mp", str(pbn)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["problems"] == []
    assert [(r["direction"], r["pair"], r["display"], f"{r['pct']:.2f}") for r in report["ranking"]] == ranking
    for link in ("Download USEBIO XML", "Download CSV"):
        href = page.get_by_role("link", name=link).get_attribute("href")
        assert page.request.get(mitchell.url + href).status == 200  # with the scorer's login (the page's cookie)
        assert httpx.get(mitchell.url + href, timeout=10).status_code == 401  # and not without it

    page.get_by_role("link", name="Printable results (HTML)").click()
    page.wait_for_url("**/scorer/print")
    assert page_ranking(page) == ranking
    page.screenshot(path=str(SHOTS / "scorer-print.png"), full_page=True)

    tablet = browser.new_page(viewport=TABLET)
    log_in(tablet, mitchell.url)
    tablet.wait_for_url("**/director")
    tablet.goto(mitchell.url + "/scorer")
    assert tablet.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]  # no sideways scrolling
    tablet.screenshot(path=str(SHOTS / "scorer-tablet.png"), full_page=True)

    # the public page, without a login, now shows the ranking and the travellers
    public.reload()
    assert public.locator("#not-published").count() == 0
    assert page_ranking(public) == ranking
    assert public.locator("table.traveller").count() == 6
    assert public.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]
    public.screenshot(path=str(SHOTS / "results-published.png"), full_page=True)


def test_the_scorer_pages_need_a_session_and_publishing_its_csrf_token(mitchell):
    with httpx.Client(base_url=mitchell.url, timeout=10) as client:
        for path in ("/scorer", "/scorer/print", "/scorer/pairs/NS/1"):
            r = client.get(path)
            assert r.status_code == 303 and r.headers["location"] == "/login", path
        assert client.post("/scorer/publish", data={"minutes": "5"}).status_code == 403
        assert "not published yet" in client.get("/results").text
        log = client.get("/login")
        token = log.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert client.post("/login", data={"password": PASSWORD, "csrf": token}).status_code == 303
        assert client.get("/scorer").status_code == 200
        assert client.post("/scorer/publish", data={"minutes": "5"}).status_code == 403  # session, no token
    assert mitchell.rows("SELECT count(*) AS n FROM director_actions") == [{"n": 0}]


def test_the_scorers_own_login_corrects_within_the_period_and_overrides_after_it(  # noqa: F811
        tmp_path, mitchell, browser):  # noqa: F811
    """The scorer's login (its role in the session) sees /scorer but not /director; it corrects a result at a
    table (contract, declarer, tricks as they really were: scored again by Law 77, marked corrected) recorded `by`
    "scorer" in the audit log; after the correction period the scorer is refused (403, no override offered) and
    the director's login records it with the override, marked post-period (Law 79 C)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    play_mitchell(tmp_path, mitchell)
    page = browser.new_page(viewport=TABLET)
    log_in(page, mitchell.url, SCORER_PASSWORD, role="scorer")
    page.wait_for_url("**/scorer")
    assert "signed in as scorer" in page.locator("header h1").inner_text()
    assert page.get_by_role("link", name="Director").count() == 0
    assert page.goto(mitchell.url + "/director").status == 403
    assert page.goto(mitchell.url + "/director/live").status == 403
    page.goto(mitchell.url + "/scorer")

    # Board 1 at table 2 was really 3NT by N making 9 tricks: not vulnerable, 100 + 300 game bonus = +400.
    page.locator("#cor-table").fill("2")
    page.locator("#cor-board").fill("1")
    page.locator("#cor-contract").fill("3NT")
    page.locator("#cor-declarer").select_option("N")
    page.locator("#cor-tricks").fill("9")
    page.locator("#cor-reason").fill("Law 79 A: tricks agreed wrongly entered")
    assert page.locator("#cor-override").count() == 0  # not published: no override to tick
    page.get_by_role("button", name="Record correction").click()
    page.wait_for_url("**/scorer?corrected=1*")
    row = page.locator("#audit-table tbody tr").first
    text = row.inner_text()
    assert "correction" in text and "board 1" in text and "table 2" in text and "scorer" in text, text
    assert "3NT N 9" in text and "NS 400" in text, text
    assert row.locator("td").first.inner_text().strip()  # when
    trav = {r["table"]: r for r in mitchell.api.get("/api/v1/travellers/1").json()["rows"]}
    assert (trav[2]["contract"], trav[2]["declarer"], trav[2]["tricks"], trav[2]["score_ns"]) == ("3NT", "N", 9, 400)
    assert trav[2]["adjusted"] is None and trav[2]["corrected"]["by"] == "scorer"  # a correction, not Law 12 C

    # publish with a period of 0 minutes: it is over at once; the scorer's correction is refused with the reason
    # (403: after the period only the director corrects, Law 79 C), and no override is offered to the scorer.
    # Board 2 at table 1 was really 4S by S making 10: NS vulnerable, 120 + 500 game bonus = +620.
    page.get_by_label("Correction period (minutes)").fill("0")
    page.get_by_role("button", name="Publish the results").click()
    page.wait_for_url("**/scorer?published=1")

    def fill_the_correction():
        page.locator("#cor-table").fill("1")
        page.locator("#cor-board").fill("2")
        page.locator("#cor-contract").fill("4S")
        page.locator("#cor-declarer").select_option("S")
        page.locator("#cor-tricks").fill("10")
        page.locator("#cor-reason").fill("declarer was South")
    fill_the_correction()
    with page.expect_response(lambda r: r.url.endswith("/scorer/correct")) as resp:
        page.get_by_role("button", name="Record correction").click()
    assert resp.value.status == 403
    error = page.locator("#correct-error")
    assert "correction period ended" in error.inner_text() and "only the director" in error.inner_text()
    assert page.locator("#cor-table").input_value() == "1"  # the form as it was
    assert page.locator("#cor-override").count() == 0
    page.screenshot(path=str(SHOTS / "scorer-correction-refused.png"), full_page=True)
    # the director's login: refused without the override (409), recorded post-period with it
    page.goto(mitchell.url + "/login")
    log_in(page, mitchell.url)
    page.goto(mitchell.url + "/scorer")
    fill_the_correction()
    with page.expect_response(lambda r: r.url.endswith("/scorer/correct")) as resp:
        page.get_by_role("button", name="Record correction").click()
    assert resp.value.status == 409 and "Law 79 C" in page.locator("#correct-error").inner_text()
    page.get_by_label("After the correction period (override, Law 79 C)").check()
    page.get_by_role("button", name="Record correction").click()
    page.wait_for_url("**/scorer?corrected=1*")
    text = page.locator("#audit-table tbody tr").first.inner_text()
    assert "4S S 10" in text and "NS 620" in text and "after the correction period" in text and "director" in text, \
        text
    page.screenshot(path=str(SHOTS / "scorer-audit-log.png"), full_page=True)
    kinds = [(r["kind"], r["by_whom"], r["post_period"]) for r in
             mitchell.rows("SELECT kind, by_whom, post_period FROM director_actions ORDER BY id")]
    assert kinds == [("correct", "scorer", 0), ("publish", "scorer", 0), ("correct", "director", 1)]
    trav = {r["table"]: r for r in mitchell.api.get("/api/v1/travellers/2").json()["rows"]}
    assert (trav[1]["contract"], trav[1]["declarer"], trav[1]["score_ns"]) == ("4S", "S", 620)

    with httpx.Client(base_url=mitchell.url, timeout=10) as client:  # a form without the CSRF token
        assert client.post("/scorer/correct", data={"table": "1", "board": "1", "contract": "1S",
                                                    "declarer": "N", "tricks": "7"}).status_code == 403
