"""A result stored before its deal's analysis is checked when the analysis lands, on the real server (`bidwire serve`,
real HTTP, real SQLite; collector/derive.py check_stored_results). The analysis of the first hand record lands at
start; a table reports board 1 within double dummy of it; then the hand record is found wrong (the cards were
duplimated from another deal), the file corrected and the event loaded again: the new deal's analysis lands after
the result, and the result, now far from double dummy, is flagged for the scorer — once, loading again adds none.
The double-dummy tricks are endplay's calc_dd_table, computed here."""
import hashlib
import hmac
import json
import subprocess

import httpx2 as httpx
from collector_proc import BIDWIRE, Collector, keyring
from test_collector_units import secret
from waiting import wait_until

from bidwire_host.event import analysis
from bidwire_host.formats.pbn_import import load

UNITS = {1: "T01", 2: "T02", 3: "T03"}
TOP = "N:AKQJ.AKQ.AKQ.AKQ 65432.5432..5432 T98.T98.T98.T987 7.J76.J765432.J6"  # North: 13 tricks in notrump


def _nt_north(deal):
    from endplay.dds import calc_dd_table
    from endplay.types import Deal

    return calc_dd_table(Deal(deal)).to_list()[4][0]  # rows S H D C NT, columns N E S W


def _first_deal():
    """A dealt board 1 on which North takes at most 8 tricks in notrump double dummy (13 on TOP: 5 away)."""
    for seed in range(1, 200):
        text = analysis.deal_session([1], seed=seed)
        deal = load(text).hands[1].deal.pbn("N")
        if _nt_north(deal) <= 13 - analysis.SUSPICIOUS_TRICKS - 2:
            return text, deal
    raise AssertionError("no such deal in 200 seeds")


def _post(c, table, events):
    raw = json.dumps({"unit": UNITS[table], "boot": 1, "beat": 1, "cmd_ack": 0, "events": events}).encode()
    sig = hmac.new(bytes.fromhex(secret(table)), raw, hashlib.sha256).hexdigest()
    return httpx.post(c.url + "/api/v1/sync", content=raw, headers={"X-Bidwire-Signature": sig}, timeout=10)


def test_a_result_is_flagged_when_its_deals_analysis_lands_after_it(tmp_path):
    text, deal = _first_deal()
    tricks = _nt_north(deal)
    hands = tmp_path / "hands.pbn"
    hands.write_text(text)
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Club pairs", "--movement",
                    "mitchell", "--tables", "3", "--boards-per-round", "2", "--hand-records", str(hands)],
                   check=True, capture_output=True)
    data = tmp_path / "collector"
    data.mkdir()
    ring = keyring(data / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
    c = Collector(data, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3"))
    try:
        wait_until(lambda: c.rows("SELECT deal FROM analysis WHERE deal = ?", deal))
        events = [{"seq": 1, "type": "board_start", "board": 1, "section": "A", "table": 1, "round": 1, "ns": 1,
                   "ew": 1, "dealer": "N", "vul": "None", "mode": "record", "t": 1, "event": c.store_event()},
                  {"seq": 2, "type": "auction_end", "board": 1, "t": 2, "inputs": ["N:3N", "E:P", "S:P", "W:P"],
                   "contract": "3NT", "declarer": "N"},
                  {"seq": 3, "type": "result", "board": 1, "contract": "3NT", "declarer": "N", "tricks": tricks,
                   "score_ns": 0, "t": 3}]
        assert _post(c, 1, events).status_code == 200
        suspicious = {"kind": "suspicious_result"}
        assert c.api.get("/api/v1/alerts", params=suspicious).json()["alerts"] == []

        hands.write_text(f'[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n[Deal "{TOP}"]\n')  # corrected
        event = json.loads(event_file.read_text())
        session = event["sessions"][0]
        session.pop("hand_records", None)  # the file names its own; a request sends the text (issue 24.3)
        body = {"event": event, "tables": {"T01": 1, "T02": 2, "T03": 3},
                "hand_records": {session["name"]: hands.read_text()}}
        for _ in range(2):  # loaded again, twice: one alert
            assert c.api.post("/api/v1/event", json=body).status_code == 200
            wait_until(lambda: c.rows("SELECT deal FROM analysis WHERE deal = ?", TOP))
            alerts = wait_until(lambda: c.api.get("/api/v1/alerts", params=suspicious).json()["alerts"])
            assert [(a["unit"], a["seq"], a["board"]) for a in alerts] == [("T01", 3, 1)]
            assert f"took {tricks} tricks; double dummy gives {_nt_north(TOP)}" in alerts[0]["detail"]
    finally:
        c.stop()
