"""The collector's store: one SQLite file in WAL mode, one writer thread, readers apart (docs/architecture.md §5).

Every change goes through `Store.submit(job)`: the writer thread runs `job(conn)` inside a savepoint of a
`BEGIN IMMEDIATE` transaction and resolves the job's future only after `COMMIT` has returned. With
`synchronous=FULL` that commit is on disk (fsync of the WAL), so a sync is acknowledged only once it would
survive a power cut. Jobs waiting while a commit runs are taken together into the next transaction, each in
its own savepoint (a job that raises is rolled back alone): one fsync for many units' syncs.

Raw events are immutable (triggers refuse UPDATE and DELETE on `events`); the other tables are derived from
them by `derive.apply` and can be rebuilt at any time (`derive.rebuild`, `bidwire rebuild`).

A store is checked when it is opened (`check_file`, then SQLite's `quick_check`: every page of every table and
index read and its structure checked): an empty (0-byte) file or a damaged one is refused with a StoreError that
names the file and how to restore a backup (backup.py). `health()` says whether the last transaction could commit
(for /healthz). `close()` leaves every commit in the main file: the WAL checkpointed and removed.

Each of the store's connections has a `cache` for what is computed from its tables and worth keeping between
transactions (the director's decisions folded: decisions/journal.py), each value keyed by its owner on what it was
computed from. A rollback could take away rows a value was computed from, so every rollback on the writer's
connection empties its cache (`forget`); the readers only ever see committed rows.
"""
import asyncio
import logging
import queue
import sqlite3
import threading
import time
from concurrent.futures import Future
from pathlib import Path

log = logging.getLogger("bidwire.collector")

DB_NAME = "bidwire.sqlite3"
GROUP_MAX = 64  # jobs committed together at most

# Tables derived from the events: emptied and refilled by derive.rebuild, in this order.
DERIVED = ("alerts", "director_calls", "rulings", "irregularities", "results", "boards", "units")

