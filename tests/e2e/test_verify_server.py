"""`bidwire verify` finds what a person with sqlite3 can do to a stopped store (issue 24, item 4; docs/security.md):
a result inserted with no batch, a batch deleted with its events, one unit's events copied under another unit's
id, an event's unit, type or board column changed; and a unit's secret rotated with `bidwire provision --force` is
no false alarm (the keyring keeps the old secret with the dates it was in force)."""
import hashlib
import hmac
import json
import shutil
import sqlite3
import subprocess

import httpx2 as httpx
import pytest
from collector_proc import BIDWIRE, Collector

NOT_COVERED = "not checked: the director's and scorer's decisions"


def provision(tmp, unit, force=False):
    """`bidwire provision` as an operator runs it: the unit's secret (hex) from the config file it writes."""
    out = tmp / "units" / f"{unit}.json"
    out.parent.mkdir(exist_ok=True)
    args = [str(BIDWIRE), "provision", "--unit", unit, "--collector", "http://127.0.0.1:1", "--out", str(out),
            "--keyring", str(tmp / "units" / "keyring.json")] + (["--force"] if force else [])
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())["secret"]


def sync(c, unit, secret, events, boot=1):
    raw = json.dumps({"unit": unit, "boot": boot, "cmd_ack": 0, "events": events}).encode()
    sig = hmac.new(bytes.fromhex(secret), raw, hashlib.sha256).hexdigest()
    return httpx.post(c.url + "/api/v1/sync", content=raw, timeout=10,
                      headers={"X-Bidwire-Signature": sig, "Content-Type": "application/json"})


def note(seq, text="hello"):
    return {"seq": seq, "type": "note", "text": text}


