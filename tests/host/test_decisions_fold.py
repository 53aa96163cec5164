"""The director's decisions folded once per change (decisions/journal.py `fold`, store.py `cache`): the State kept
on a store's connection is the one a fresh fold of every row gives, after inserts and after rollbacks; a fold with
no new decision reads no row again; each store, and each of its connections, keeps its own. The session test plays
the 3-table Mitchell of test_collector_authority.py (round 1: table t plays boards 2t-1 and 2t, NS t v EW t)."""
import sqlite3
from datetime import datetime, timezone

import pytest
from collector_kit import ApiClient, played, sync

from bidwire_host.collector import alert_queue
from bidwire_host.collector import store as store_mod
from bidwire_host.collector.decisions import kinds
from bidwire_host.collector.decisions.journal import CACHE_KEY, fold, insert
from bidwire_host.collector.store import DB_NAME, Store
from bidwire_host.dashboard import queries
from bidwire_host.event import model as ev
from bidwire_host.scoring.model import law77_score
from bidwire_host.server import create_app

AT = datetime(2026, 12, 1, 21, 0, tzinfo=timezone.utc)
FULL_READ = "SELECT * FROM director_actions ORDER BY id"


def decide(kind, **body):
    """A writer job storing one decision that needs no event (close, publish); returns the stored action."""
    return lambda conn: kinds.ACTIONS[kind](conn, None, body, AT)


def close(alert, note=""):
    return decide("close", alert=alert, note=note)


def fresh(data):
    """The fold of every row, on a connection of its own that keeps nothing."""
    conn = sqlite3.connect(data / DB_NAME)
    conn.row_factory = sqlite3.Row
    try:
        assert getattr(conn, "cache", None) is None
        return fold(conn)
    finally:
        conn.close()


def same(a, b):
    return vars(a) == vars(b)


class Reads:
    """The statements a connection runs, from its trace callback."""

    def __init__(self, conn):
        self.sql = []
        conn.set_trace_callback(self.sql.append)

    def full(self):
        return sum(FULL_READ in s for s in self.sql)


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "a") as s:
        yield s


def test_the_kept_state_is_a_fresh_fold_after_every_insert(store):
    for n in range(4):
        kept_reader = fold(store.reader())
        kept_writer = store.write(fold)
        assert same(kept_reader, fresh(store.data_dir)) and same(kept_writer, fresh(store.data_dir))
        assert len(kept_reader.actions) == n
        store.write(close(f"irr:T01:{n}") if n != 2 else decide("publish", minutes=20))
    state = fold(store.reader())
    assert [a["kind"] for a in state.actions] == ["close", "close", "publish", "close"]
    assert set(state.closed) == {"irr:T01:0", "irr:T01:1", "irr:T01:3"} and state.period.minutes == 20


def test_a_decision_inserted_in_the_same_job_is_seen_by_the_next_fold(store):
    def job(conn):
        before = fold(conn)
        kinds.ACTIONS["close"](conn, None, {"alert": "irr:T01:1"}, AT)
        after = fold(conn)
        return before, after, fold(conn)
    before, after, again = store.write(job)
    assert before.closed == {} and list(after.closed) == ["irr:T01:1"] and again is after
    assert same(after, fresh(store.data_dir))


def test_a_second_fold_with_no_new_decision_reads_no_row(store):
    store.write(close("irr:T01:1"))
    conn = store.reader()
    reads = Reads(conn)
    first = fold(conn)
    assert reads.full() == 1
    reads.sql.clear()
    for _ in range(3):
        assert fold(conn) is first
    assert reads.full() == 0 and all("max(id) FROM director_actions" in s for s in reads.sql), reads.sql
    store.write(close("irr:T01:2"))  # a new decision: folded again, once
    second = fold(conn)
    assert reads.full() == 1 and second is not first and list(second.closed) == ["irr:T01:1", "irr:T01:2"]
    assert fold(conn) is second and reads.full() == 1
    assert list(first.closed) == ["irr:T01:1"]  # the State given before is left as it was


