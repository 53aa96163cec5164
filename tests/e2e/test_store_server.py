"""The store of the real `bidwire serve` (issue 12, items 7 and 8): Ctrl-C or TERM leaves every commit in the main
file and exits 0; a damaged store (a scribbled page, an empty file) is refused at start with a message naming the
file and how to restore it; /healthz says 503 with the reason while the store cannot commit (a full disk), and ok
again once it can; `bidwire backup` makes a consistent copy while units sync, and `bidwire restore` puts it back.
Each time, what was acknowledged before is all there, unchanged."""
import hashlib
import hmac
import json
import resource
import shutil
import signal
import sqlite3
import subprocess
import threading

import httpx2 as httpx
import pytest
from collector_proc import BIDWIRE, Collector, keyring, rows

UNITS = {"T01": "3c" * 32, "T02": "d1" * 32}
EVENTS = "SELECT unit, seq, type, board, boot, body FROM events ORDER BY unit, seq"


def signed(unit, events, boot=1):
    raw = json.dumps({"unit": unit, "boot": boot, "cmd_ack": 0, "events": events}).encode()
    sig = hmac.new(bytes.fromhex(UNITS[unit]), raw, hashlib.sha256).hexdigest()
    return raw, {"X-Bidwire-Signature": sig, "Content-Type": "application/json"}


def hello(seq):
    return {"seq": seq, "type": "hello", "boot": 1, "backlog": 0, "firmware": "bidwire-unit 0.3", "board": "unix_sim",
            "battery": 90, "rssi": -50, "t": 1000 + seq}


def sync(url, unit, seqs):
    raw, headers = signed(unit, [hello(s) for s in seqs])
    return httpx.post(url + "/api/v1/sync", content=raw, headers=headers, timeout=10)


def synced(collector, unit, seqs):
    r = sync(collector.url, unit, seqs)
    assert r.status_code == 200 and r.json()["ack"] == seqs[-1], r.text