def verify(data, keyring):
    return subprocess.run([str(BIDWIRE), "verify", "--data", str(data), "--keyring", str(keyring)],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A stopped store: T01 synced notes 1-2, then 3-4, then 5; T02 synced notes 1-2. Returns (data, keyring)."""
    tmp = tmp_path_factory.mktemp("verify")
    secrets = {u: provision(tmp, u) for u in ("T01", "T02")}
    (tmp / "data").mkdir()
    c = Collector(tmp / "data", tmp / "units" / "keyring.json", 0)
    try:
        for events in ([note(1), note(2)], [note(3), note(4)], [note(5)]):
            assert sync(c, "T01", secrets["T01"], events).status_code == 200
        assert sync(c, "T02", secrets["T02"], [note(1), note(2)]).status_code == 200
    finally:
        c.stop()
    return tmp / "data", tmp / "units" / "keyring.json"


def tampered(store, tmp_path, *sql):
    """A copy of the stopped store with `sql` run on it, the immutability triggers dropped first (they stop the
    program, not a person with sqlite3)."""
    data = tmp_path / "data"
    shutil.copytree(store[0], data)
    db = sqlite3.connect(data / "bidwire.sqlite3")
    for trigger in ("events_immutable_update", "events_immutable_delete", "batches_immutable_delete"):
        db.execute(f"DROP TRIGGER {trigger}")
    for statement in sql:
        db.execute(statement)
    db.commit()
    db.close()
    return data


def test_an_untouched_store_verifies_and_says_what_it_does_not_cover(store):
    done = verify(*store)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7 events in 4 signed batches: 0 problems" in done.stdout
    assert NOT_COVERED in done.stdout


def test_a_result_inserted_with_no_batch_is_named(store, tmp_path):
    forged = json.dumps({"seq": 6, "type": "result", "board": 1, "contract": "7NT", "declarer": "N", "tricks": 13})
    data = tampered(store, tmp_path, "INSERT INTO events (unit, seq, type, board, boot, received, body, batch) "
                                     f"VALUES ('T01', 6, 'result', 1, 1, '2026-12-03T10:00:00.000+00:00', '{forged}', "
                                     "NULL)")
    done = verify(data, store[1])
    assert done.returncode == 1
    assert "problem: event 6 of unit T01: stored without a batch" in done.stderr, done.stderr


def test_a_batch_deleted_with_its_events_is_named(store, tmp_path):
    # T01's second batch (notes 3 and 4) is the store's batch 2
    data = tampered(store, tmp_path, "DELETE FROM events WHERE unit = 'T01' AND seq IN (3, 4)",
                    "DELETE FROM batches WHERE id = 2")
    done = verify(data, store[1])
    assert done.returncode == 1
    assert "problem: unit T01: seqs 3-4 are missing" in done.stderr, done.stderr
    assert "problem: batches 2-2 are missing" in done.stderr


def test_one_units_events_copied_under_another_units_id_are_named(store, tmp_path):
    # T01's notes 3-5 copied as T02's 3-5: the same bodies, the same batches
    data = tampered(store, tmp_path, "INSERT INTO events (unit, seq, type, board, boot, received, body, batch) "
                                     "SELECT 'T02', seq, type, board, boot, received, body, batch FROM events "
                                     "WHERE unit = 'T01' AND seq >= 3")
    done = verify(data, store[1])
    assert done.returncode == 1
    for seq in (3, 4, 5):
        assert f"problem: event {seq} of unit T02: stored as unit T02's, but its batch" in done.stderr, done.stderr


@pytest.mark.parametrize("column, value", [("unit", "'T02'"), ("type", "'result'"), ("board", "7")])
def test_an_events_unit_type_or_board_changed_is_named(store, tmp_path, column, value):
    # T01's note 5 changed in one column; T02's seq 5 does not exist, so the unit change adds no other clash
    data = tampered(store, tmp_path, f"UPDATE events SET {column} = {value} WHERE unit = 'T01' AND seq = 5")
    done = verify(data, store[1])
    assert done.returncode == 1
    unit = "T02" if column == "unit" else "T01"
    assert f"problem: event 5 of unit {unit}: stored as" in done.stderr, done.stderr


def test_a_rotated_secret_is_no_false_alarm_but_the_old_one_after_rotation_is(tmp_path):
    old = provision(tmp_path, "T01")
    (tmp_path / "data").mkdir()
    c = Collector(tmp_path / "data", tmp_path / "units" / "keyring.json", 0)
    try:
        assert sync(c, "T01", old, [note(1), note(2)]).status_code == 200
        new = provision(tmp_path, "T01", force=True)  # the unit is given a new secret mid-session
        assert new != old
        for _ in range(200):  # the collector reads the keyring again when it changes
            if sync(c, "T01", new, [note(3)]).status_code == 200:
                break
        else:
            pytest.fail("the collector never took the new secret")
        assert sync(c, "T01", old, [note(4)]).status_code == 401  # the old secret no longer syncs
    finally:
        c.stop()
    keyring = tmp_path / "units" / "keyring.json"
    done = verify(tmp_path / "data", keyring)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 events in 2 signed batches: 0 problems" in done.stdout
    # a batch forged after the rotation with the leaked old secret, put in the store by hand
    raw = json.dumps({"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [note(4, "forged")]}).encode()
    sig = hmac.new(bytes.fromhex(old), raw, hashlib.sha256).hexdigest()
    db = sqlite3.connect(tmp_path / "data" / "bidwire.sqlite3")
    [[received]] = db.execute("SELECT max(received) FROM events").fetchall()
    batch = db.execute("INSERT INTO batches (unit, received, signature, body) VALUES ('T01', ?, ?, ?)",
                       (received, sig, raw)).lastrowid
    db.execute("INSERT INTO events (unit, seq, type, board, boot, received, body, batch) VALUES "
               "('T01', 4, 'note', NULL, 1, ?, ?, ?)", (received, json.dumps(note(4, "forged")), batch))
    db.commit()
    db.close()
    done = verify(tmp_path / "data", keyring)
    assert done.returncode == 1
    assert f"problem: batch {batch} of unit T01: received {received}, but signed with the key in force from" \
        in done.stderr, done.stderr
