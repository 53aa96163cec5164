"""Exports carry what people typed (issue 12 item 9) — on the real server: an event whose name breaks lines and
quotes, in a section named like a spreadsheet formula, loaded through the API, a result synced by a unit, then the
PBN and the CSV downloaded over HTTP: the PBN's tag values hold no line break and read back as one game (bidwire's
reader and endplay), every CSV cell that a spreadsheet would run as a formula starts with an apostrophe, and the
scores stay numbers."""
import csv
import hashlib
import hmac
import io
import json
import zipfile

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring

from bidwire_host.event import analysis
from bidwire_host.event import model as ev
from bidwire_host.formats.pbn import parse

SECRET = "7e" * 32
SECTION = "=1+1"  # 4 characters: a section name the event file allows
NAME = 'Club "Spring"\r\n[Board "99"]'


def signed(events):
    raw = json.dumps({"unit": "T01", "boot": 1, "beat": 1, "cmd_ack": 0, "events": events}).encode()
    return raw, {"X-Bidwire-Signature": hmac.new(bytes.fromhex(SECRET), raw, hashlib.sha256).hexdigest()}


@pytest.fixture
def collector(tmp_path):
    c = Collector(tmp_path, keyring(tmp_path / "keyring.json", {"T01": SECRET, "T02": "c4" * 32,
                                                               "T03": "b3" * 32}), 0)
    yield c
    c.stop()


def test_the_collectors_exports_keep_typed_fields_as_data(collector, tmp_path):
    (tmp_path / "hands.pbn").write_text(analysis.deal_session(range(1, 7), seed=9))  # endplay needs a Deal
    event = ev.to_dict(ev.new_event(NAME, {"type": "mitchell", "tables": 3}, boards_per_round=2, section=SECTION))
    r = collector.api.post("/api/v1/event", json={"event": event, "tables": {"T01": [SECTION, 1], "T02": [SECTION, 2],
                                                                             "T03": [SECTION, 3]},
                                                  "hand_records": {event["sessions"][0]["name"]:
                                                                   (tmp_path / "hands.pbn").read_text()}})
    assert r.status_code == 200, r.text
    start = {"seq": 1, "type": "board_start", "board": 1, "section": SECTION, "table": 1, "round": 1, "ns": 1,
             "ew": 1, "dealer": "N", "vul": "None", "mode": "record", "t": 1, "event": collector.store_event()}
    end = {"seq": 2, "type": "auction_end", "board": 1, "inputs": ["N:1N", "E:P", "S:P", "W:P"], "contract": "1NT",
           "declarer": "N", "t": 2}
    res = {"seq": 3, "type": "result", "board": 1, "contract": "1NT", "declarer": "N", "tricks": 7, "score_ns": 90,
           "t": 3}
    raw, headers = signed([start, end, res])
    assert httpx.post(collector.url + "/api/v1/sync", content=raw, headers=headers, timeout=10).status_code == 200
    assert collector.api.get("/api/v1/held").json()["held"] == []  # the event agrees: scored
    for table in (2, 3):  # board 1 done at the other tables too (an export leaves out a board still in play)
        adj = {"section": SECTION, "table": table, "board": 1, "ns": "A", "ew": "A", "reason": "no time"}
        assert collector.api.post("/api/v1/adjustments", json=adj).status_code == 201

    pbn = collector.api.get("/api/v1/export/pbn").text
    for line in pbn.split("\r\n"):
        assert "\r" not in line and "\n" not in line
    assert [g.get("Board") for g in parse(pbn).games] == ["1"]  # no forged Board 99
    from endplay.parsers import pbn as endplay_pbn
    assert [b.board_num for b in endplay_pbn.loads(pbn)] == [1]

    zipped = collector.api.get("/api/v1/export/csv")
    assert zipped.status_code == 200
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as z:
        tables = {name: z.read(name).decode("utf-8") for name in z.namelist()}
    assert tables
    for name, text in tables.items():
        assert text.startswith("\ufeff"), name
        rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))
        assert len({len(r) for r in rows}) == 1, name  # one rectangular table
        cells = [v for row in rows[1:] for v in row]
        assert not [v for v in cells if v.startswith(("=", "+", "@"))], (name, cells)
        if "section" in rows[0]:
            assert {row[rows[0].index("section")] for row in rows[1:]} == {"'" + SECTION}, name
    travellers = next(t for n, t in tables.items() if "traveller" in n)
    [row] = [r for r in csv.DictReader(io.StringIO(travellers.removeprefix("\ufeff"))) if r["table"] == "1"]
    assert row["score_ns"] == "90"  # a number stays a number