def serve_refused(data):
    """`bidwire serve` on data, which must refuse to start: its exit status and what it said."""
    proc = subprocess.run([str(BIDWIRE), "serve", "--data", str(data), "--keyring", str(data / "keyring.json"),
                           "--port", "0"], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "bidwire collector on" not in proc.stdout, proc.stdout
    return proc.stderr


def run_cli(*args):
    proc = subprocess.run([str(BIDWIRE), *map(str, args)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture
def data(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    keyring(d / "keyring.json", UNITS)
    return d


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_and_term_checkpoint_the_wal_and_exit_0(data, tmp_path, sig):
    collector = Collector(data, data / "keyring.json")
    try:
        for n in range(1, 21):
            synced(collector, "T01" if n % 2 else "T02", [n])
        acknowledged = collector.rows(EVENTS)
        assert len(acknowledged) == 20
        collector.proc.send_signal(sig)
        assert collector.proc.wait(30) == 0
    finally:
        collector.stop()
    assert f"stopped ({sig.name}): {data / 'bidwire.sqlite3'} holds every commit" in collector.stdout_text
    wal = data / "bidwire.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    alone = tmp_path / "copied-alone"  # the main file by itself, as a naive backup would copy it
    alone.mkdir()
    shutil.copy(data / "bidwire.sqlite3", alone / "bidwire.sqlite3")
    assert rows(alone, EVENTS) == acknowledged


def scribble_events_page(path):
    """Overwrite the first page of the events table (its b-tree root) with garbage, as a bad sector would."""
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    [root] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()
    conn.close()
    with open(path, "r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(bytes((i * 37 + 11) % 256 for i in range(page_size)))


def test_a_scribbled_store_is_refused_at_start_and_restored_from_its_backup(data, tmp_path):
    with Collector(data, data / "keyring.json") as collector:
        for n in range(1, 61, 3):
            synced(collector, "T01", [n, n + 1, n + 2])
        acknowledged = collector.rows(EVENTS)
        said = run_cli("backup", "--data", data, tmp_path / "night.sqlite3")
        assert f"to {tmp_path / 'night.sqlite3'}: 60 events" in said
        synced(collector, "T01", [61, 62, 63])  # after the backup: a restore goes back before these
    store = data / "bidwire.sqlite3"
    scribble_events_page(store)
    damaged = store.read_bytes()

    said = serve_refused(data)
    assert f"the store {store} is damaged" in said and f"bidwire restore --data {data} BACKUP" in said, said
    assert store.read_bytes() == damaged  # refused, not "repaired"

    said = run_cli("restore", "--data", data, tmp_path / "night.sqlite3")
    assert "restored" in said and "60 events" in said
    [aside] = data.glob("replaced-*")
    assert (aside / "bidwire.sqlite3").read_bytes() == damaged  # moved aside, not deleted
    with Collector(data, data / "keyring.json") as collector:
        health = httpx.get(collector.url + "/healthz").json()
        assert health["status"] == "ok" and health["events"] == 60
        assert collector.rows(EVENTS) == acknowledged
        synced(collector, "T01", [64])  # the unit goes on; what the restore took back is an alert, not a silence
        [gap] = collector.rows("SELECT kind, detail FROM alerts WHERE kind = 'seq_gap'")
        assert "events 61-63 never arrived" in gap["detail"]


def test_an_empty_file_is_not_a_store(data):
    (data / "bidwire.sqlite3").write_bytes(b"")
    said = serve_refused(data)
    assert f"the store {data / 'bidwire.sqlite3'} is an empty file (0 bytes), not a store" in said, said
    assert "bidwire restore" in said
    assert (data / "bidwire.sqlite3").stat().st_size == 0  # left as it was: no empty store made in its place


def test_healthz_says_503_with_the_reason_while_the_store_cannot_commit(data):
    with Collector(data, data / "keyring.json") as collector:
        synced(collector, "T01", [1, 2, 3])
        assert httpx.get(collector.url + "/healthz").status_code == 200
        acknowledged = collector.rows(EVENTS)
        # the disk fills up: no file of the collector may grow past its size now (the WAL's next frame is beyond)
        wal_size = (data / "bidwire.sqlite3-wal").stat().st_size
        limits = resource.prlimit(collector.proc.pid, resource.RLIMIT_FSIZE)
        resource.prlimit(collector.proc.pid, resource.RLIMIT_FSIZE, (wal_size, limits[1]))
        try:
            r = sync(collector.url, "T01", [4, 5])
            assert r.status_code == 503 and "could not commit" in r.json()["error"], r.text
            health = httpx.get(collector.url + "/healthz")
            assert health.status_code == 503, health.text
            assert health.json()["status"] == "failing"
            assert f"the store {data / 'bidwire.sqlite3'} could not commit" in health.json()["reason"]
            assert httpx.get(collector.url + "/healthz").status_code == 503  # still, while the disk stays full
        finally:
            resource.prlimit(collector.proc.pid, resource.RLIMIT_FSIZE, limits)
        health = httpx.get(collector.url + "/healthz")  # room again: its probe commits
        assert health.status_code == 200 and health.json()["status"] == "ok", health.text
        assert collector.rows(EVENTS) == acknowledged  # the refused batch left nothing behind
        synced(collector, "T01", [4, 5])  # the unit's retry is stored
        assert [r["seq"] for r in collector.rows(EVENTS)] == [1, 2, 3, 4, 5]


def test_a_backup_while_units_sync_is_one_consistent_moment(data, tmp_path):
    with Collector(data, data / "keyring.json") as collector:
        stop, errors, acked = threading.Event(), [], {"T01": 0, "T02": 0}

        def unit(name):  # syncs one event at a time until told to stop
            seq = 0
            while not stop.is_set():
                seq += 1
                r = sync(collector.url, name, [seq])
                if r.status_code != 200:
                    errors.append(r.text)
                    return
                acked[name] = seq

        threads = [threading.Thread(target=unit, args=(u,), daemon=True) for u in UNITS]
        for t in threads:
            t.start()
        try:
            backups = []
            for k in range(3):
                out = tmp_path / f"during-{k}.sqlite3"
                run_cli("backup", "--data", data, out)
                backups.append(out)
        finally:
            stop.set()
            for t in threads:
                t.join(10)
        assert not errors, errors
        final = collector.rows(EVENTS)
        refused = subprocess.run([str(BIDWIRE), "restore", "--data", str(data), str(backups[0])],
                                 capture_output=True, text=True, timeout=60)  # over the running collector's store
        assert refused.returncode == 1 and "is open in another process: stop the collector first" in refused.stderr
        assert collector.rows(EVENTS) == final and not list(data.glob("replaced-*"))
    assert not (tmp_path / "during-0.sqlite3-wal").exists()  # self-contained: one file
    for out in backups:
        conn = sqlite3.connect(out)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.close()
        copy = tmp_path / f"restored-{out.stem}"
        run_cli("restore", "--data", copy, out)
        held = rows(copy, EVENTS)
        for name in UNITS:  # each unit's events a prefix of what it was acknowledged, unchanged
            mine = [r for r in held if r["unit"] == name]
            assert [r["seq"] for r in mine] == list(range(1, len(mine) + 1))
            assert mine == [r for r in final if r["unit"] == name][:len(mine)]
    assert len(rows(tmp_path / "restored-during-2", EVENTS)) > 0 and sum(acked.values()) == len(final)
