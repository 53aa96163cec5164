"""The collector as the session's authority on the real server (`bidwire serve`) with real virtual units and, where
the director acts, headless chromium (docs/director.md: held results, the alert lifecycle, idempotent decisions).

The event: bidwire's 3-table Mitchell, 2 boards a round (round 1: table 1 plays boards 1-2, NS 1 v EW 1).
"""
import hashlib
import hmac
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring
from test_collector_units import board_lines, play, secret, unit_config
from test_dashboard import PASSWORD, SHOTS, browser, chromium_installed, log_in  # noqa: F401 (fixtures)
from vunit import VUnit

sys.path.insert(0, str(Path(__file__).parents[1] / "host"))
from collector_kit import played  # noqa: E402

BIDWIRE = __import__("pathlib").Path(__file__).parents[2] / ".venv" / "bin" / "bidwire"
UNITS = {1: "T01", 2: "T02", 3: "T03"}


@pytest.fixture
def mitchell(tmp_path, monkeypatch):
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", PASSWORD)
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Club pairs", "--movement",
                    "mitchell", "--tables", "3", "--boards-per-round", "2"], check=True, capture_output=True)
    data = tmp_path / "collector"
    data.mkdir()
    ring = keyring(data / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
    c = Collector(data, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3"))
    yield c
    c.stop()


def staff_client(url):
    """A logged-in director (httpx): the session cookie and its CSRF token."""
    client = httpx.Client(base_url=url, timeout=10)
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"password": PASSWORD, "csrf": token}).status_code == 303
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/director").text).group(1)
    return client, csrf


def wait_for(check, timeout=20, what="condition"):
    deadline = time.monotonic() + timeout
    while True:
        out = check()
        if out:
            return out
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_a_result_after_publication_is_held_and_the_director_accepts_it_from_the_page(tmp_path, mitchell, browser):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    unit = VUnit(unit_config(tmp_path, mitchell, "T01", 1))
    try:
        unit.write("sync 10000")  # the hello; the reply brings round 1's assign (boards 1-2)
        play(unit, board_lines(1, 7))
        unit.write("sync 10000")
        wait_for(lambda: mitchell.api.get("/api/v1/travellers/1").json()["rows"], what="board 1 scored")
        # published early, with the director's override (boards still in play stay off the public pages)
        r = mitchell.api.post("/api/v1/publish", json={"minutes": 30, "override": True, "by": "TD"})
        assert r.status_code == 201
        traveller = mitchell.api.get("/api/v1/travellers/1").json()["rows"]

        play(unit, board_lines(2, 8))  # board 2, still to be played at publication: scored, so the round goes on
        unit.write("sync 10000")
        wait_for(lambda: mitchell.api.get("/api/v1/travellers/2").json()["rows"], what="board 2 scored")
        unit.finish()  # the round is played; board 1 is then reported again (a replay), as a unit would send it
        unit = None
        [[last]] = [list(r.values()) for r in mitchell.rows("SELECT max(seq) FROM events WHERE unit = 'T01'")]
        events = played(last + 1, 1, ["N:1N", "E:P", "S:P", "W:P"], "1NT", "N", 8, 120, section="A", table=1,
                        round=1, ns=1, ew=1)
        raw = json.dumps({"unit": "T01", "boot": 99, "cmd_ack": 0, "events": events}).encode()
        sig = hmac.new(bytes.fromhex(secret(1)), raw, hashlib.sha256).hexdigest()
        r = httpx.post(mitchell.url + "/api/v1/sync", content=raw, timeout=10,
                       headers={"X-Bidwire-Signature": sig, "Content-Type": "application/json"})
        assert r.status_code == 200, r.text
        [h] = wait_for(lambda: mitchell.api.get("/api/v1/held").json()["held"], what="the held result")
        assert any("published" in why for why in h["held"])
        assert mitchell.api.get("/api/v1/travellers/1").json()["rows"] == traveller  # published results did not move

        page = browser.new_page(viewport={"width": 1024, "height": 900})
        log_in(page, mitchell.url)
        page.wait_for_url("**/director")
        alert = page.locator("article.alert.open", has_text="held result")
        alert.wait_for()
        page.screenshot(path=str(SHOTS / "director-held-result.png"), full_page=True)
        alert.get_by_label("Reason").fill("late table, played in time")
        alert.get_by_role("button", name="Accept as played").click()
        page.wait_for_url("**/director?done=held*")
        assert page.locator("article.alert.open", has_text="held result").count() == 0
        [row] = mitchell.api.get("/api/v1/travellers/1").json()["rows"]
        assert (row["table"], row["tricks"]) == (1, 8)  # the replay accepted: it replaces the first result
        [action] = mitchell.rows("SELECT kind, by_whom FROM director_actions WHERE kind = 'resolve'")
        assert action["by_whom"] == "director"
    finally:
        if unit is not None:
            unit.finish()