# Ordered migrations: (version, SQL, whether the derived tables must be rebuilt afterwards). Append only; a
# change to a derived table is a new migration that drops and re-creates it with rebuild=True.
MIGRATIONS = [
    (1, """
CREATE TABLE events (
    id INTEGER PRIMARY KEY,             -- arrival order: derived tables are built in this order
    unit TEXT NOT NULL,
    seq INTEGER NOT NULL,               -- the unit's own numbering, strictly increasing
    type TEXT NOT NULL,
    board INTEGER,                      -- NULL for events without a board (hello)
    boot INTEGER NOT NULL,              -- the unit's boot count in the sync that carried the event
    received TEXT NOT NULL,             -- host clock, UTC ISO 8601
    body TEXT NOT NULL,                 -- the event as the unit sent it (JSON)
    UNIQUE (unit, seq)
);
CREATE TRIGGER events_immutable_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'raw events are immutable'); END;
CREATE TRIGGER events_immutable_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'raw events are immutable'); END;

-- What each unit last told the sync endpoint (not derived: heartbeats carry no events).
CREATE TABLE unit_sync (
    unit TEXT PRIMARY KEY,
    boot INTEGER NOT NULL,
    cmd_ack INTEGER NOT NULL,           -- the last command the unit reports applied
    last_seen TEXT NOT NULL
);

-- Commands for the units (host -> unit), numbered per unit; delivered while seq > the unit's cmd_ack.
CREATE TABLE commands (
    unit TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,                 -- the command as sent, seq included (JSON)
    created TEXT NOT NULL,
    PRIMARY KEY (unit, seq)
);

-- Derived from events ------------------------------------------------------------------------------------
CREATE TABLE units (
    unit TEXT PRIMARY KEY,
    firmware TEXT, hardware TEXT, boot INTEGER, battery, rssi, backlog INTEGER,   -- from the last hello
    hello_seq INTEGER,
    events INTEGER NOT NULL DEFAULT 0,
    last_seq INTEGER, last_t INTEGER, last_received TEXT,
    board INTEGER                       -- the board the unit last started
);
-- One row per board played at a table (a board_start, or the first event of a board without one).
CREATE TABLE boards (
    id INTEGER PRIMARY KEY,
    unit TEXT NOT NULL,
    start_seq INTEGER NOT NULL,
    board INTEGER NOT NULL,
    section TEXT, table_no INTEGER, round INTEGER, ns TEXT, ew TEXT,
    dealer TEXT, vul TEXT, mode TEXT,
    calls INTEGER NOT NULL DEFAULT 0,
    inputs TEXT,                        -- the auction's input tokens from the last auction_end (JSON)
    contract TEXT, declarer TEXT,       -- derived on the host from those inputs
    unit_contract TEXT, unit_declarer TEXT,   -- what the unit claimed
    lead TEXT,
    state TEXT NOT NULL,                -- auction, ended, play, done
    UNIQUE (unit, start_seq)
);
CREATE INDEX boards_by_board ON boards (board, section, table_no);
CREATE TABLE results (
    unit TEXT NOT NULL, seq INTEGER NOT NULL,
    board_id INTEGER NOT NULL,
    board INTEGER NOT NULL, section TEXT, table_no INTEGER, round INTEGER, ns TEXT, ew TEXT,
    contract TEXT, declarer TEXT,       -- the host's, from the replayed auction
    tricks INTEGER,
    score_ns INTEGER,                   -- Law 77 on the host (NULL when it cannot be computed: see alerts)
    unit_contract TEXT, unit_declarer TEXT, unit_score_ns INTEGER,
    entered_by TEXT, confirmed_by TEXT, lead TEXT, t INTEGER,
    PRIMARY KEY (unit, seq)
);
CREATE INDEX results_by_board ON results (board, section, table_no);
CREATE TABLE irregularities (
    unit TEXT NOT NULL, seq INTEGER NOT NULL, board_id INTEGER, board INTEGER,
    kind TEXT, law INTEGER, offender TEXT, call TEXT, entitled TEXT, options TEXT, t INTEGER,
    PRIMARY KEY (unit, seq)
);
CREATE TABLE rulings (
    unit TEXT NOT NULL, seq INTEGER NOT NULL, board_id INTEGER, board INTEGER,
    ruling TEXT, seat TEXT, by_whom TEXT, verdict TEXT, law INTEGER, t INTEGER,
    PRIMARY KEY (unit, seq)
);
CREATE TABLE director_calls (
    unit TEXT NOT NULL, seq INTEGER NOT NULL, board_id INTEGER, board INTEGER, seat TEXT, t INTEGER,
    PRIMARY KEY (unit, seq)
);
-- What the validator found: for the director, never a silent overwrite.
CREATE TABLE alerts (
    id INTEGER PRIMARY KEY,
    unit TEXT NOT NULL, seq INTEGER NOT NULL,   -- the event that raised it
    board INTEGER, section TEXT, table_no INTEGER,
    kind TEXT NOT NULL, law INTEGER,
    detail TEXT NOT NULL,
    data TEXT                           -- JSON: the facts compared
);
CREATE INDEX alerts_by_unit ON alerts (unit, seq);
""", True),
    (2, """
-- The event loaded (not derived: set by the director): the event file's JSON, unit -> [section, table],
-- the scoring method, and the round each section was last sent (collector/event_setup.py).
CREATE TABLE setup (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    body TEXT NOT NULL,
    tables TEXT NOT NULL,
    method TEXT NOT NULL,
    session TEXT,
    rounds TEXT NOT NULL
);
""", False),
    (3, """
-- What the director and scorer decided (not derived: raw like the events, and as immutable): adjusted and
-- assigned scores, procedural penalties, publications (collector/decisions/). The scores are the results
-- with these actions applied in order, so a rebuild or a restart replays them.
CREATE TABLE director_actions (
    id INTEGER PRIMARY KEY,             -- the order they are applied in
    kind TEXT NOT NULL,                 -- adjust, penalty, publish
    body TEXT NOT NULL,                 -- the action as accepted (JSON)
    by_whom TEXT,
    at TEXT NOT NULL,                   -- host clock, UTC ISO 8601
    post_period INTEGER NOT NULL DEFAULT 0   -- made after the correction period by a director's override
);
CREATE TRIGGER director_actions_immutable_update BEFORE UPDATE ON director_actions
    BEGIN SELECT RAISE(ABORT, 'director actions are append-only'); END;
CREATE TRIGGER director_actions_immutable_delete BEFORE DELETE ON director_actions
    BEGIN SELECT RAISE(ABORT, 'director actions are append-only'); END;
""", False),
    (4, """
-- Per unit: events that arrived again after they were stored (a retry whose acknowledgement was lost, a
-- duplicated request) and were acknowledged without being stored twice.
ALTER TABLE unit_sync ADD COLUMN duplicates INTEGER NOT NULL DEFAULT 0;
""", False),
    (5, """
-- The event decides who played what (collector/attribution.py): a result whose section, table, round, board or
-- pairs differ from the event, or that came after publication, is held for the director, not scored.
ALTER TABLE results ADD COLUMN held TEXT;          -- JSON list of what differs (NULL: the result is scored)
ALTER TABLE results ADD COLUMN expected TEXT;      -- JSON: what the event has at that table (or NULL)
-- Every alert has a lifecycle: open, then settled at the table or superseded (the board redone); the director's
-- own resolutions are director_actions (kind close).
ALTER TABLE irregularities ADD COLUMN at INTEGER;  -- its position in the board's input log (the unit's identity)
ALTER TABLE irregularities ADD COLUMN state TEXT NOT NULL DEFAULT 'open';
ALTER TABLE irregularities ADD COLUMN outcome TEXT;
ALTER TABLE irregularities ADD COLUMN closed_seq INTEGER;
ALTER TABLE director_calls ADD COLUMN state TEXT NOT NULL DEFAULT 'open';
ALTER TABLE director_calls ADD COLUMN outcome TEXT;
ALTER TABLE director_calls ADD COLUMN closed_seq INTEGER;
ALTER TABLE rulings ADD COLUMN at INTEGER;
-- A change's idempotency key and its answer (not derived): a retried request is answered again, not redone.
CREATE TABLE idempotency (
    key TEXT PRIMARY KEY,               -- operation:key
    request TEXT NOT NULL,              -- sha256 of the request, so a key reused for another one is refused
    response TEXT NOT NULL,
    at TEXT NOT NULL
);
""", True),
    (6, """
-- Liveness: the unit's sync count of its boot, so that a replayed body (nothing new) does not refresh last_seen.
ALTER TABLE unit_sync ADD COLUMN beat INTEGER NOT NULL DEFAULT 0;
-- Each batch as the unit signed it (raw, immutable): a stored event can be checked against its signature later
-- (`bidwire verify`). events.batch names the batch that brought the event.
CREATE TABLE batches (
    id INTEGER PRIMARY KEY,
    unit TEXT NOT NULL,
    received TEXT NOT NULL,
    signature TEXT NOT NULL,
    body BLOB NOT NULL
);
CREATE TRIGGER batches_immutable_update BEFORE UPDATE ON batches
    BEGIN SELECT RAISE(ABORT, 'batches are immutable'); END;
CREATE TRIGGER batches_immutable_delete BEFORE DELETE ON batches
    BEGIN SELECT RAISE(ABORT, 'batches are immutable'); END;
ALTER TABLE events ADD COLUMN batch INTEGER;
-- A stored seq sent again with other content: refused (409), both versions kept here for the director.
CREATE TABLE seq_conflicts (
    id INTEGER PRIMARY KEY,
    unit TEXT NOT NULL,
    seq INTEGER NOT NULL,
    stored TEXT NOT NULL,               -- the event as stored (JSON)
    sent TEXT NOT NULL,                 -- the other version
    first_at TEXT NOT NULL,
    times INTEGER NOT NULL DEFAULT 1,
    UNIQUE (unit, seq, sent)
);
""", False),
    (7, """
-- The double-dummy analysis of each hand record (bidwire_host/event/analysis.py): computed once per deal, in the
-- background after the event is loaded (not derived from events: kept across a rebuild).
CREATE TABLE analysis (
    board INTEGER NOT NULL,
    deal TEXT NOT NULL,                 -- the deal analysed (PBN, North first)
    body TEXT NOT NULL,                 -- JSON {"dd": {seat: {strain: tricks}}, "par": {"score", "contracts"}}
    at TEXT NOT NULL,
    PRIMARY KEY (board, deal)
);
""", False),
    (8, """
-- the sim's hub (collector/uplink.py): each upload's exact bytes, kept until the hub acknowledges them, and what
-- the hub holds of each result (its digest), so that only a changed result is sent again
CREATE TABLE hub_outbox (
    number INTEGER PRIMARY KEY,
    body BLOB NOT NULL,
    made TEXT NOT NULL,
    acked TEXT
);
CREATE TABLE hub_sent (
    section TEXT NOT NULL,
    board INTEGER NOT NULL,
    ns TEXT NOT NULL,
    ew TEXT NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (section, board, ns, ew)
);
""", False),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def _on_a_loop():
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class StoreError(Exception):
    """The database cannot be opened or is newer than this program."""


def restore_hint(data_dir):
    return (f"restore the last backup (`bidwire restore --data {data_dir} BACKUP`, docs/reliability.md "
            "\"Backup and restore\")")


def wal_path(path):
    return Path(f"{path}-wal")


def check_file(path):
    """StoreError if the file at `path` is there but cannot be a store: 0 bytes, which SQLite would take for a new
    empty database (unless a WAL lies beside it: then SQLite reads the pages from there, and its check decides)."""
    path = Path(path)
    if path.exists() and path.stat().st_size == 0:
        wal = wal_path(path)
        if not wal.exists() or wal.stat().st_size == 0:
            raise StoreError(f"the store {path} is an empty file (0 bytes), not a store: the collector will not "
                             f"start on it. If a store was lost, {restore_hint(path.parent)}; to begin a new empty "
                             f"store, remove {path}")


def damage(conn):
    """What SQLite's quick_check finds wrong with the database ("" if nothing)."""
    try:
        rows = [r[0] for r in conn.execute("PRAGMA quick_check(20)").fetchall()]
    except sqlite3.DatabaseError as e:
        return str(e)
    return "" if rows == ["ok"] else "; ".join(rows)


class Connection(sqlite3.Connection):
    """A connection with a `cache`: values computed from its tables, kept by their owners (None: none kept, as on a
    connection outside a Store, whose rollbacks nobody watches)."""

    cache = None


def forget(conn):
    """Empty the connection's cache: a rollback may have taken away rows its values were computed from."""
    if getattr(conn, "cache", None) is not None:
        conn.cache.clear()


def connect(path, readonly=False):
    """A connection in autocommit mode (transactions are explicit), WAL, fsync on every commit."""
    if readonly:
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                               check_same_thread=False, factory=Connection)
    else:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, factory=Connection)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 10000")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def schema_version(conn):
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    return row[0] or 0


