"""A backup of the collector's store while units sync, and its restore (`bidwire backup`, `bidwire restore`;
docs/reliability.md "Backup and restore").

`backup` copies the store through SQLite's online backup API in one step, that is inside one read transaction:
the copy is the store as of one commit, whatever the writer does meanwhile (WAL: the writer is not held up). The
copy is made self-contained (rollback journal, no `-wal` beside it), checked (quick_check) and only then renamed
to its name, so a backup that exists is whole. Copying `bidwire.sqlite3` with `cp` is not a backup: the last
commits may be only in its `-wal`.

`restore` puts a backup in the place of a data directory's store, with the collector stopped: the backup is
checked first (SQLite's check, and its schema against what its version should have: a trigger, view, index or
table no migration wrote is refused, forced or not), and the files it replaces (the store, its `-wal` and
`-shm`) are moved aside, never deleted. It also checks what it replaces (`clashes`): a backup of another event
(its name, session or date differ from the store's), or one holding a (unit, seq) that the store holds with
other content (the units, which hold the store's version, would get a 409 on every retry), is refused unless
forced. A store that cannot be read is not compared: that is what a restore is for.
"""
import json
import os
import sqlite3
import time
from pathlib import Path

from bidwire_host.collector.store import DB_NAME, StoreError, check_file, damage, schema_problems, schema_version


def _fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy(src, dest):
    """src (a connection) into a new file at dest, through dest.tmp: self-contained, checked, fsynced; seconds."""
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.unlink(missing_ok=True)
    started = time.perf_counter()
    out = sqlite3.connect(tmp, isolation_level=None)
    try:
        src.backup(out)  # every page in one step: one read transaction on src, a consistent copy
        out.execute("PRAGMA journal_mode = DELETE")
        found = damage(out)
        if found:
            raise StoreError(f"the copy {tmp} fails SQLite's check ({found}); nothing written to {dest}")
    except BaseException:
        out.close()
        tmp.unlink(missing_ok=True)
        raise
    out.close()
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.replace(tmp, dest)
    _fsync_dir(dest.parent)
    return time.perf_counter() - started


def _counts(path):
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("events", "results")}
    finally:
        conn.close()


def backup(data_dir, out):
    """A consistent copy of data_dir's store at `out` (replaced if it is there), the collector running or not:
    {"path", "bytes", "seconds", "events", "results"}."""
    data_dir, out = Path(data_dir), Path(out)
    store = data_dir / DB_NAME
    if not store.exists():
        raise StoreError(f"no collector store in {data_dir} ({DB_NAME} is missing)")
    check_file(store)
    if out.resolve() in {store.resolve(), *(Path(f"{store}-{x}").resolve() for x in ("wal", "shm"))}:
        raise StoreError(f"{out} is the store itself: back it up to another file")
    if not out.parent.is_dir():  # else sqlite3 says "unable to open database file", which reads as the store's fault
        raise StoreError(f"cannot write the backup {out}: the directory {out.parent} does not exist; create it first "
                         f"(mkdir -p {out.parent}) or back up to a file in a directory that exists")
    src = sqlite3.connect(store, isolation_level=None)  # read only; a read-only URI would need the -shm to exist
    try:
        src.execute("PRAGMA busy_timeout = 10000")
        seconds = _copy(src, out)
    except sqlite3.DatabaseError as e:
        raise StoreError(f"cannot back up {store}: {e}") from None
    finally:
        src.close()
    return {"path": str(out), "bytes": out.stat().st_size, "seconds": seconds, **_counts(out)}


def in_use(store):
    """Whether a process (a running collector) has the store open: it holds a lock an exclusive one must wait for."""
    conn = sqlite3.connect(store, isolation_level=None, timeout=0.2)
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("COMMIT")
        return False
    except sqlite3.OperationalError as e:
        return "locked" in str(e)
    except sqlite3.DatabaseError:  # damaged or not a database: it opens nothing, so nobody has it open as a store
        return False
    finally:
        conn.close()


