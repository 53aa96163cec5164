"""End to end in a browser (issue 5): the director's dashboard on the real collector (`bidwire serve`) with a real
virtual unit, driven by Playwright in headless Debian chromium (/usr/bin/chromium, installed by .ci/run).

- the director logs in; a call out of rotation made at the table (Law 31) appears on the page live, without a
  reload; the director rejects it from the page; the unit applies the ruling on its next sync (its screen
  shows the auction again) and the page shows the outcome;
- a wrong password and a POST without its CSRF token are refused; the sync endpoint takes no browser session.
- logging out in one tab ends the live stream of another tab's page, which says it is signed out (issue 12).
Screenshots go to build/screenshots/.
"""
import re
from pathlib import Path

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring
from vunit import SECRET, VUnit, write_config

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(__file__).parents[2] / "build" / "screenshots"
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True, scope="module")
def chromium_installed():
    assert CHROMIUM.exists(), "the browser tests need Debian's chromium: `make test` installs it (make chromium)"


@pytest.fixture
def collector(tmp_path, monkeypatch):
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", PASSWORD)  # inherited by `bidwire serve`
    data = tmp_path / "collector"
    data.mkdir()
    c = Collector(data, keyring(data / "keyring.json", {"T01": SECRET}))
    yield c
    c.stop()


@pytest.fixture
def browser():
    from playwright import sync_api
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield b
        b.close()


def log_in(page, url, password=PASSWORD, role=None):
    page.goto(url + "/login")
    if role is not None:  # the page asks only when both roles have a password; director is chosen first
        page.get_by_label("Sign in as").select_option(role)
    page.get_by_label("Password (director or scorer)").fill(password)
    page.get_by_role("button", name="Sign in").click()


def test_the_director_rules_on_a_call_out_of_rotation_from_the_page(tmp_path, collector, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1024, "height": 768})  # a tablet
    log_in(page, collector.url)
    page.wait_for_url("**/director")
    page.locator("#live").filter(has_text="live").wait_for()  # the event stream is connected
    page.screenshot(path=str(SHOTS / "director-empty.png"), full_page=True)
    page.evaluate("window.__no_reload = true")  # gone if the page reloads

    unit = VUnit(write_config(tmp_path / "T01.json", tmp_path / "T01-state", collector.url, unit="T01"))
    try:
        for line in ("N PASS", "E 1", "E S"):  # set-up (board 1, dealer N); E bids 1S out of rotation
            unit.send(line)
        assert unit.frame()[0].startswith("IRREGULAR L31")
        unit.write("sync 10000")

        alert = page.locator("article.alert.open", has_text="out of rotation")
        alert.wait_for(timeout=15000)  # live, over Server-Sent Events
        assert page.evaluate("window.__no_reload") is True
        assert "Law 31" in alert.inner_text() and "Offender E: 1S" in alert.inner_text()
        assert page.locator("tr[data-unit=T01] .phase").inner_text() == "bidding"
        page.screenshot(path=str(SHOTS / "director-alert.png"), full_page=True)

        said = alert.locator(".ruling-option .said").first.inner_text()
        # laws.md §4.9, 31 A: at RHO's turn, N calls; if N passes E repeats 1S, else E's partner W is restricted
        assert "Cancel 1♠: N calls" in said and "E must bid 1♠ again" in said and "Law 31 A" in said, said
        assert "reject" not in alert.inner_text()  # no code word on the page
        alert.get_by_role("button", name="Not accepted", exact=True).click()
        page.wait_for_url("**/director?ruled=T01")
        page.evaluate("window.__no_reload = true")  # the form's answer reloaded the page; from now on, live only
        # queued until the unit's next sync; its heartbeat may fetch and apply it before the page shows "sent"
        page.wait_for_function("() => { const a = document.querySelector('article.alert.open');"
                               " return !a || (a.querySelector('.queued') || {}).textContent"
                               "?.includes('Ruling sent'); }")

        unit.write("sync 2000")
        frame = unit.frame_until(lambda f: not f[0].startswith("IRREGULAR"))
        assert frame[6] == "N to call", frame  # the auction goes on from the dealer: 1S cancelled (Law 31)
        # settled: the alert leaves the open queue by itself (live), and is among the closed ones with its outcome
        page.locator("article.alert.open", has_text="out of rotation").wait_for(state="detached", timeout=15000)
        assert page.evaluate("window.__no_reload") is True
        page.goto(collector.url + "/director?state=closed")
        outcome = page.locator("article.alert", has_text="out of rotation").locator(".outcome")
        assert "ruled: not accepted, applied from the director's page" in outcome.inner_text()
        page.goto(collector.url + "/director")
        audit = page.locator("#audit-table tbody tr").first.inner_text()
        assert "ruling" in audit and "Not accepted" in audit and "Law 31 A" in audit, audit
        page.screenshot(path=str(SHOTS / "director-ruled.png"), full_page=True)
    finally:
        unit.finish()
    rows = collector.rows("SELECT ruling, seat, by_whom FROM rulings WHERE unit = 'T01'")
    assert rows == [{"ruling": "reject", "seat": "E", "by_whom": "collector"}]


