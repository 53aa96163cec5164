"""`bidwire restore` checks what it replaces (issue 24, item 9; docs/reliability.md "Backup and restore"): last
week's backup restored over tonight's store is refused, naming both events and the (unit, seq) pairs that would
give tonight's units a 409 on every retry; a backup whose events clash with the store is refused even for the same
event; `--force` restores either and says what it overrode; a backup of earlier tonight is restored as ever."""
import hashlib
import hmac
import json
import sqlite3
import subprocess

import httpx2 as httpx
import pytest
from collector_proc import BIDWIRE, Collector, keyring, rows

UNITS = {"T01": "3c" * 32}
EVENTS = "SELECT unit, seq, body FROM events ORDER BY unit, seq"


def hello(seq, week):
    return {"seq": seq, "type": "hello", "boot": week, "backlog": 0, "firmware": "bidwire-unit 0.3",
            "board": "unix_sim", "battery": 90 - week, "rssi": -50, "t": 1000 * week + seq}


def synced(c, seqs, week):
    raw = json.dumps({"unit": "T01", "boot": week, "cmd_ack": 0, "events": [hello(s, week) for s in seqs]}).encode()
    sig = hmac.new(bytes.fromhex(UNITS["T01"]), raw, hashlib.sha256).hexdigest()
    r = httpx.post(c.url + "/api/v1/sync", content=raw, timeout=10,
                   headers={"X-Bidwire-Signature": sig, "Content-Type": "application/json"})
    assert r.status_code == 200 and r.json()["ack"] == seqs[-1], r.text


def bidwire(*args):
    return subprocess.run([str(BIDWIRE), *map(str, args)], capture_output=True, text=True, timeout=120)


def night(tmp_path, name, date, seqs, week, backup_after=None):
    """A collector's evening: the event of `date` loaded, T01's hellos `seqs` synced (a backup after the first
    `backup_after` of them, if asked), then stopped. Returns the data directory."""
    event = tmp_path / f"{name}.json"
    made = bidwire("event", "create", event, "--name", "Club pairs", "--date", date, "--movement", "mitchell",
                   "--tables", "3", "--boards-per-round", "2")
    assert made.returncode == 0, made.stderr
    data = tmp_path / name
    data.mkdir()
    with Collector(data, keyring(data / "keyring.json", UNITS), 0,
                   extra=("--event", str(event), "--tables", "T01=1")) as c:
        if backup_after:
            synced(c, seqs[:backup_after], week)
            assert bidwire("backup", "--data", data, tmp_path / f"{name}-early.sqlite3").returncode == 0
            synced(c, seqs[backup_after:], week)
        else:
            synced(c, seqs, week)
        assert bidwire("backup", "--data", data, tmp_path / f"{name}.sqlite3").returncode == 0
    return data


@pytest.fixture
def last_week(tmp_path):
    night(tmp_path, "last-week", "2026-11-26", [1, 2, 3, 4, 5], week=1)
    return tmp_path / "last-week.sqlite3"


def test_last_weeks_backup_over_tonights_store_is_refused_unless_forced(tmp_path, last_week):
    tonight = night(tmp_path, "tonight", "2026-12-03", [1, 2, 3], week=2)
    store = tonight / "bidwire.sqlite3"
    before = store.read_bytes()
    done = bidwire("restore", "--data", tonight, last_week)
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()  # one line, saying why
    assert line.startswith("Error: not restored: it is a backup of another event (Club pairs, Session 1, "
                           "2026-11-26) than the store's (Club pairs, Session 1, 2026-12-03)"), line
    assert "3 of its events have the (unit, seq) of an event in the store with other content (T01 seq 1, T01 seq 2, " \
        "T01 seq 3)" in line and "pass --force" in line, line
    assert store.read_bytes() == before and not list(tonight.glob("replaced-*"))  # nothing changed

    forced = bidwire("restore", "--data", tonight, last_week, "--force")
    assert forced.returncode == 0 and "restored" in forced.stdout and "5 events" in forced.stdout, forced.stderr
    assert "forced: it is a backup of another event" in forced.stderr
    assert [json.loads(r["body"])["t"] for r in rows(tonight, EVENTS)] == [1001, 1002, 1003, 1004, 1005]
    [aside] = tonight.glob("replaced-*")
    assert (aside / "bidwire.sqlite3").read_bytes() == before  # tonight's store moved aside, not deleted


def test_a_backup_whose_events_clash_with_the_store_is_refused_for_the_same_event(tmp_path):
    # the same event on a spare laptop that the unit's journal does not match (other content for seqs 2-3)
    night(tmp_path, "spare", "2026-12-03", [1, 2, 3], week=1)
    tonight = night(tmp_path, "tonight", "2026-12-03", [1, 2, 3, 4], week=2)
    done = bidwire("restore", "--data", tonight, tmp_path / "spare.sqlite3")
    assert done.returncode == 1
    assert "another event" not in done.stderr
    assert "3 of its events have the (unit, seq) of an event in the store with other content" in done.stderr, \
        done.stderr


def test_a_backup_of_earlier_tonight_is_restored_without_force(tmp_path):
    tonight = night(tmp_path, "tonight", "2026-12-03", [1, 2, 3, 4, 5], week=2, backup_after=3)
    done = bidwire("restore", "--data", tonight, tmp_path / "tonight-early.sqlite3")
    assert done.returncode == 0 and "3 events" in done.stdout, done.stderr
    assert done.stderr == ""
    assert [r["seq"] for r in rows(tonight, EVENTS)] == [1, 2, 3]


def test_a_backup_that_carries_code_is_refused_and_verify_names_it(tmp_path):
    """Issue 39, finding 8: a backup with one SQL trigger added was restored without a word, and `bidwire verify`
    said nothing. The restore compares the backup's schema (tables, indexes, triggers, views) with what its
    version should have and refuses anything else, `--force` or not; `verify` names the trigger in a store that
    has one."""
    tonight = night(tmp_path, "tonight", "2026-12-03", [1, 2, 3], week=2)
    tampered = tmp_path / "tampered.sqlite3"
    tampered.write_bytes((tmp_path / "tonight.sqlite3").read_bytes())
    conn = sqlite3.connect(tampered)
    conn.execute("CREATE TRIGGER thirteen AFTER INSERT ON results BEGIN "
                 "UPDATE results SET tricks = 13 WHERE rowid = NEW.rowid; END")
    conn.commit()
    conn.close()
    before = rows(tonight, EVENTS)
    for force in ((), ("--force",)):
        done = bidwire("restore", "--data", tonight, tampered, *force)
        assert done.returncode != 0, done.stdout
        assert "trigger thirteen is not in schema version" in done.stderr and "nothing restored" in done.stderr
        assert rows(tonight, EVENTS) == before and not list(tonight.glob("replaced-*"))  # the store untouched
    sound = bidwire("restore", "--data", tonight, tmp_path / "tonight.sqlite3")
    assert sound.returncode == 0, sound.stderr  # the same backup without the trigger is restored
    conn = sqlite3.connect(tonight / "bidwire.sqlite3")  # a trigger added to the store itself
    conn.execute("CREATE TRIGGER thirteen AFTER INSERT ON results BEGIN SELECT 1; END")
    conn.commit()
    conn.close()
    checked = bidwire("verify", "--data", tonight, "--keyring", tonight / "keyring.json")
    assert checked.returncode != 0 and "schema: trigger thirteen is not in schema version" in checked.stdout + \
        checked.stderr, checked.stdout + checked.stderr
