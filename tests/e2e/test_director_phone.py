"""Issue 26 items 2, 8 and 9 in headless Debian chromium at a phone's 390 px and a desktop's 1366 px, on the real
collector (`bidwire serve --event`) fed by signed syncs: the director's page (no sideways scrolling; the Tables note
not clipped inside the scrolling grid; the live stamp on the club's 24-hour clock), /director/pairs (each label
beside its field, no field cut off) and a pair's score card (the opponents' column lined up on a phone).
Screenshots go to build/screenshots/director-*-phone.png and -desktop.png."""
import json
import re
import subprocess
import sys
from pathlib import Path

import httpx2 as httpx
import pytest
from collector_proc import BIDWIRE, Collector, keyring
from test_dashboard import PASSWORD, SHOTS, browser, chromium_installed, log_in  # noqa: F401 (fixtures)

sys.path.insert(0, str(Path(__file__).parents[1] / "host"))  # the signed sync bodies of the host tests
from collector_kit import SECRETS, body, played, sign  # noqa: E402

from bidwire_host.scoring.model import law77_score  # noqa: E402

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}


def _nt(seq, board, a):
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
    return played(seq, board, inputs, "1NT", d, 7, law77_score(board, "1NT", d, 7), section="A", table=a["table"],
                  round=1, ns=a["ns"], ew=a["ew"], event=a["event"])


@pytest.fixture
def desk(tmp_path, monkeypatch):
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", PASSWORD)
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Tuesday Pairs", "--movement",
                    "mitchell", "--tables", "3", "--boards-per-round", "2", "--date", "2026-12-01"], check=True,
                   capture_output=True)
    event = json.loads(event_file.read_text())
    event["time_zone"] = "Europe/London"
    for p in event["sessions"][0]["sections"][0]["pairs"]:
        who = f"{p['line']}{p['number']}"
        p["players"] = [{"name": f"Christopher Featherstonehaugh {who}", "id": f"EBU-{who}"},
                        {"name": f"Marjoribanks {who}"}]
    event_file.write_text(json.dumps(event))
    data = tmp_path / "collector"
    data.mkdir()
    c = Collector(data, keyring(data / "keyring.json", SECRETS), extra=("--event", str(event_file), "--tables",
                                                                        "T01=1,T02=2,T03=3"))
    try:
        a = json.loads(c.rows("SELECT body FROM commands WHERE unit = 'T01' AND type = 'assign'")[0]["body"])
        with httpx.Client(base_url=c.url, timeout=10) as units:
            raw = body(_nt(1, a["boards"][0], a) + _nt(5, a["boards"][1], a), "T01")
            r = units.post("/api/v1/sync", content=raw, headers={"X-Bidwire-Signature": sign(raw, "T01")})
            assert r.status_code == 200, r.text
        [second] = c.rows("SELECT seq FROM results WHERE unit = 'T01' AND board = ?", a["boards"][1])
        r = c.api.post(f"/api/v1/results/T01/{second['seq']}/correct", json={"contract": "3NTX", "tricks": 9,
                                                                            "reason": "entered as 1NT"})
        assert r.status_code == 201, r.text
        yield c
    finally:
        c.stop()


def no_sideways_scrolling(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def inside(page, box):
    return box is not None and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size[
        "width"] + 0.5


@pytest.mark.parametrize("name, viewport", [("phone", PHONE), ("desktop", DESKTOP)])
def test_the_director_s_pages_fit_a_phone_and_a_desktop(desk, browser, name, viewport):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=viewport)
    log_in(page, desk.url)
    page.wait_for_url("**/director")
    page.locator("#live").filter(has_text="updated").wait_for()
    assert re.fullmatch(r"live · updated \d\d:\d\d:\d\d", page.locator("#live").inner_text()), "24-hour club time"
    assert no_sideways_scrolling(page), name
    for note in (page.locator("#grid-note"), page.locator("#audit-note")):  # the captions, outside the scrolling
        assert inside(page, note.bounding_box()) and note.evaluate("e => e.scrollWidth <= e.clientWidth"), name
    assert "Tuesday Pairs · director" in page.locator("header h1").inner_text()
    page.screenshot(path=str(SHOTS / f"director-{name}.png"), full_page=True)

    page.goto(desk.url + "/director/pairs")
    assert no_sideways_scrolling(page), name
    form = page.locator("form.players-fix").first
    fields = form.locator("input:not([type=hidden]):not([type=checkbox])")
    assert fields.count() == 5
    for i in range(fields.count()):
        field = fields.nth(i)
        label = form.locator(f"label[for='{field.get_attribute('id')}']")
        lbox, fbox = label.bounding_box(), field.bounding_box()
        assert inside(page, fbox), (name, i, fbox)  # not cut off
        # beside its field: on its line (vertical centres within the field's height) and just left of it
        assert abs((lbox["y"] + lbox["height"] / 2) - (fbox["y"] + fbox["height"] / 2)) < fbox["height"] / 2, i
        assert 0 <= fbox["x"] - (lbox["x"] + lbox["width"]) < 40, (name, i, lbox, fbox)
    page.screenshot(path=str(SHOTS / f"director-pairs-{name}.png"), full_page=True)

    page.goto(desk.url + "/scorer/pairs/NS/1?section=A")
    assert no_sideways_scrolling(page), name
    opponents = [b["x"] for b in (c.bounding_box() for c in page.locator("table.scorecard td.c-opp").all())]
    assert len(opponents) == 2 and max(opponents) - min(opponents) < 1, (name, opponents)
    assert re.search(r"3NTX\s+corrected", page.locator("table.scorecard").inner_text()), name
    page.screenshot(path=str(SHOTS / f"scorer-card-{name}.png"), full_page=True)
