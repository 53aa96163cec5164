"""The hub's database: a psycopg 3 connection pool, and the schema migrations run at start.

Migrations are plain numbered SQL files (migrations/NNNN_name.sql), each run once in its own transaction and
recorded in `hub_schema`. Plain SQL rather than Alembic: the hub has no ORM for Alembic to compare against, the
files read as the schema they make, and a managed PostgreSQL runs them unchanged. Every worker calls `migrate` at
start; an advisory lock makes the others wait while the first one runs them.
"""
import os
import re
from importlib import resources

import psycopg
from psycopg_pool import ConnectionPool

_LOCK = 0x6269647769726501  # pg_advisory_lock key: "bidwire" + 1
_FILE = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations():
    """[(version, name, sql)] in order, from the package's migrations folder."""
    out = []
    for entry in resources.files("bidwire_host.hub").joinpath("migrations").iterdir():
        m = _FILE.match(entry.name)
        if m:
            out.append((int(m[1]), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(out)


def migrate(dsn):
    """Bring the schema up to date; the versions applied now (an empty list when it was current)."""
    applied = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK,))
        try:
            conn.execute("CREATE TABLE IF NOT EXISTS hub_schema (version integer PRIMARY KEY, name text NOT NULL, "
                         "applied_at timestamptz NOT NULL DEFAULT now())")
            done = {v for (v,) in conn.execute("SELECT version FROM hub_schema")}
            for version, name, sql in migrations():
                if version in done:
                    continue
                with conn.transaction():
                    conn.execute(sql)
                    conn.execute("INSERT INTO hub_schema (version, name) VALUES (%s, %s)", (version, name))
                applied.append(version)
            conn.execute("INSERT INTO hub_secret (secret) VALUES (%s) ON CONFLICT DO NOTHING", (os.urandom(32),))
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
    return applied


def pool(dsn, size=8):
    """The worker's pool: connections are checked before use, so a restarted server costs one retry, not a 500."""
    return ConnectionPool(dsn, min_size=1, max_size=size, open=True, check=ConnectionPool.check_connection,
                          kwargs={"autocommit": False})