def migrate(conn, rebuild=None):
    """Bring the schema up to SCHEMA_VERSION, each migration in its own transaction; then, if one of them changed a
    derived table, `rebuild(conn)` (derive.rebuild: the store does not know how tables are derived)."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)")
    current = schema_version(conn)
    if current > SCHEMA_VERSION:
        raise StoreError(f"the database has schema version {current}, newer than this bidwire's {SCHEMA_VERSION}:"
                         " upgrade bidwire")
    if current and rebuild is None and any(needs for version, _, needs in MIGRATIONS if version > current):
        raise StoreError("the schema change needs the derived tables rebuilt: open the store with rebuild= "
                         "(derive.open_store)")
    must_rebuild = False
    for version, sql, needs_rebuild in MIGRATIONS:
        if version <= current:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version VALUES (?, datetime('now'))", (version,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        log.debug("schema migrated to version %d", version)
        must_rebuild = must_rebuild or needs_rebuild
    if schema_version(conn) > current:  # one line for the lot: a new store goes through every migration
        log.info("store schema %s version %d", f"migrated from version {current} to" if current else "created at",
                 schema_version(conn))
    if must_rebuild and current and rebuild is not None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            rebuild(conn)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _statements(sql):
    """Split a migration into statements (executescript would commit the transaction on its own)."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return [s for s in out if s]


