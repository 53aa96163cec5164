"""End to end: a virtual unit (the firmware on MicroPython, its journal, HMAC over loopback) reports how each
irregularity was settled, and the real collector (`bidwire serve`, SQLite) accepts and stores every new event:
`irregularity` with its input index `at` (and `settled: "law"` for Law 39), `settled`, `ruling_applied` with the
`at` it answered, `td_end` (issue 11 item 4, the unit side; docs/unit.md "Irregularities")."""
import json

import pytest
from collector_proc import Collector, keyring, rows
from vunit import SECRET, VUnit, write_config

PIN = ["N TD", "N TD", "N 1", "N 2", "N 3", "N 4"]
SCRIPT = ["N PASS",  # set-up: board 1, dealer N
          "E 1", "E S",  # input 0: E's 1S out of rotation
          "S 2", "S C",  # input 1: S calls over it, accepting it (Law 29 B)
          "W 1", "W C",  # input 2: W's 1C over 2C, insufficient (Law 27)
          *PIN, "N 1",  # the director at the table: 1 reject (input 3)
          "W 2", "W D",  # input 4: W replaces with 2D
          "N PASS", "E PASS", "S PASS",  # inputs 5-7: the auction is over, 2D by W
          "N X",  # input 8: a double after the close, cancelled by Law 39 at once
          *PIN, "N 1"]  # the auction is over, nothing pending: the menu is "1 end call"


@pytest.fixture
def collector(tmp_path):
    c = Collector(tmp_path, keyring(tmp_path / "keyring.json", {"T01": SECRET}), 0)
    yield c
    c.stop()


def test_settlements_reach_the_collector_and_are_stored(tmp_path, collector):
    unit = VUnit(write_config(tmp_path / "T01.json", tmp_path / "T01-state", collector.url))
    for line in SCRIPT:
        n, changed = unit.send(line)
        assert changed, f"script line {line!r} changed nothing (key {n})"
    unit.write("sync 20000")
    assert unit.finish() == 0
    events = [json.loads(r["body"]) for r in rows(collector.data, "SELECT body FROM events WHERE unit = 'T01' "
                                                                   "ORDER BY seq")]
    mine = [e for e in events if e["type"] in ("irregularity", "settled", "ruling_applied", "td_call", "td_end")]
    assert [(e["type"], e.get("at"), e.get("settled") or e.get("how") or e.get("ruling")) for e in mine] == [
        ("irregularity", 0, None), ("settled", 0, "accepted"), ("irregularity", 2, None), ("td_call", None, None),
        ("ruling_applied", 2, "reject"), ("irregularity", 8, "law"), ("td_call", None, None), ("td_end", None, None)]
    assert mine[1]["law"] == 29 and mine[1]["seat"] == "S" and mine[5]["law"] == 39
    auction = [e for e in events if e["type"] == "auction_end"][0]
    assert auction["inputs"][0] == "E:1S" and auction["inputs"][2] == "W:1C"  # the identities, as both sides read
    for i, e in enumerate(events):  # the same number from the live feed: one call/ruling_applied/lead per input,
        if e["type"] == "irregularity":  # the irregular input's own just before the irregularity
            assert e["at"] == sum(1 for x in events[:i] if x["type"] in ("call", "ruling_applied", "lead")) - 1, e
    assert [r["kind"] for r in rows(collector.data, "SELECT kind FROM irregularities ORDER BY seq")] == \
        ["out_of_rotation", "insufficient_bid", "after_close"]
    assert rows(collector.data, "SELECT kind FROM alerts WHERE kind = 'options_mismatch'") == []
