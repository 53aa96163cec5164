"""Sequence numbers and liveness on the real server (issue 12 items 4 and 5; docs/security.md): a stored seq sent
again with other content is refused (409) and kept for the director, both versions; seqs are 1 to 2^32-1; a gap in
a unit's seqs is an alert; every stored event can be checked later against the batch its unit signed
(`bidwire verify`); a replayed body does not make a dead unit look alive."""
import hashlib
import hmac
import json
import subprocess
import time

import httpx2 as httpx
import pytest
from collector_proc import Collector, keyring, rows
from waiting import wait_until

SECRET = "7e" * 32
BIDWIRE = __import__("pathlib").Path(__file__).parents[2] / ".venv" / "bin" / "bidwire"


def signed(events, boot=1, beat=None, cmd_ack=0, unit="T01"):
    body = {"unit": unit, "boot": boot, "cmd_ack": cmd_ack, "events": events}
    if beat is not None:
        body["beat"] = beat
    raw = json.dumps(body).encode()
    return raw, {"X-Bidwire-Signature": hmac.new(bytes.fromhex(SECRET), raw, hashlib.sha256).hexdigest(),
                 "Content-Type": "application/json"}


def note(seq, text="hello"):
    return {"seq": seq, "type": "note", "text": text}


@pytest.fixture
def collector(tmp_path):
    c = Collector(tmp_path, keyring(tmp_path / "keyring.json", {"T01": SECRET}), 0)
    yield c
    c.stop()


def post(c, events, **kw):
    raw, headers = signed(events, **kw)
    return httpx.post(c.url + "/api/v1/sync", content=raw, headers=headers, timeout=10)


def test_a_stored_seq_sent_again_with_other_content_is_refused_and_kept_for_the_director(collector):
    assert post(collector, [note(1), note(2, "first version")]).json()["ack"] == 2
    assert post(collector, [note(2, "first version")]).status_code == 200  # the same event again: a retry, fine
    r = post(collector, [note(2, "other content"), note(3)])
    assert r.status_code == 409 and "stored with other content" in r.json()["error"]
    assert [json.loads(x["body"])["text"] for x in rows(collector.data, "SELECT body FROM events ORDER BY seq")] == \
        ["hello", "first version"]  # nothing of the refused batch, the first version kept
    [conflict] = rows(collector.data, "SELECT seq, stored, sent FROM seq_conflicts")
    assert conflict["seq"] == 2 and "first version" in conflict["stored"] and "other content" in conflict["sent"]
    queue = collector.api.get("/api/v1/queue").json()["alerts"]
    assert [a["kind"] for a in queue] == ["seq_conflict"]


@pytest.mark.parametrize("seq", [2**32, 2**63 - 1])
def test_seqs_beyond_32_bits_are_refused(collector, seq):
    r = post(collector, [note(seq)])
    error = r.json()["error"]
    assert r.status_code == 400 and ("2^32-1" in error or "less than or equal to 4294967295" in error), error
    assert rows(collector.data, "SELECT * FROM events") == []
    assert post(collector, [note(1)]).json()["ack"] == 1  # the unit's later events are stored as ever


def test_the_largest_seq_a_unit_can_hold_is_taken(collector):
    assert post(collector, [note(2**32 - 1)]).json()["ack"] == 2**32 - 1


def test_a_gap_in_a_units_seqs_is_an_alert(collector):
    post(collector, [note(1), note(2)])
    post(collector, [note(7)])  # 3-6 never arrived (a store that lost its WAL)
    [alert] = rows(collector.data, "SELECT kind, detail FROM alerts")
    assert alert["kind"] == "seq_gap" and "events 3-6 never arrived" in alert["detail"]


