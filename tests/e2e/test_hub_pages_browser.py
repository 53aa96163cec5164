"""The hub's public pages in a real browser (Debian's chromium through Playwright), on a phone (390 px) and a
desktop (1366 px): the released ranking, a board's page with the hand diagram and frequencies, a pair's card,
the upload form and the organiser's login. None scrolls sideways, and each shows what a player looks for.
Screenshots go to build/screenshots/hub-*.png."""
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/hubkit.py

from hubkit import HANDS, PASSWORD, SIZES, hub_of_its_own, played, post_upload, upload_body  # noqa: E402
from test_dashboard import SHOTS, browser, chromium_installed  # noqa: E402, F401 (fixtures)


@pytest.fixture(scope="module")
def released_hub():
    with hub_of_its_own() as hub:
        with hub.organiser() as org:
            org.post("/api/v1/sims", json={
                "id": "pages", "name": "Winter charity sim", "boards": [1, 2], "hands_pbn": HANDS,
                "release_at": (datetime.now(UTC) + timedelta(hours=1)).isoformat()}).raise_for_status()
            for club, name in (("BRM", "Bromley Bridge Club"), ("HOV", "Hove and District Bridge Club")):
                secret = org.post("/api/v1/sims/pages/clubs", json={"id": club, "name": name}).json()["secret"]
                results = [played("A", b, str(t), str(t), c, d, k, s,
                                  ns_names="Margaret Featherstonehaugh & Bartholomew Oyelaran-Smith",
                                  ew_names="Ann Lee & Bo Ng")
                           for b, t, c, d, k, s in ((1, 1, "4S", "N", 10, 420), (1, 2, "3NT", "S", 9, 400),
                                                    (2, 1, "2H", "S", 8, 110), (2, 2, "2H", "S", 9, 140))]
                post_upload(hub.url, club, secret, upload_body("pages", club, 1, results)).raise_for_status()
            # released once every result is in (one first seen after the release is held for the organiser)
            org.patch("/api/v1/sims/pages", json={"release_at": datetime.now(UTC).isoformat()}).raise_for_status()
            org.post("/api/v1/sims", json={
                "id": "later", "name": "Spring sim", "boards": [1, 2], "hands_pbn": HANDS,
                "release_at": (datetime.now(UTC) + timedelta(hours=3)).isoformat()}).raise_for_status()
        yield hub


def _no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("size", SIZES)
def test_the_released_pages_read_on_a_phone_and_a_desktop(released_hub, browser, size):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=SIZES[size])
    base = released_hub.url
    checks = [
        ("/sims/pages", ["Winter charity sim", "Hove and District Bridge Club",
                         "Margaret Featherstonehaugh"]),
        ("/sims/pages/boards/1", ["AKQJ", "4S", "420"]),
        ("/sims/pages/pairs/BRM/A/NS/1", ["Margaret Featherstonehaugh", "Bromley Bridge Club", "420"]),
        ("/sims/pages/upload", ["USEBIO file", "Club secret"]),
        ("/organiser/login", ["Password"]),
    ]
    for path, wanted in checks:
        r = page.goto(base + path)
        assert r is not None and r.status == 200, path
        text = page.inner_text("body")
        for w in wanted:
            assert w in text, (path, w)
        assert _no_sideways_scroll(page), (path, size)
        page.screenshot(path=str(SHOTS / f"hub-{path.strip('/').replace('/', '-')}-{size}.png"), full_page=True)
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_phone_shows_the_percentage_and_the_board_page_the_suit_symbols(released_hub, browser, size):  # noqa: F811
    """Issue 39, finding 10: on a phone the ranking's % column was cut off (it sat past the screen's edge inside
    the table's scroll box), and the double-dummy table wrote S/H/D/C where every other page uses the symbols."""
    page = browser.new_page(viewport=SIZES[size])
    page.goto(released_hub.url + "/sims/pages")
    edges = page.evaluate("[...document.querySelectorAll('td.pct')].map(td => td.getBoundingClientRect().right)")
    assert len(edges) == 8 and max(edges) <= SIZES[size]["width"], edges  # every pair's %, on the screen
    assert page.inner_text("th:text-is('%')") == "%"
    page.goto(released_hub.url + "/sims/pages/boards/1")
    heads = page.evaluate("[...document.querySelectorAll('h2')].filter(h => h.textContent === 'Double dummy')"
                          ".map(h => [...h.nextElementSibling.querySelectorAll('thead th')].map(th => th.textContent))")
    assert heads == [["", "NT", "♠", "♥", "♦", "♣"]]
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_the_organiser_logs_in_to_the_sims_progress_which_says_whether_it_is_released(released_hub, browser,  # noqa: F811
                                                                                      size):
    """Finding 10: login landed on the hub's first page, not on the sim; the progress page read "Released at"
    before the release. Now the sim's progress page sends the organiser to log in and back to it, and says plainly
    whether the sim is released and when it will be."""
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    page.goto(released_hub.url + "/organiser/sims/later")
    assert "/organiser/login" in page.url
    page.fill("input[name=password]", PASSWORD)
    page.click("button")
    page.wait_for_url("**/organiser/sims/later")
    release = page.inner_text("#release")
    assert release.startswith("Not released yet") and "will be public from" in release and "your time" in release
    page.wait_for_function("document.querySelector('#release strong').textContent.includes('in 3 hours')")
    assert _no_sideways_scroll(page)
    page.goto(released_hub.url + "/organiser/sims/pages")
    assert page.inner_text("#release").startswith("Released") and "have been public" in page.inner_text("#release")
    page.screenshot(path=str(SHOTS / f"hub-organiser-progress-{size}.png"), full_page=True)
    r = page.request.post(released_hub.url + "/organiser/login", form={"password": PASSWORD,
                                                                        "next": "https://elsewhere.example/"},
                          max_redirects=0)
    assert r.status == 303 and r.headers["location"] == "/organiser"  # the desk, never another site
    context.close()
