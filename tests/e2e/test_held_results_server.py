"""Held results on the real server (`bidwire serve`) with a real virtual unit (docs/collector.md, "Held results"):
the event decides who played what. Table 1's real unit plays its round as the event has it (scored); the other
tables' claims — other pairs than the movement seats, a round not reached, a board and a section outside the
event — are held: not scored, not counting towards the round, every export still answering; the director accepts
one as played by the movement's pairs and voids another.

The event: bidwire's 3-table Mitchell, 2 boards a round (round 1: table 1 plays boards 1-2, NS 1 v EW 1).
"""
import hashlib
import hmac
import json

import httpx2 as httpx
from test_collector_units import board_lines, play, secret, unit_config
from test_dashboard_scorer import mitchell  # noqa: F401 (fixture: the Mitchell on a real collector)
from vunit import VUnit
from waiting import wait_until


def claim(c, unit, table, events):
    body = {"unit": unit, "boot": 1, "beat": 1, "cmd_ack": 0, "events": events}
    raw = json.dumps(body).encode()
    sig = hmac.new(bytes.fromhex(secret(table)), raw, hashlib.sha256).hexdigest()
    return httpx.post(c.url + "/api/v1/sync", content=raw, headers={"X-Bidwire-Signature": sig}, timeout=10)


def one_nt(seq, board, section="A", table=2, round_no=1, ns=2, ew=2):
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    return [{"seq": seq, "type": "board_start", "board": board, "section": section, "table": table,
             "round": round_no, "ns": ns, "ew": ew, "dealer": d, "vul": "None", "mode": "record", "t": 1},
            {"seq": seq + 1, "type": "auction_end", "board": board, "t": 2,
             "inputs": [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]], "contract": "1NT", "declarer": d},
            {"seq": seq + 2, "type": "result", "board": board, "contract": "1NT", "declarer": d, "tricks": 7,
             "score_ns": 90 if d in "NS" else -90, "t": 3}]


def rounds_sent(c, unit):
    return sorted({x["command"]["round"] for x in c.api.get(f"/api/v1/units/{unit}/commands").json()["commands"]
                   if x["command"]["type"] == "assign"})


def test_results_that_differ_from_the_event_are_held_until_the_director_decides(tmp_path, mitchell):  # noqa: F811
    c = mitchell
    unit = VUnit(unit_config(tmp_path, c, "T01", 1))  # table 1 plays its round as the event has it
    try:
        unit.write("sync 10000")
        play(unit, board_lines(1, 7))
        play(unit, board_lines(2, 8))
        unit.write("sync 10000")
        wait_until(lambda: c.api.get("/api/v1/travellers/2").json()["rows"])
    finally:
        unit.finish()
    ranking = c.api.get("/api/v1/ranking").json()["ranking"]
    # table 2's unit names NS 3 / EW 1 on board 3 and NS 2 / EW 3 on board 4 (the movement has NS 2 v EW 2)
    assert claim(c, "T02", 2, one_nt(1, 3, ns=3, ew=1) + one_nt(4, 4, ns=2, ew=3)).status_code == 200
    # a round not reached (table 2, round 2), a board outside the event (7), a section not in it (Z)
    assert claim(c, "T02", 2, one_nt(7, 1, round_no=2, ns=2, ew=1)).status_code == 200
    # (a board outside the unit's own assignment is refused outright, 409: the claim names round 3, never sent)
    assert claim(c, "T02", 2, one_nt(10, 7, round_no=3)).status_code == 200
    assert claim(c, "T03", 3, one_nt(1, 5, section="Z", table=3, ns=3, ew=3)).status_code == 200
    held = c.api.get("/api/v1/held").json()["held"]
    reasons = " | ".join(" ".join(h["held"]) for h in held)
    assert "the unit names NS 3 / EW 1; the movement seats NS 2 / EW 2" in reasons
    assert "round 2 was never sent to unit T02" in reasons and "board 7 is not in the event" in reasons
    assert "section 'Z' is not in the event" in reasons
    assert len(held) == 5
    assert c.api.get("/api/v1/ranking").json()["ranking"] == ranking  # nothing held is scored ...
    assert c.api.get("/api/v1/travellers/3").json()["rows"] == []
    assert rounds_sent(c, "T01") == [1]  # ... or counts towards a round
    for fmt in ("pbn", "usebio", "csv"):  # every export answers: no made-up section to choose between
        assert c.api.get(f"/api/v1/export/{fmt}").status_code == 200, fmt

    # the director: board 3 was really NS 2 v EW 2 (accepted, credited to them); board 4 was not played (void)
    b3, b4 = (next(h for h in held if h["board"] == b and h["unit"] == "T02" and h["round"] == 1) for b in (3, 4))
    r = c.api.post(f"/api/v1/results/T02/{b3['seq']}/resolve",
                   json={"decision": "accept", "ns": 2, "ew": 2, "reason": "numbers entered wrongly", "by": "TD"})
    assert r.status_code == 201, r.text
    [row] = c.api.get("/api/v1/travellers/3").json()["rows"]
    assert (row["table"], row["ns"], row["ew"]) == (2, "2", "2")
    r = c.api.post(f"/api/v1/results/T02/{b4['seq']}/resolve", json={"decision": "void", "reason": "not played"})
    assert r.status_code == 201 and c.api.get("/api/v1/travellers/4").json()["rows"] == []
    assert ("NS", "2") in {(x["direction"], x["pair"]) for x in c.api.get("/api/v1/ranking").json()["ranking"]}
    for fmt in ("pbn", "usebio", "csv"):
        assert c.api.get(f"/api/v1/export/{fmt}").status_code == 200, fmt