def test_a_rolled_back_decision_does_not_linger(store):
    store.write(close("irr:T01:1"))
    assert list(store.write(fold).closed) == ["irr:T01:1"]  # kept on the writer's connection

    def refused(conn):
        kinds.ACTIONS["close"](conn, None, {"alert": "irr:T01:2"}, AT)
        assert "irr:T01:2" in fold(conn).closed  # kept, with the row the rollback takes away
        raise RuntimeError("the job fails after storing")
    with pytest.raises(RuntimeError):
        store.write(refused)
    # The id of the row rolled back is used again by a decision stored without a fold first (publish): the same
    # last id, another row.
    stored = store.write(decide("publish", minutes=10))
    assert stored["id"] == 2
    state = store.write(fold)
    assert [a["kind"] for a in state.actions] == ["close", "publish"] and list(state.closed) == ["irr:T01:1"]
    assert state.period.minutes == 10 and same(state, fresh(store.data_dir))
    assert same(fold(store.reader()), state)


def test_a_decision_whose_commit_fails_does_not_linger(store):
    store.write(close("irr:T01:1"))

    def commit_fails(conn):
        kinds.ACTIONS["close"](conn, None, {"alert": "irr:T01:2"}, AT)
        assert "irr:T01:2" in fold(conn).closed
        conn.execute("CREATE TEMP TABLE parent (id INTEGER PRIMARY KEY)")
        conn.execute("CREATE TEMP TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)")
        conn.execute("INSERT INTO child VALUES (1)")  # refused only by COMMIT: the whole transaction rolls back
    with pytest.raises(store_mod.StoreError, match="could not commit"):
        store.write(commit_fails)
    assert store.write(decide("publish"))["id"] == 2
    state = store.write(fold)
    assert list(state.closed) == ["irr:T01:1"] and same(state, fresh(store.data_dir))


def test_the_rollback_check_would_see_a_kept_state_outliving_its_rows(store, monkeypatch):
    """The check itself: with the cache not emptied on rollback, the State rolled back would be given again."""
    monkeypatch.setattr(store_mod, "forget", lambda conn: None)

    def refused(conn):
        kinds.ACTIONS["close"](conn, None, {"alert": "irr:T01:2"}, AT)
        fold(conn)
        raise RuntimeError("rolled back")
    with pytest.raises(RuntimeError):
        store.write(refused)
    # another row with the id the rolled-back one had, stored without folding first (every kind's checks fold)
    assert store.write(lambda conn: insert(conn, "publish", {"minutes": 30}, "director", AT, False))["id"] == 1
    stale = store.write(fold)
    assert list(stale.closed) == ["irr:T01:2"] and not same(stale, fresh(store.data_dir))  # the row rolled back


def test_two_stores_keep_their_own(tmp_path):
    with Store(tmp_path / "a") as a, Store(tmp_path / "b") as b:
        a.write(close("irr:T01:1"))
        assert list(fold(a.reader()).closed) == ["irr:T01:1"] and fold(b.reader()).closed == {}
        assert list(a.write(fold).closed) == ["irr:T01:1"] and b.write(fold).closed == {}
        b.write(close("irr:T02:7"))
        b.write(close("irr:T02:8"))
        assert list(fold(a.reader()).closed) == ["irr:T01:1"]
        assert list(fold(b.reader()).closed) == ["irr:T02:7", "irr:T02:8"]
        assert list(a.write(fold).closed) == ["irr:T01:1"]
        assert a.reader().cache is not b.reader().cache


def test_a_connection_outside_a_store_folds_every_time(store):
    store.write(close("irr:T01:1"))
    conn = sqlite3.connect(store.path)
    conn.row_factory = sqlite3.Row
    try:
        reads = Reads(conn)
        first, second = fold(conn), fold(conn)
        assert first is not second and same(first, second) and reads.full() == 2
    finally:
        conn.close()