def test_bidwire_verify_checks_every_stored_event_against_its_signed_batch(collector, tmp_path):
    post(collector, [note(1), note(2)])
    post(collector, [note(3, "x")])
    collector.stop()
    ok = subprocess.run([str(BIDWIRE), "verify", "--data", str(tmp_path)], capture_output=True, text=True)
    assert ok.returncode == 0 and "3 events in 2 signed batches: 0 problems" in ok.stdout, ok.stdout + ok.stderr
    # an event altered in the store after the fact (the triggers stop the program, not a person with sqlite3)
    import sqlite3
    db = sqlite3.connect(tmp_path / "bidwire.sqlite3")
    db.execute("DROP TRIGGER events_immutable_update")
    db.execute("UPDATE events SET body = ? WHERE seq = 2", (json.dumps(note(2, "forged")),))
    db.commit()
    db.close()
    bad = subprocess.run([str(BIDWIRE), "verify", "--data", str(tmp_path)], capture_output=True, text=True)
    assert bad.returncode == 1 and "event 2 of unit T01: the stored event differs from what the unit signed" \
        in bad.stderr, bad.stdout + bad.stderr


def test_a_replayed_body_does_not_make_a_dead_unit_look_alive(collector):
    assert post(collector, [note(1)], beat=1).status_code == 200
    collector.api.post("/api/v1/units/T01/commands", json={"type": "message", "text": "to table 1"})
    seen = collector.api.get("/api/v1/units").json()["units"][0]["last_seen"]
    time.sleep(0.05)
    replay = post(collector, [note(1)], beat=1)  # the same body again, later (captured on the Wi-Fi)
    assert replay.status_code == 200 and replay.json()["ack"] == 1
    unit = collector.api.get("/api/v1/units").json()["units"][0]
    assert unit["last_seen"] == seen and unit["duplicates"] == 1
    heartbeat = post(collector, [], beat=2)  # the unit's own next sync: its count moved
    assert [c["text"] for c in heartbeat.json()["commands"]] == ["to table 1"]
    assert collector.api.get("/api/v1/units").json()["units"][0]["last_seen"] > seen


def test_the_units_own_syncs_carry_a_count_that_moves(tmp_path):
    """The firmware's sync body (firmware/bidwire/unit/sync.py) numbers its syncs within a boot: its heartbeats
    refresh its liveness; nothing else can."""
    from vunit import SECRET as VSECRET
    from vunit import VUnit, write_config
    c = Collector(tmp_path, keyring(tmp_path / "keyring.json", {"T01": VSECRET}), 0)
    unit = VUnit(write_config(tmp_path / "T01.json", tmp_path / "state", c.url, unit="T01"))
    try:
        unit.write("sync 10000")  # the hello goes out (the script goes on without waiting: poll the store)
        first = wait_until(lambda: rows(c.data, "SELECT beat, last_seen FROM unit_sync"))[0]
        time.sleep(1.5)  # a few heartbeats (every 300 ms in this config)
        later = rows(c.data, "SELECT beat, last_seen FROM unit_sync")[0]
        assert first["beat"] >= 1 and later["beat"] > first["beat"] and later["last_seen"] > first["last_seen"]
    finally:
        unit.finish()
        c.stop()


def test_calls_beyond_what_a_board_can_hold_are_refused(collector):
    """Issue 12 item 6: a board's call events are bounded by what an auction can hold (the core's MAX_INPUTS,
    and the alerts and refused presses beside them); a flood is refused with the reason, nothing of it stored."""
    from bidwire.core.auction import MAX_INPUTS
    from bidwire_host.collector.ingest import CALLS_PER_BOARD
    assert CALLS_PER_BOARD == 4 * MAX_INPUTS
    start = {"seq": 1, "type": "board_start", "board": 1, "dealer": "N", "vul": "None", "mode": "record", "t": 1}

    def call(seq):
        return {"seq": seq, "type": "call", "board": 1, "input": "N:P", "seat": "N", "verdict": "refused",
                "law": 0, "alert": False, "t": 1}
    seq = 2
    assert post(collector, [start]).status_code == 200
    while seq < CALLS_PER_BOARD + 2:  # exactly what a board may hold: taken
        batch = [call(s) for s in range(seq, min(seq + 400, CALLS_PER_BOARD + 2))]
        assert post(collector, batch).status_code == 200
        seq += len(batch)
    r = post(collector, [call(seq), call(seq + 1)])
    assert r.status_code == 409 and f"at most {CALLS_PER_BOARD}" in r.json()["error"]
    stored = rows(collector.data, "SELECT count(*) AS n FROM events WHERE type = 'call'")[0]["n"]
    assert stored == CALLS_PER_BOARD
    start2 = dict(start, seq=seq, board=2)
    assert post(collector, [start2]).status_code == 200  # the next board starts afresh
