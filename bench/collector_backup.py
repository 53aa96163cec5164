"""Collector backup figures (issue 12): `bidwire backup` of a store holding 180,000 results, and the integrity
check every start of the collector runs on that store.

The store is collector_scoring.py's (the results written straight into the derived `results` table, no raw
events). Baseline for the backup: copying the same file with `shutil.copyfile` and an fsync, in the same run (what a
naive backup does: not consistent while units sync, and without the `-wal` the last commits are missing). The
backup is timed from outside, the whole command (Python's start-up and the check of the copy included).

    .venv/bin/python bench/collector_backup.py [--tables 6000 --boards 30] [--json]

A benchmark, not a test: a figure over its target is printed as "over target", never an error.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import click
from collector_scoring import store_with_results  # noqa: E402

from bidwire_host.collector.store import DB_NAME, Store  # noqa: E402

BIDWIRE = Path(sys.executable).with_name("bidwire")
TARGET_BACKUP_S = 10.0  # a director backs up between rounds without waiting on it
TARGET_CHECK_S = 2.0  # the check at start: a restarted collector is back before the units' retries give up
REPEATS = 3


def _copy(src, dest):
    shutil.copyfile(src, dest)
    with open(dest, "rb+") as f:
        os.fsync(f.fileno())


def run(tables=6000, boards=30):
    with tempfile.TemporaryDirectory(prefix="bidwire-bench-backup-") as tmp:
        tmp = Path(tmp)
        data = tmp / "data"
        results = store_with_results(data, tables, boards)
        size = (data / DB_NAME).stat().st_size
        backup_s, copy_s, check_s = [], [], []
        for k in range(REPEATS):
            out = tmp / f"backup-{k}.sqlite3"
            t0 = time.perf_counter()
            subprocess.run([str(BIDWIRE), "backup", "--data", str(data), str(out)], check=True, capture_output=True)
            backup_s.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            _copy(data / DB_NAME, tmp / f"copy-{k}.sqlite3")
            copy_s.append(time.perf_counter() - t0)
            with Store(data) as store:
                check_s.append(store.check_s)
        return {"results": results, "bytes": size, "backup_bytes": out.stat().st_size, "backup_s": backup_s,
                "copy_s": copy_s, "check_s": check_s}


def figures(r):
    """Dicts of figure(**...) arguments for bench/run.py."""
    store = f"a store of {r['results']:,} results ({r['bytes'] / 2**20:.1f} MiB; collector_scoring.py's, no raw events)"
    return [
        {"name": f"collector: bidwire backup, {r['results']:,} results", "value": statistics.median(r["backup_s"]),
         "unit": "s", "target": TARGET_BACKUP_S, "spread": r["backup_s"], "tag": "file copy",
         "baseline": statistics.median(r["copy_s"]),
         "method": f"`bidwire backup --data DIR OUT` of {store}, the whole command timed (start-up, SQLite's online "
                   f"backup in one step, journal mode set, quick_check of the copy, fsync, rename); median of "
                   f"{REPEATS}; the copy {r['backup_bytes'] / 2**20:.1f} MiB",
         "baseline_name": "shutil.copyfile of the same store file plus fsync (same run): not consistent while units "
                          "sync, and blind to the -wal"},
        {"name": f"collector: store check at start, {r['results']:,} results", "value": statistics.median(r["check_s"]),
         "unit": "s", "target": TARGET_CHECK_S, "spread": r["check_s"],
         "method": f"SQLite's quick_check as Store() runs it before the collector starts (store.py), on {store}; "
                   f"median of {REPEATS}"},
    ]


@click.command(help=__doc__.splitlines()[0])
@click.option("--tables", type=int, default=6000, show_default=True)
@click.option("--boards", type=int, default=30, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON")
def main(tables, boards, as_json):
    r = run(tables, boards)
    if as_json:
        print(json.dumps(r, indent=1))
        return
    for f in figures(r):
        base = f" (baseline {f['baseline']:.3f} s: {f['tag']})" if f.get("baseline") is not None else ""
        print(f"{f['name']}: {f['value']:.3f} {f['unit']} (target {f['target']:g}){base}")


if __name__ == "__main__":
    main()