class _Job:
    __slots__ = ("fn", "future")

    def __init__(self, fn):
        self.fn = fn
        self.future = Future()


class Store:
    """The data directory's database: `submit(job)` for changes (one writer), `reader()` for queries."""

    def __init__(self, data_dir, rebuild=None):
        """`rebuild(conn)`: how to re-derive the derived tables when a migration asks (derive.rebuild)."""
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.data_dir / DB_NAME
        check_file(self.path)
        self._conn = None
        try:
            self._conn = connect(self.path)
            started = time.perf_counter()
            found = damage(self._conn)
            self.check_s = time.perf_counter() - started
            if found:
                raise StoreError(f"the store {self.path} is damaged (SQLite's check: {found}): the collector will "
                                 f"not start on it; {restore_hint(self.data_dir)}")
            migrate(self._conn, rebuild)
        except sqlite3.DatabaseError as e:
            self._close_opening()
            raise StoreError(f"cannot open the store {self.path}: {e}; {restore_hint(self.data_dir)}") from None
        except BaseException:
            self._close_opening()
            raise
        self._conn.cache = {}  # the writer's: emptied on every rollback (_transaction)
        self.failure = None  # (when, why) the last transaction could not commit; None once one commits
        self._queue = queue.SimpleQueue()
        self._local = threading.local()
        self.reads_on_loop = 0  # reader() asked for on a thread running an event loop: a blocking read there
        self._readers = []
        self._readers_lock = threading.Lock()
        self.commits = 0
        self._thread = threading.Thread(target=self._run, name="bidwire-writer", daemon=True)
        self._thread.start()

    # ---- the writer ------------------------------------------------------------------------------------
    def submit(self, fn):
        """Run fn(conn) in the writer's transaction; a Future of its result, set once committed."""
        job = _Job(fn)
        if not self._thread.is_alive():
            job.future.set_exception(StoreError("the store is closed"))
            return job.future
        self._queue.put(job)
        return job.future

    def write(self, fn, timeout=30):
        """submit() and wait: for the CLI and tests."""
        return self.submit(fn).result(timeout)

    def _run(self):
        conn = self._conn
        while True:
            job = self._queue.get()
            if job is None:
                break
            jobs = [job]
            stop = False
            while len(jobs) < GROUP_MAX:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                jobs.append(more)
            self._transaction(conn, jobs)
            if stop:
                break
        conn.close()

    def _transaction(self, conn, jobs):
        outcomes = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            for job in jobs:
                conn.execute("SAVEPOINT job")
                try:
                    outcomes.append((job, job.fn(conn), None))
                    conn.execute("RELEASE job")
                except Exception as e:  # the job's own changes go; the others' stay
                    forget(conn)
                    conn.execute("ROLLBACK TO job")
                    conn.execute("RELEASE job")
                    outcomes.append((job, None, e))
            conn.execute("COMMIT")
            self.commits += 1
            self.failure = None
        except Exception as e:  # the commit itself failed (disk full, I/O error): nothing was stored
            log.error("store: transaction failed: %s", e)
            self.failure = (time.time(), str(e))
            forget(conn)
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            outcomes = [(job, None, StoreError(f"the store could not commit: {e}")) for job in jobs]
        for job, result, error in outcomes:
            if error is None:
                job.future.set_result(result)
            else:
                job.future.set_exception(error)

    # ---- readers ---------------------------------------------------------------------------------------
    def reader(self):
        """This thread's read-only connection (WAL: readers see the last commit and never block the writer). Asked
        for on the thread of a running event loop, it is counted (`reads_on_loop`, in /healthz): every read of the
        server belongs in a worker thread, and the tests hold it to that without timing anything."""
        if _on_a_loop():
            self.reads_on_loop += 1
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path, readonly=True)
            conn.cache = {}  # only committed rows are read here: nothing it holds is ever rolled back
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    def health(self):
        """"" if the store's last transaction committed, else why it did not (disk full, I/O error)."""
        failure = self.failure
        if failure is None:
            return ""
        at = time.strftime("%H:%M:%S", time.localtime(failure[0]))
        return f"the store {self.path} could not commit at {at}: {failure[1]}"

    def probe(self, timeout=5):
        """Try one small commit now (the header's user_version rewritten: a page of WAL, fsynced); health() after
        it, or why it did not finish in time."""
        def rewrite(conn):
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            conn.execute(f"PRAGMA user_version = {(version + 1) % 2**31}")

        try:
            self.submit(rewrite).result(timeout)
        except TimeoutError:
            return f"the store {self.path} did not commit within {timeout} s"
        except Exception:
            pass  # the failure is in health()
        return self.health()

    def _close_opening(self):
        if self._conn is not None:
            self._conn.close()

    def close(self):
        """Stop the writer once the jobs queued are done; leave every commit in the main file (the WAL checkpointed
        and removed), unless another process still has the store open."""
        with self._readers_lock:  # first, so that the writer's connection is the last one and checkpoints at close
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        self._settle_wal()

    def _settle_wal(self):
        wal = wal_path(self.path)
        if not wal.exists() or wal.stat().st_size == 0:
            return
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:  # PASSIVE never waits for another process's writer; closing the last connection finishes the job
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.DatabaseError as e:
            log.warning("store: the WAL of %s could not be checkpointed: %s", self.path, e)
        finally:
            conn.close()
        if wal.exists() and wal.stat().st_size:
            log.warning("store: %s keeps its WAL (%d bytes): another process has the store open; the next to "
                        "open it alone checkpoints it", self.path, wal.stat().st_size)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
