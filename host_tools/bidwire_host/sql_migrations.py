"""The one runner of schema migrations, the collector's (SQLite, collector/store.py) and the hub's (PostgreSQL,
hub/db.py): numbered SQL files `NNNN_name.sql` in a package's `migrations` folder, numbered 1, 2, 3... with no
gap, each applied once, in order, in its own transaction, and recorded by the store that runs it.

A store says how to apply one file and record it (`apply`) and which versions it has (`applied`); the runner reads
the files, refuses a store newer than the code, and applies what is missing. A file whose first line is REBUILD
changes a derived table: the collector rebuilds its derived tables from the raw events after it.
"""
import re
from dataclasses import dataclass
from importlib import resources

FILE = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
REBUILD = "-- bidwire: rebuild the derived tables"


class MigrationError(RuntimeError):
    """The migration files are not numbered 1, 2, 3..., or the store is newer than this code."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def rebuild(self):
        return self.sql.startswith(REBUILD)


def files(package):
    """[Migration] of `package`'s migrations folder, in order."""
    out = []
    for entry in resources.files(package).joinpath("migrations").iterdir():
        m = FILE.match(entry.name)
        if m:
            out.append(Migration(int(m[1]), entry.name, entry.read_text(encoding="utf-8")))
    out.sort(key=lambda m: m.version)
    if [m.version for m in out] != list(range(1, len(out) + 1)):
        raise MigrationError(f"{package}'s migrations are not numbered 1, 2, 3...: {[m.name for m in out]}")
    return out


def run(migrations, applied, apply):
    """Apply, in order, every migration whose version is not in `applied`, each with `apply(migration)` (one
    transaction that also records it); the migrations applied now."""
    latest = migrations[-1].version if migrations else 0
    if applied and max(applied) > latest:
        raise MigrationError(f"the database has schema version {max(applied)}, newer than this bidwire's {latest}: "
                             "upgrade bidwire")
    done = []
    for m in migrations:
        if m.version not in applied:
            apply(m)
            done.append(m)
    return done