def one_nt(seq, board, tricks=7, **where):
    """Board `board` in 1NT by its dealer, as a unit reports it (4 events from `seq`)."""
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
    return played(seq, board, inputs, "1NT", d, tricks, law77_score(board, "1NT", d, tricks), **where)


def test_a_session_folds_once_per_decision_and_nobody_changes_the_kept_state(data):
    event = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3})) as client:
        store = client.app.state.service.store
        writer = store.write(Reads)  # what the writer's connection runs: every sync, every decision
        seqs = {}

        def play(unit, board, table, pair=None, **kw):
            seq = seqs.get(unit, 1)
            seqs[unit] = seq + 4
            pair = pair or table
            r = sync(client, one_nt(seq, board, section="A", table=table, round=1, ns=pair, ew=pair, **kw),
                     unit=unit)
            assert r.status_code == 200, r.text
            return seq + 3  # the result's seq

        first = play("T01", 1, 1)
        held = play("T03", 5, 3, pair=2)  # names NS 2 / EW 2 at table 3: held for the director
        writer.sql.clear()
        assert fold(store.reader()).actions == []
        play("T02", 3, 2)
        play("T02", 4, 2)
        assert writer.full() == 0 and any("max(id) FROM director_actions" in q for q in writer.sql)
        decisions = [
            ("/api/v1/adjustments", {"table": 1, "board": 2, "ns": "A", "ew": "A", "reason": "no time"}),
            ("/api/v1/penalties", {"direction": "NS", "pair": 2, "amount": 1, "reason": "Law 90: slow play"}),
            (f"/api/v1/results/T03/{held}/resolve", {"decision": "accept", "ns": 3, "ew": 3, "reason": "numbers"}),
            (f"/api/v1/results/T01/{first}/correct", {"tricks": 8, "reason": "tricks miscounted"}),
            ("/api/v1/alerts/close", {"alert": f"alert:T03:{held}:held_result", "note": "done"}),
            ("/api/v1/players", {"direction": "NS", "pair": 1, "players": [{"name": "Ann"}, {"name": "Bob"}]}),
            ("/api/v1/publish", {"minutes": 45, "override": True, "by": "TD"}),
        ]
        for n, (path, body) in enumerate(decisions, 1):
            r = client.post(path, json=body)
            assert r.status_code == 201, (path, r.text)
            play("T02", 3 + n % 2, 2)  # a result again, after the decision
            play("T02", 3 + n % 2, 2)
            assert writer.full() == n, (path, writer.full())  # folded again once for each decision, not per sync
        state = fresh(data)
        assert len(state.actions) == len(decisions) and state.period.minutes == 45
        assert len(state.adjustments) == len(state.penalties) == len(state.resolutions) == len(state.corrections) == 1
        # Every reader of the decisions, then the State each connection keeps: still the fold of the rows.
        for path in ("/api/v1/adjustments", "/api/v1/penalties", "/api/v1/publish", "/api/v1/held", "/api/v1/queue",
                     "/api/v1/queue?state=closed", "/api/v1/ranking", "/api/v1/players", "/api/v1/export/pbn",
                     "/api/v1/export/usebio", "/api/v1/export/csv",
                     *(f"/api/v1/travellers/{b}" for b in range(1, 7))):
            assert client.get(path).status_code == 200, path
        conn = store.reader()
        queries.audit(conn)
        queries.alerts(conn, alert_queue.cmd_acks(conn), "closed")
        fold(conn).publication(datetime.now(timezone.utc))
        kept = [c.cache[CACHE_KEY][1] for c in store._readers if CACHE_KEY in c.cache]
        kept.append(store.write(lambda c: c.cache[CACHE_KEY][1]))
        assert len(kept) >= 2 and all(same(k, state) for k in kept)
        assert same(client.app.state.service.standings.actions, state)
