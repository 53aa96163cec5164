"""The store (issue 4, part 2): SQLite in WAL mode with fsync'd commits, one writer, immutable raw events,
derived tables rebuilt from the events by the one function the live path uses, a versioned schema."""
import json
import os
import sqlite3
import subprocess
import sys

import pytest
from collector_kit import (
    FOUR_SPADES,
    TABLES,
    ApiClient,
    auction_end,
    board_start,
    hello,
    played,
    query,
    result,
    sync,
)

from bidwire_host.collector import derive, store
from bidwire_host.collector.store import DB_NAME, SCHEMA_VERSION, Store, StoreError
from bidwire_host.server import create_app
from bidwire_host.sql_migrations import REBUILD, Migration

BIDWIRE = os.path.join(os.path.dirname(sys.executable), "bidwire")


def derived(data):
    """Every derived table, row by row."""
    return {t: query(data, f"SELECT * FROM {t} ORDER BY rowid") for t in store.DERIVED}


def a_session(client):
    """Several units, irregular and forged boards: something in every derived table. (Each seq names one event:
    the first board's events are 1-5, the second board's 6-13.)"""
    irregular = [{"seq": 7, "type": "td_call", "board": 2, "seat": "S", "t": 5},
                 {"seq": 8, "type": "irregularity", "board": 2, "kind": "insufficient_bid", "law": 27,
                  "offender": "E", "call": "1S", "entitled": "S", "options": ["reject"], "t": 5},
                 {"seq": 9, "type": "ruling_applied", "board": 2, "ruling": "reject", "seat": "N", "by": "table",
                  "verdict": "legal", "law": 27, "t": 5},
                 {"seq": 10, "type": "note", "board": 2, "text": "result disputed by E"}]
    assert sync(client, [hello(1), *played(2, section="A", table=1, round=1, ns=1, ew=2)]).status_code == 200
    r = sync(client, [board_start(6, 2, section="A", table=1, round=1, ns=1, ew=2), *irregular,
                         {"seq": 11, "type": "call", "board": 2, "input": "E:1S", "seat": "E", "verdict": "legal",
                          "law": 0, "alert": False},
                         auction_end(12, 2, ["E:1S", "S:P", "W:P", "N:P"], contract="2S"),
                         result(13, 2, "1S", "E", 14, -80)])
    assert r.status_code == 200, r.text
    assert sync(client, [hello(1), *played(2, section="A", table=2, round=2, ns=3, ew=1)], unit="T02").status_code \
        == 200
    assert sync(client, [hello(1, battery=55), *played(2, section="A", table=1, round=1, tricks=9, score_ns=-50)],
                unit="T03").status_code == 200


def test_rebuild_gives_exactly_what_the_live_path_built(data):
    with ApiClient(create_app(data)) as client:
        a_session(client)
    live = derived(data)
    for table in ("units", "boards", "results", "irregularities", "rulings", "director_calls", "alerts"):
        assert live[table], f"the session leaves {table} empty: the comparison would prove nothing"
    assert {a["kind"] for a in live["alerts"]} >= {"contract_mismatch", "impossible_tricks", "board_played_twice",
                                                  "two_units_one_table"}
    with Store(data) as s:
        assert s.write(derive.rebuild) == len(query(data, "SELECT id FROM events"))
    assert derived(data) == live