def test_a_wrong_password_and_a_post_without_its_csrf_token_are_refused(collector, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page()
    log_in(page, collector.url, "not the password")
    page.get_by_text("Wrong password.").wait_for()
    page.screenshot(path=str(SHOTS / "login-refused.png"))
    assert page.goto(collector.url + "/director").url.endswith("/login")  # no session: back to the login page

    with httpx.Client(base_url=collector.url, timeout=10) as client:
        assert client.post("/login", data={"password": PASSWORD}).status_code == 403  # no CSRF token
        form = client.get("/login")
        token = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
        assert client.post("/login", data={"password": PASSWORD, "csrf": token}).status_code == 303
        director = client.get("/director")
        assert director.status_code == 200 and "Tables" in director.text
        ruling = {"unit": "T01", "seq": "1", "ruling": "reject"}
        assert client.post("/director/rulings", data=ruling).status_code == 403  # session, but no CSRF token
        assert client.post("/logout", data={}).status_code == 403
        # the units' endpoint takes only its HMAC, never the director's session
        sync = client.post("/api/v1/sync", json={"unit": "T01", "boot": 1, "cmd_ack": 0, "events": []})
        assert sync.status_code == 401
    assert collector.rows("SELECT count(*) AS n FROM commands") == [{"n": 0}]


def test_logging_out_in_one_tab_signs_out_the_live_page_in_another(collector, browser):
    """Logout ends the session (issue 12): the other tab's live stream is ended and its page says so; a reload
    goes to the login page."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    watching, leaving = context.new_page(), context.new_page()
    log_in(watching, collector.url)
    watching.wait_for_url("**/director")
    watching.locator("#live").filter(has_text="live").wait_for()
    leaving.goto(collector.url + "/director")
    leaving.get_by_role("button", name="Log out").click()
    leaving.wait_for_url("**/login")
    watching.locator("#live").filter(has_text="signed out").wait_for(timeout=5000)  # its stream's tick is 15 s
    assert watching.get_by_role("link", name="log in again").get_attribute("href") == "/login"
    watching.reload()
    assert watching.url.endswith("/login")
    context.close()


def test_declarers_law_26_choice_from_the_page_reaches_the_leaders_screen(tmp_path, collector, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    log_in(page, collector.url)
    page.wait_for_url("**/director")
    page.locator("#live").filter(has_text="live").wait_for()
    unit = VUnit(write_config(tmp_path / "T01.json", tmp_path / "T01-state", collector.url, unit="T01"))
    try:
        # board 1, dealer N: S's 1H out of rotation rejected at the table (N passes throughout); 1S by W, N leads
        for line in ("N PASS", "S 1", "S H", "W TD", "W TD", "W 1", "W 2", "W 3", "W 4", "W 1", "N PASS", "E PASS",
                     "S PASS", "W 1", "W S", "N PASS", "E PASS", "S PASS"):
            unit.send(line)
        assert unit.frame()[6] == "N: lead suit"
        unit.write("sync 10000")
        alert = page.locator("article.alert.open", has_text="lead restriction")
        alert.wait_for(timeout=15000)
        form = alert.locator("form.lead-choice")
        assert [b.inner_text() for b in form.get_by_role("button").all()] == ["require ♥", "bar ♥", "waive"]
        page.screenshot(path=str(SHOTS / "director-law26.png"), full_page=True)
        form.get_by_role("button", name="bar ♥").click()
        page.wait_for_url("**/director?done=lead*")
        unit.write("sync 2000")
        frame = unit.frame_until(lambda f: f[6] == "N: lead, not H")
        assert frame[4] == "L26 W bars H"
        page.locator("article.alert.open", has_text="lead restriction").wait_for(state="detached", timeout=15000)
        page.goto(collector.url + "/director?state=closed")
        outcome = page.locator("article.alert", has_text="lead restriction").locator(".outcome")
        assert "declarer's choice: N may not lead hearts (shown at the table)" in outcome.inner_text()
        assert "declarer's choice (Law 26)" in page.locator("#audit-table").inner_text()
    finally:
        unit.finish()
