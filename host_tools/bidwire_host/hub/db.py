"""The hub's database: a psycopg 3 connection pool, and the schema migrations run at start.

Migrations are plain numbered SQL files (migrations/NNNN_name.sql), run by the one runner the collector uses too
(bidwire_host/sql_migrations.py), each once in its own transaction and recorded in `hub_schema`. Plain SQL rather
than Alembic: the hub has no ORM for Alembic to compare against, the files read as the schema they make, and a
managed PostgreSQL runs them unchanged. Every worker calls `migrate` at
start; an advisory lock makes the others wait while the first one runs them.
"""
import os

import psycopg
from psycopg_pool import ConnectionPool

from bidwire_host import sql_migrations

_LOCK = 0x6269647769726501  # pg_advisory_lock key: "bidwire" + 1


def migrations():
    """The hub's migrations, in order (hub/migrations/, through the one runner: bidwire_host/sql_migrations.py)."""
    return sql_migrations.files("bidwire_host.hub")


def migrate(dsn):
    """Bring the schema up to date; the versions applied now (an empty list when it was current)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK,))
        try:
            conn.execute("CREATE TABLE IF NOT EXISTS hub_schema (version integer PRIMARY KEY, name text NOT NULL, "
                         "applied_at timestamptz NOT NULL DEFAULT now())")

            def apply(m):
                with conn.transaction():
                    conn.execute(m.sql)
                    conn.execute("INSERT INTO hub_schema (version, name) VALUES (%s, %s)", (m.version, m.name))

            done = sql_migrations.run(migrations(), {v for (v,) in conn.execute("SELECT version FROM hub_schema")},
                                      apply)
            conn.execute("INSERT INTO hub_secret (secret) VALUES (%s) ON CONFLICT DO NOTHING", (os.urandom(32),))
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
    return [m.version for m in done]


def pool(dsn, size=8):
    """The worker's pool: connections are checked before use, so a restarted server costs one retry, not a 500."""
    return ConnectionPool(dsn, min_size=1, max_size=size, open=True, check=ConnectionPool.check_connection,
                          kwargs={"autocommit": False})
