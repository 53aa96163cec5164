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

from bidwire_host import sql_migrations

log = logging.getLogger("bidwire.collector")

DB_NAME = "bidwire.sqlite3"
GROUP_MAX = 64  # jobs committed together at most

# Tables derived from the events: emptied and refilled by derive.rebuild, in this order.
DERIVED = ("alerts", "director_calls", "rulings", "irregularities", "results", "boards", "units")

# The schema: numbered SQL files in collector/migrations/, run by the one runner (bidwire_host/sql_migrations.py).
# Append only; a change to a derived table is a new file that drops and re-creates it, its first line
# sql_migrations.REBUILD.
MIGRATIONS = sql_migrations.files("bidwire_host.collector")
SCHEMA_VERSION = MIGRATIONS[-1].version


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


def _schema_objects(conn):
    """{(type, name): sql} of every table, index, trigger and view in the database (SQLite's own left out), the
    SQL with its blanks folded (as written, or as ALTER TABLE left it)."""
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchall()
    return {(t, n): " ".join((s or "").split()) for t, n, s in rows}


def expected_schema(version):
    """The schema objects a store of `version` has: the migrations up to it, run on an empty database."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)")
        for m in MIGRATIONS[:version]:
            for statement in _statements(m.sql):
                conn.execute(statement)
        return _schema_objects(conn)
    finally:
        conn.close()


def schema_problems(conn):
    """How the store's schema differs from what its version should have ([] when it does not): a trigger, view,
    index or table added, taken away or changed is code or structure no migration wrote (a backup from elsewhere
    with a trigger that rewrites results, issue 39 finding 8)."""
    version = schema_version(conn)
    if not version or version > SCHEMA_VERSION:
        return [f"schema version {version} is not one this bidwire knows (1 to {SCHEMA_VERSION})"]
    have, want = _schema_objects(conn), expected_schema(version)
    out = [f"{t} {n} is not in schema version {version}" for t, n in sorted(have.keys() - want.keys())]
    out += [f"{t} {n} of schema version {version} is missing" for t, n in sorted(want.keys() - have.keys())]
    out += [f"{t} {n} differs from schema version {version}'s" for t, n in sorted(have.keys() & want.keys())
            if have[(t, n)] != want[(t, n)]]
    return out


def migrate(conn, rebuild=None):
    """Bring the schema up to SCHEMA_VERSION, each migration in its own transaction; then, if one of them changed a
    derived table, `rebuild(conn)` (derive.rebuild: the store does not know how tables are derived)."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)")
    current = schema_version(conn)
    if current and rebuild is None and any(m.rebuild for m in MIGRATIONS if m.version > current):
        raise StoreError("the schema change needs the derived tables rebuilt: open the store with rebuild= "
                         "(derive.open_store)")

    def apply(m):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(m.sql):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version VALUES (?, datetime('now'))", (m.version,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        log.debug("schema migrated to version %d (%s)", m.version, m.name)

    try:
        done = sql_migrations.run(MIGRATIONS, set(range(1, current + 1)), apply)
    except sql_migrations.MigrationError as e:
        raise StoreError(str(e)) from None
    if done:  # one line for the lot: a new store goes through every migration
        log.info("store schema %s version %d", f"migrated from version {current} to" if current else "created at",
                 schema_version(conn))
    if any(m.rebuild for m in done) and current and rebuild is not None:
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
                    if isinstance(e, StopIteration):  # a future cannot carry one: its caller would wait for ever
                        e = RuntimeError(f"a store job raised StopIteration: {e!r}")
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

    def own_reader(self):
        """A read-only connection of the caller's own, which it closes itself: for a thread that may still be
        reading when the store closes (close() closes the readers it handed out, and a connection closed under a
        running query crashed the process)."""
        return connect(self.path, readonly=True)

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
