"""Issue 39, finding 7, against real `bidwire serve` processes and a real virtual unit (the 32-bit device model): a
signed batch from last week's session, replayed into tonight's fresh store, was acknowledged and put 1NT+6 on
tonight's traveller before that table had played. Each store makes its own event id; every command carries it, the
unit's board_start repeats the one of the assign it plays under, and its sync body the one its cmd_ack counts.

Now the replayed batch is acknowledged (so that a unit carrying it is never stuck retrying it) but its result is
held for the director, naming the other event, and tonight's traveller stays empty; and last week's unit itself,
its flash as it was (a cmd_ack of last week's numbering), gets tonight's assign and plays into tonight's traveller.

The event: bidwire's 3-table Mitchell, 2 boards a round (round 1: table 1 plays boards 1-2, NS 1 v EW 1).
"""
import subprocess
from pathlib import Path

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring
from test_collector_units import board_lines, play, secret, unit_config
from vunit import VUnit, write_config
from waiting import wait_until

BIDWIRE = Path(__file__).parents[2] / ".venv" / "bin" / "bidwire"
UNITS = {1: "T01", 2: "T02", 3: "T03"}


@pytest.fixture
def event_file(tmp_path):
    path = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(path), "--name", "Club pairs", "--movement", "mitchell",
                    "--tables", "3", "--boards-per-round", "2"], check=True, capture_output=True)
    return path


def collector(tmp_path, name, event_file):
    data = tmp_path / name
    data.mkdir()
    ring = keyring(data / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})  # the club's units, every week
    return Collector(data, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3"))


def traveller(c, board):
    return c.api.get(f"/api/v1/travellers/{board}").json()["rows"]


def test_last_weeks_batch_is_held_and_last_weeks_unit_plays_tonight(tmp_path, event_file):
    last_week = collector(tmp_path, "last-week", event_file)
    try:
        unit = VUnit(unit_config(tmp_path, last_week, "T01", 1))  # its flash: tmp_path / "T01-state"
        unit.write("sync 10000")  # the hello; the reply brings round 1's assign (boards 1-2)
        play(unit, board_lines(1, 13))  # 1NT by North, all thirteen tricks: +720
        unit.write("sync 10000")
        wait_until(lambda: traveller(last_week, 1), 30, 0.2, "last week's board 1 scored")
        assert unit.finish() == 0
        batches = last_week.rows("SELECT body, signature FROM batches WHERE unit = 'T01' ORDER BY id")
        [old_event] = {e.get("event") for e in last_week.events("T01") if e["type"] == "board_start"}
    finally:
        last_week.stop()
    assert batches

    tonight = collector(tmp_path, "tonight", event_file)
    try:
        # last week's signed batches, sent again as they were: each acknowledged, nothing lost or refused ...
        for b in batches:
            r = httpx.post(tonight.url + "/api/v1/sync", content=b["body"], timeout=10,
                           headers={"X-Bidwire-Signature": b["signature"], "Content-Type": "application/json"})
            assert r.status_code == 200, r.text
        # ... on no traveller tonight (each acknowledged after its commit), and held for the director, saying why
        assert traveller(tonight, 1) == []
        [held] = tonight.api.get("/api/v1/held").json()["held"]
        assert held["board"] == 1 and any("another event" in why and old_event in why for why in held["held"])

        # last week's unit, its flash as it was, now pointed at tonight's collector: it is not locked out by its
        # old cmd_ack; it takes tonight's assign and its board 1 goes on tonight's traveller
        config = write_config(tmp_path / "T01-tonight.json", tmp_path / "T01-state", tonight.url, unit="T01",
                              secret=secret(1))
        unit = VUnit(config)
        unit.write("sync 10000")
        play(unit, board_lines(1, 8))  # 1NT by North making eight: +120
        unit.write("sync 10000")
        rows = wait_until(lambda: traveller(tonight, 1), 30, 0.2, "tonight's board 1 scored")
        assert [(r["contract"], r["tricks"], r["score_ns"]) for r in rows] == [("1NT", 8, 120)]
        starts = [e for e in tonight.events("T01") if e["type"] == "board_start" and e.get("section")]
        assert starts and {e["event"] for e in starts} - {old_event} and starts[-1]["event"] != old_event
        assert unit.finish() == 0
    finally:
        tonight.stop()