def _event_of(conn):
    """(event name, session name, session date) of the event a store has loaded, or None."""
    try:
        row = conn.execute("SELECT body, session FROM setup WHERE id = 1").fetchone()
    except sqlite3.DatabaseError:
        return None
    if row is None:
        return None
    try:
        data = json.loads(row[0])
        sessions = [s for s in data.get("sessions") or [] if isinstance(s, dict)]
        session = next((s for s in sessions if s.get("name") == row[1]), sessions[0] if sessions else {})
        return data.get("name"), session.get("name"), session.get("date")
    except (ValueError, AttributeError, TypeError):
        return None


def _named(event):
    return ", ".join(str(x) for x in event if x) or "unnamed"


def clashes(store, backup_path, backup_conn):
    """Why the backup should not replace the store at `store` (a list of reasons; empty: none found)."""
    try:
        conn = sqlite3.connect(f"{Path(store).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.DatabaseError:
        return []
    try:
        if damage(conn) or not schema_version(conn):
            return []  # a damaged or empty store: nothing to compare, and what a restore is for
        out = []
        mine, theirs = _event_of(conn), _event_of(backup_conn)
        if mine and theirs and mine != theirs:
            out.append(f"it is a backup of another event ({_named(theirs)}) than the store's ({_named(mine)})")
        conn.execute("ATTACH DATABASE ? AS backup", (f"{Path(backup_path).resolve().as_uri()}?mode=ro",))
        rows = conn.execute("SELECT e.unit, e.seq FROM main.events e JOIN backup.events b "
                            "ON b.unit = e.unit AND b.seq = e.seq WHERE b.body != e.body "
                            "ORDER BY e.unit, e.seq").fetchall()
        if rows:
            first = ", ".join(f"{u} seq {s}" for u, s in rows[:3])
            out.append(f"{len(rows)} of its events have the (unit, seq) of an event in the store with other content "
                       f"({first}{', ...' if len(rows) > 3 else ''}): the units would get a 409 on every retry")
        return out
    except sqlite3.DatabaseError:
        return []
    finally:
        conn.close()


def restore(data_dir, backup_path, force=False):
    """Put the backup in the place of data_dir's store (the collector stopped): {"path", "moved_to" (the directory
    the replaced files went to, or None), "events", "results", "forced" (the clashes overridden)}. Refused
    (StoreError) when it clashes with the store it replaces (`clashes`), unless `force`."""
    data_dir, backup_path = Path(data_dir), Path(backup_path)
    if not backup_path.is_file():
        raise StoreError(f"no backup at {backup_path}")
    check_file(backup_path)
    src = sqlite3.connect(f"{backup_path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        found = damage(src)
        if not found and not schema_version(src):
            found = "it holds no collector store (no schema_version)"
        if not found:
            found = "; ".join(schema_problems(src)[:5])  # a trigger or a view is code: never restored, even forced
        if found:
            raise StoreError(f"the backup {backup_path} is not a sound store ({found}): nothing restored")
        data_dir.mkdir(parents=True, exist_ok=True)
        store = data_dir / DB_NAME
        if store.exists() and store.stat().st_size and in_use(store):
            raise StoreError(f"the store {store} is open in another process: stop the collector first")
        why = clashes(store, backup_path, src) if store.exists() and store.stat().st_size else []
        if why and not force:
            raise StoreError(f"not restored: {'; and '.join(why)}; nothing changed (pass --force to restore it "
                             "anyway)")
        replaced = [p for p in (store, Path(f"{store}-wal"), Path(f"{store}-shm")) if p.exists()]
        aside = None
        if replaced:
            stamp, n = time.strftime("replaced-%Y%m%dT%H%M%S"), 1
            aside = data_dir / stamp
            while aside.exists():
                n += 1
                aside = data_dir / f"{stamp}-{n}"
            aside.mkdir()
            for p in replaced:
                os.replace(p, aside / p.name)
        _copy(src, store)
    except sqlite3.DatabaseError as e:
        raise StoreError(f"cannot restore {backup_path}: {e}") from None
    finally:
        src.close()
    return {"path": str(store), "moved_to": None if aside is None else str(aside), **_counts(store), "forced": why}
