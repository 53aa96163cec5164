"""The director's live page in headless chromium (docs/director.md, "The live page"): it updates in place over
Server-Sent Events pushed by the collector (no polling), so keyboard focus survives other tables' updates; and at
the end of a 12-table `make demo` the queue holds exactly what the demo's summary says is still open.
"""
import os
import re
import signal
import subprocess
import sys
import time

from collector_proc import Collector, keyring
from test_dashboard import PASSWORD, SHOTS, browser, chromium_installed, log_in  # noqa: F401 (fixtures)
from vunit import VUnit, write_config


def test_keyboard_focus_stays_on_a_ruling_button_through_ten_seconds_of_live_updates(tmp_path, monkeypatch,
                                                                                     browser):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", PASSWORD)
    data = tmp_path / "collector"
    data.mkdir()
    secret = "5a" * 32
    c = Collector(data, keyring(data / "keyring.json", {"T01": secret, "T02": secret}))
    units = []
    try:
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        log_in(page, c.url)
        page.wait_for_url("**/director")
        page.locator("#live").filter(has_text="live").wait_for()
        t01 = VUnit(write_config(tmp_path / "T01.json", tmp_path / "T01-state", c.url, unit="T01"))
        units.append(t01)
        for line in ("N PASS", "E 1", "E S"):  # E bids 1S out of rotation: an open alert with its ruling button
            t01.send(line)
        t01.write("sync 10000")
        alert = page.locator("article.alert.open", has_text="out of rotation")
        button = alert.get_by_role("button", name="Not accepted")
        button.wait_for(timeout=15000)
        button.focus()
        page.evaluate("window.__no_reload = true")
        row = page.locator("tr[data-unit=T02]")

        t02 = VUnit(write_config(tmp_path / "T02.json", tmp_path / "T02-state", c.url, unit="T02"))
        units.append(t02)
        t02.send("N PASS")  # board 1 starts; then a bid a second for ten seconds, each synced at once
        seen = set()
        bids = ["N 1", "N C", "E 1", "E D", "S 1", "S H", "W 1", "W S", "N 1", "N NT", "E 2", "E C", "S 2", "S D",
                "W 2", "W H", "N 2", "N S", "E 2", "E NT"]
        end = time.monotonic() + 10
        for i in range(0, len(bids), 2):
            t02.send(bids[i])
            t02.send(bids[i + 1])
            t02.write("sync 2000")
            time.sleep(max(0.0, min(1.0, end - time.monotonic())))
            if row.count():
                seen.add(row.inner_text())
        while time.monotonic() < end:
            time.sleep(0.2)
        assert len(seen) >= 3, seen  # the other table's row really was updated, live, several times
        assert page.evaluate("window.__no_reload") is True
        focused = page.evaluate("() => document.activeElement && document.activeElement.textContent.trim() + '|' "
                                "+ document.activeElement.closest('article').id")
        assert focused.startswith("Not accepted|a-irr-T01-"), focused
        page.screenshot(path=str(SHOTS / "director-live-focus.png"), full_page=True)
    finally:
        for u in units:
            u.finish()
        c.stop()


def test_the_queue_at_the_end_of_a_12_table_demo_agrees_with_its_summary(tmp_path, browser):  # noqa: F811
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    proc = subprocess.Popen([sys.executable, "-m", "bidwire_host.demo.club", "--tables", "12", "--boards", "6",
                             "--port", "0", "--dir", str(tmp_path / "demo")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    out = []
    try:
        deadline = time.monotonic() + 240
        while not any("the collector keeps running at" in line for line in out):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(out) + proc.stderr.read()
            out.append(proc.stdout.readline())
        text = "".join(out)
        url = re.search(r"the collector keeps running at (http://127\.0\.0\.1:\d+)", text).group(1)
        password = re.search(r"login: director / (\S+)", text).group(1)
        still, done = map(int, re.search(r"director alerts: (\d+) open, (\d+) closed", text).groups())
        assert done > 0  # the scripted tables called the director and made irregularities, all settled there
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        log_in(page, url, password)
        page.wait_for_url("**/director")
        page.locator("#live").filter(has_text="live").wait_for()
        assert page.locator("#alerts article.alert.open").count() == still
        assert page.locator("#alerts article.alert:not(.open)").count() == 0  # the queue shows only what is open
        assert (page.locator("#alerts-empty").count() == 1) == (still == 0)
        page.screenshot(path=str(SHOTS / "director-end-of-demo.png"), full_page=True)
        page.goto(url + "/director?state=closed")
        assert page.locator("#alerts article.alert").count() == min(done, 50)
        assert page.locator("#alerts article.alert.open").count() == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