def test_a_ruling_for_a_settled_irregularity_is_refused_and_the_later_one_is_untouched(tmp_path, mitchell):
    unit = VUnit(unit_config(tmp_path, mitchell, "T01", 1))
    try:
        unit.write("sync 10000")  # round 1's assign: board 1, dealer N
        # E bids 1C out of rotation (Law 31); S, entitled, accepts it by calling 1H over it (settled at the table);
        # then W bids 1D, insufficient over 1H (Law 27): pending
        for line in ("E 1", "E C", "S 1", "S H", "W 1", "W D"):
            unit.send(line)
        unit.write("sync 10000")
        first, second = wait_for(lambda: (lambda r: r if len(r) == 2 else None)(
            mitchell.rows("SELECT seq, kind, state FROM irregularities ORDER BY seq")), what="two irregularities")
        assert (first["kind"], first["state"]) == ("out_of_rotation", "settled")
        assert (second["kind"], second["state"]) == ("insufficient_bid", "open")
        assert unit.frame()[0].startswith("IRREGULAR")

        old = mitchell.api.post("/api/v1/rulings", json={"unit": "T01", "seq": first["seq"], "ruling": "reject"})
        assert old.status_code == 409 and "no longer open" in old.json()["error"]
        director, csrf = staff_client(mitchell.url)  # the page's form says the same, with the reason shown
        page = director.post("/director/rulings", data={"csrf": csrf, "unit": "T01", "seq": str(first["seq"]),
                                                         "ruling": "reject", "idem": "r-1"})
        assert page.status_code == 409 and "no longer open" in page.text

        unit.write("sync 3000")
        assert unit.frame()[0].startswith("IRREGULAR")  # the later irregularity is still pending at the table
        assert mitchell.rows("SELECT * FROM rulings") == []
        assert mitchell.rows("SELECT state FROM irregularities WHERE seq = ?", second["seq"]) == [{"state": "open"}]
        assert mitchell.rows("SELECT * FROM commands WHERE type = 'ruling'") == []
    finally:
        unit.finish()


def test_a_decision_sent_twice_is_recorded_once(mitchell):
    director, csrf = staff_client(mitchell.url)
    form = {"csrf": csrf, "idem": "adjust-1", "table": "1", "board": "1", "kind": "artificial", "ns": "A+",
            "ew": "A-", "reason": "fouled board"}
    first = director.post("/director/adjust", data=form)
    again = director.post("/director/adjust", data=form)  # the answer was lost: the browser sends it again
    assert first.status_code == again.status_code == 303
    assert len(mitchell.rows("SELECT * FROM director_actions")) == 1
    api = dict(table=1, board=2, ns="A", ew="A", reason="late")
    for _ in range(2):
        r = mitchell.api.post("/api/v1/adjustments", json=api, headers={"Idempotency-Key": "api-7"})
        assert r.status_code == 201
    assert len(mitchell.rows("SELECT * FROM director_actions")) == 2


def test_the_event_loop_is_never_held_up_while_units_sync_and_pages_watch(tmp_path, mitchell):
    """Everything blocking runs in worker threads: no store read is made on the event loop's thread (the store
    counts them, /healthz `reads_on_loop`) while three units play their round, a live stream watches and the
    director decides. Counted, not timed: how long the loop is held up is make bench's (collector_live.py)."""
    director, csrf = staff_client(mitchell.url)
    with director.stream("GET", "/director/events", timeout=30) as stream:
        units = [VUnit(unit_config(tmp_path, mitchell, UNITS[t], t)) for t in UNITS]
        try:
            for u in units:
                u.write("sync 10000")
            for t, u in zip(UNITS, units, strict=True):
                first = {1: 1, 2: 3, 3: 5}[t]
                play(u, board_lines(first, 7) + board_lines(first + 1, 8))
                u.write("sync 10000")
            mitchell.api.post("/api/v1/adjustments", json=dict(table=2, board=3, ns="A", ew="A", reason="x"))
        finally:
            for u in units:
                u.finish()
        assert stream.status_code == 200
    health = mitchell.api.get("/healthz").json()
    assert health["events"] > 30 and health["reads_on_loop"] == 0, health