def test_bidwire_rebuild_from_the_command_line(data):
    with ApiClient(create_app(data)) as client:
        a_session(client)
    live = derived(data)
    conn = sqlite3.connect(data / DB_NAME)
    conn.execute("DELETE FROM results")  # a derived table damaged (or a derivation bug fixed since)
    conn.commit()
    conn.close()
    out = subprocess.run([BIDWIRE, "rebuild", "--data", str(data)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "events" in out.stdout
    assert derived(data) == live


def test_bidwire_rebuild_needs_a_store(tmp_path):
    out = subprocess.run([BIDWIRE, "rebuild", "--data", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "no collector store" in out.stderr


def test_raw_events_are_immutable(data):
    with ApiClient(create_app(data)) as client:
        sync(client, [hello(1)])
    conn = sqlite3.connect(data / DB_NAME)
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        conn.execute("UPDATE events SET body = '{}'")
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        conn.execute("DELETE FROM events")
    conn.close()


def test_wal_mode_and_fsync_on_commit(data):
    with Store(data) as s:
        conn = s.reader()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s._conn is not None
        assert s.write(lambda c: c.execute("PRAGMA synchronous").fetchone()[0]) == 2  # FULL


def test_schema_is_versioned_and_migrated_once(data):
    with Store(data):
        pass
    assert query(data, "SELECT version FROM schema_version ORDER BY version") == [
        {"version": v} for v in range(1, SCHEMA_VERSION + 1)]  # every migration, each once
    with Store(data):  # opening again applies nothing twice
        pass
    assert len(query(data, "SELECT version FROM schema_version")) == SCHEMA_VERSION


def test_a_newer_schema_is_refused(data):
    with Store(data):
        pass
    conn = sqlite3.connect(data / DB_NAME)
    conn.execute("INSERT INTO schema_version VALUES (?, 'later')", (SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer than this bidwire"):
        Store(data)


def test_a_migration_that_asks_for_it_rebuilds_the_derived_tables(data, monkeypatch):
    with ApiClient(create_app(data)) as client:
        sync(client, played(1))
    conn = sqlite3.connect(data / DB_NAME)
    conn.execute("DELETE FROM results")
    conn.commit()
    conn.close()
    later = Migration(SCHEMA_VERSION + 1, f"{SCHEMA_VERSION + 1:04d}_later.sql",
                      REBUILD + "\nCREATE TABLE later_things (x INTEGER);")
    monkeypatch.setattr(store, "MIGRATIONS", [*store.MIGRATIONS, later])
    monkeypatch.setattr(store, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError, match="rebuilt"):  # the store alone does not know how to derive
        Store(data)
    with Store(data, rebuild=derive.rebuild):
        pass
    assert len(query(data, "SELECT * FROM results")) == 1
    assert query(data, "SELECT max(version) AS v FROM schema_version") == [{"v": SCHEMA_VERSION + 1}]


def test_a_failing_job_is_rolled_back_alone(data):
    """Jobs committed together each run in a savepoint: one that fails takes nothing of the others with it."""
    with Store(data) as s:
        def good(n):
            return lambda c: c.execute("INSERT INTO unit_sync (unit, boot, cmd_ack, last_seen) "
                                       "VALUES (?, 1, 0, 'now')", (f"U{n}",))

        def bad(c):
            c.execute("INSERT INTO unit_sync (unit, boot, cmd_ack, last_seen) VALUES ('BAD', 1, 0, 'now')")
            raise ValueError("refused")

        futures = [s.submit(good(1)), s.submit(bad), s.submit(good(2))]
        assert futures[0].result(10) is not None and futures[2].result(10) is not None
        with pytest.raises(ValueError, match="refused"):
            futures[1].result(10)
    assert [r["unit"] for r in query(data, "SELECT unit FROM unit_sync ORDER BY unit")] == ["U1", "U2"]


def test_what_a_connection_keeps_goes_with_every_rollback(data):
    """Each connection of the store has a cache for values computed from its tables; the writer's is emptied when a
    job is rolled back and when a commit fails, so that nothing kept outlives the rows it was computed from."""
    with Store(data) as s:
        assert s.write(lambda c: c.cache) == {} and s.reader().cache == {}
        s.write(lambda c: c.cache.update(kept=1))
        assert s.write(lambda c: c.cache) == {"kept": 1}  # kept across committed transactions

        def bad(c):
            c.cache["mine"] = 2
            raise ValueError("refused")
        with pytest.raises(ValueError):
            s.write(bad)
        assert s.write(lambda c: c.cache) == {}
        s.write(lambda c: c.cache.update(kept=3))

        def commit_fails(c):  # a deferred foreign key: refused only by COMMIT, and the whole transaction with it
            c.execute("CREATE TEMP TABLE parent (id INTEGER PRIMARY KEY)")
            c.execute("CREATE TEMP TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)")
            c.execute("INSERT INTO child VALUES (1)")
        with pytest.raises(StoreError, match="could not commit"):
            s.write(commit_fails)
        assert s.write(lambda c: c.cache) == {}
    conn = store.connect(data / DB_NAME)  # a connection outside a Store keeps nothing: nobody watches its rollbacks
    try:
        assert conn.cache is None
        store.forget(conn)
    finally:
        conn.close()


def test_a_derivation_failure_keeps_the_event_and_says_so(data, monkeypatch):
    def broken(conn, unit, seq, e, row):
        raise RuntimeError("a bug")

    monkeypatch.setitem(derive.HANDLERS, "lead", (broken, True))
    with ApiClient(create_app(data)) as client:
        assert sync(client, played(1)).json()["ack"] == 4
    [a] = query(data, "SELECT kind, detail FROM alerts")
    assert a["kind"] == "not_derived" and "a bug" in a["detail"]
    assert len(query(data, "SELECT * FROM results")) == 1


def test_every_table_is_counted_by_the_tests(data):
    with Store(data):
        pass
    names = {r["name"] for r in query(data, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert names - {"schema_version"} == set(TABLES)


def test_events_keep_the_unit_body_as_sent(data):
    with ApiClient(create_app(data)) as client:
        e = dict(auction_end(1, 1, FOUR_SPADES), future_field={"x": [1, 2]})
        sync(client, [e])
    [row] = query(data, "SELECT body FROM events")
    assert json.loads(row["body"]) == e


def test_an_empty_file_is_not_a_store_and_is_left_as_it_is(tmp_path):
    """Issue 12: SQLite would open a 0-byte file as a new empty store; the collector refuses it."""
    (tmp_path / DB_NAME).write_bytes(b"")
    with pytest.raises(StoreError, match=r"is an empty file \(0 bytes\), not a store.*bidwire restore"):
        Store(tmp_path)
    assert (tmp_path / DB_NAME).stat().st_size == 0 and not (tmp_path / f"{DB_NAME}-wal").exists()


def test_a_file_that_is_not_a_database_is_refused_with_how_to_restore(tmp_path):
    (tmp_path / DB_NAME).write_bytes(b"this is not SQLite, it is a note somebody saved here\n" * 100)
    with pytest.raises(StoreError, match=rf"cannot open the store {tmp_path / DB_NAME}: file is not a database; "
                                         r"restore the last backup \(`bidwire restore --data"):
        Store(tmp_path)


def test_a_read_on_an_event_loops_thread_is_counted_and_one_in_a_worker_is_not(data):
    """What tests/e2e/test_authority_server.py holds the server to without a clock (no read blocks the loop)."""
    import asyncio

    with derive.open_store(data) as s:
        async def reads():
            await asyncio.to_thread(s.reader)  # a worker thread: fine
            s.reader()  # on the loop: counted

        before = s.reads_on_loop
        s.reader()  # no loop running: fine
        asyncio.run(reads())
        assert s.reads_on_loop == before + 1
