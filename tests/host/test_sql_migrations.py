"""The one runner of schema migrations (bidwire_host/sql_migrations.py), the collector's and the hub's: numbered
files 1, 2, 3..., each applied once in order, a store newer than the code refused."""
import pytest

from bidwire_host import sql_migrations
from bidwire_host.sql_migrations import MigrationError


def package(tmp_path, name, files):
    folder = tmp_path / name / "migrations"
    folder.mkdir(parents=True)
    (tmp_path / name / "__init__.py").write_text("")
    for file, sql in files.items():
        (folder / file).write_text(sql)
    return name


def test_the_collectors_and_the_hubs_files_are_numbered_without_a_gap():
    for pkg in ("bidwire_host.collector", "bidwire_host.hub"):
        found = sql_migrations.files(pkg)
        assert [m.version for m in found] == list(range(1, len(found) + 1)) and found


def test_a_gap_in_the_numbers_is_refused(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    name = package(tmp_path, "gappy", {"0001_a.sql": "SELECT 1;", "0003_c.sql": "SELECT 3;", "notes.txt": "x"})
    with pytest.raises(MigrationError, match="not numbered 1, 2, 3"):
        sql_migrations.files(name)


def test_only_what_is_missing_is_applied_in_order_and_a_newer_store_is_refused(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    name = package(tmp_path, "tidy", {"0002_b.sql": "B", "0001_a.sql": "A", "0003_c.sql": "-- bidwire: rebuild the "
                                                                                        "derived tables\nC"})
    found = sql_migrations.files(name)
    assert [m.name for m in found] == ["0001_a.sql", "0002_b.sql", "0003_c.sql"]
    assert [m.rebuild for m in found] == [False, False, True]
    applied = []
    done = sql_migrations.run(found, {1}, lambda m: applied.append(m.sql))
    assert applied == ["B", found[2].sql] and [m.version for m in done] == [2, 3]
    assert sql_migrations.run(found, {1, 2, 3}, applied.append) == []
    with pytest.raises(MigrationError, match="schema version 4, newer than this bidwire's 3"):
        sql_migrations.run(found, {1, 2, 3, 4}, applied.append)
