"""Issue 39: the organiser's desk, the whole flow in a real browser (Debian's chromium through Playwright) on a
phone (390 px) and a desktop (1366 px), against a real hub (two workers, a real PostgreSQL): log in, set up a sim
(the hub deals, a release time given in New York's zone), register a club (its secret shown once), give it a new
secret (the old one then opens nothing), move the release, admit a result first seen after it, correct a result,
remove a club, and read the audit. No page scrolls sideways. Screenshots go to build/screenshots/hub-desk-*.png."""
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/hubkit.py

from hubkit import PASSWORD, SIZES, hub_of_its_own, played, post_upload, upload_body  # noqa: E402
from test_dashboard import SHOTS, browser, chromium_installed  # noqa: E402, F401 (fixtures)
from waiting import wait_until  # noqa: E402


@pytest.fixture(scope="module")
def hub():
    with hub_of_its_own() as h:
        yield h


def _fits(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def _secret(page, before=""):
    page.wait_for_function("(old) => { const c = document.querySelector('#secret code');"
                           " return c && c.textContent !== old; }", arg=before)
    return page.inner_text("#secret code")


def _correct(page, pair, result, reason):
    """Correct club A's board 1 at pairs `pair` v `pair` to `result` ("4S by N making 10") through the form."""
    contract, _, declarer, _, tricks = result.split()
    for name, value in (("club", "A"), ("board", "1"), ("ns", pair), ("ew", pair), ("contract", contract),
                        ("tricks", tricks), ("reason", reason)):
        page.fill(f"#correct input[name={name}]", value)
    page.select_option("#correct select[name=declarer]", declarer)
    page.click("#correct button")
    page.wait_for_function("document.querySelector('#correct [role=alert]').textContent === 'Corrected.'")


def _audit(page, what):
    page.wait_for_function("(w) => [...document.querySelectorAll('#audit tr td:nth-child(3)')]"
                           ".some(td => td.textContent === w)", arg=what)


@pytest.mark.parametrize("size", SIZES)
def test_the_organisers_whole_flow_on_a_phone_and_a_desktop(hub, browser, size):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    sim = f"desk-{size}"
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    page.on("dialog", lambda d: d.accept())  # the page asks before a new secret or a removal
    page.goto(hub.url + "/organiser")
    assert "/organiser/login" in page.url
    page.fill("input[name=password]", PASSWORD)
    page.click("button")
    page.wait_for_url("**/organiser")

    # set up: the hub deals boards 1-2; the release at 19:30 tomorrow in New York (EST, UTC-5: 00:30 UTC after)
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date()
    form = page.locator("#create")
    form.locator("input[name=id]").fill(sim)
    form.locator("input[name=name]").fill(f"Winter sim ({size})")
    form.locator("input[name=boards]").fill("1-2")
    form.locator("input[name=release]").fill(f"{tomorrow.isoformat()}T19:30")
    form.locator("select[name=zone]").select_option("America/New_York")
    assert _fits(page)
    page.screenshot(path=str(SHOTS / f"hub-desk-{size}.png"), full_page=True)
    form.locator("button").click()
    page.wait_for_url(f"**/organiser/sims/{sim}")
    with hub.organiser() as org:
        [made] = [s for s in org.get("/api/v1/sims").json() if s["id"] == sim]
    assert datetime.fromisoformat(made["release_at"]) == datetime(tomorrow.year, tomorrow.month, tomorrow.day, 19, 30,
                                                                  tzinfo=UTC) + timedelta(hours=5)
    assert page.inner_text("#release").startswith("Not released yet")

    # a club registered: its secret shown once, and it uploads with it
    page.fill("#register input[name=id]", "A")
    page.fill("#register input[name=name]", "Club A")
    page.click("#register button")
    first = _secret(page)
    assert re.fullmatch(r"[0-9a-f]{64}", first)
    page.wait_for_function("document.querySelector('#clubs').textContent.includes('Club A')")
    results = [played("A", 1, "1", "1", "4S", "N", 10, 420), played("A", 1, "2", "2", "4S", "N", 9, -50)]
    assert post_upload(hub.url, "A", first, upload_body(sim, "A", 1, results)).status_code == 200

    # a new secret: the old one opens nothing from now on
    page.click("#clubs button[data-act=secret]")
    second = _secret(page, first)
    assert second != first
    late = [played("A", 2, "9", "9", "2H", "S", 8, 110)]
    assert post_upload(hub.url, "A", first, upload_body(sim, "A", 2, late)).status_code == 401

    # the release moved to a minute ago (UTC): the page says it is released
    now = datetime.now(UTC) - timedelta(minutes=1)
    page.fill("#move input[name=release]", now.strftime("%Y-%m-%dT%H:%M"))
    page.select_option("#move select[name=zone]", "UTC")
    page.click("#move button")
    page.wait_for_function("document.querySelector('#release strong').textContent === 'Released'")

    # a result first seen after the release is held for the organiser; admitted here, with the reason
    r = post_upload(hub.url, "A", second, upload_body(sim, "A", 2, late))
    assert r.json()["held"] == 1, r.text
    page.wait_for_selector("#held-rows button[data-admit='1']")
    page.fill("#held-reason", "late table, checked by phone")
    page.click("#held-rows button[data-admit='1']")
    page.wait_for_function("document.querySelectorAll('#held-rows tr').length === 0")
    _audit(page, "held result admitted")

    # a correction: board 1, pair 2's 4S went one off; it made, said the club afterwards
    _correct(page, "2", "4S by N making 10", "the club's scorer, by phone")
    with hub.organiser() as org:  # the hub worked out 4S= by N: +420 (Law 77); the ranking within RESCORE_EVERY
        wait_until(lambda: sorted(x["score_ns"] for x in org.get(f"/api/v1/sims/{sim}/results").json()["boards"]["1"])
                   == [420, 420], 10, 0.1, "the corrected result in the field")

    # a club registered by mistake, removed
    page.fill("#register input[name=id]", "B")
    page.fill("#register input[name=name]", "Club B")
    page.click("#register button")
    _secret(page, second)
    page.wait_for_function("document.querySelector('#clubs').textContent.includes('Club B')")
    page.click("#clubs tr:has-text('Club B') button[data-act=remove]")
    page.wait_for_function("!document.querySelector('#clubs').textContent.includes('Club B')")
    for what in ("club registered", "club secret changed", "result corrected", "club removed"):
        _audit(page, what)
    assert _fits(page)
    page.screenshot(path=str(SHOTS / f"hub-desk-sim-{size}.png"), full_page=True)

    page.goto(hub.url + "/organiser")
    assert sim in page.inner_text("#sims") and _fits(page)
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_sim_of_two_sessions_set_up_and_corrected_at_the_desk(hub, browser, size):  # noqa: F811
    """A sim whose hand set is played in an afternoon and an evening session: named at the setup, shown on the
    sim's page, each club's sessions listed, and a correction made to the evening's result, chosen in the form."""
    sim = f"desk-sessions-{size}"
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    page.goto(hub.url + "/organiser")
    page.fill("input[name=password]", PASSWORD)
    page.click("button")
    page.wait_for_url("**/organiser")
    form = page.locator("#create")
    form.locator("input[name=id]").fill(sim)
    form.locator("input[name=name]").fill(f"Sim week ({size})")
    form.locator("input[name=boards]").fill("1-2")
    form.locator("input[name=release]").fill(f"{(datetime.now(UTC) + timedelta(days=1)).date().isoformat()}T21:00")
    form.locator("input[name=sessions]").fill(" aft  eve ")
    form.locator("button").click()
    page.wait_for_url(f"**/organiser/sims/{sim}")
    assert "Played in 2 sessions, one field: aft, eve." in page.inner_text("body")
    page.fill("#register input[name=id]", "A")
    page.fill("#register input[name=name]", "Club A")
    page.click("#register button")
    secret = _secret(page)
    for session, tricks, score in (("aft", 10, 420), ("eve", 9, -50)):
        body = upload_body(sim, "A", 1, [played("A", 1, "1", "1", "4S", "N", tricks, score)])
        body = body.replace(b'"upload"', f'"session": "{session}", "upload"'.encode(), 1)
        assert post_upload(hub.url, "A", secret, body).status_code == 200
    page.wait_for_function("document.querySelector('#clubs').textContent.includes('Club A (aft, eve)')")
    # the evening's 4S went one off on the club's sheet; it made, says the club
    page.select_option("#correct select[name=session]", "eve")
    _correct(page, "1", "4S by N making 10", "the evening's scorer, by phone")
    with hub.organiser() as org:
        wait_until(lambda: sorted((x["session"], x["score_ns"]) for x in
                                  org.get(f"/api/v1/sims/{sim}/results").json()["boards"]["1"])
                   == [("aft", 420), ("eve", 420)], 10, 0.1, "the evening's corrected result in the field")
    page.wait_for_function("document.querySelector('#ranking').textContent.includes('eve A1 NS')")
    assert _fits(page)
    context.close()
