"""Collector scoring figures (issue 4): full rescoring of a 1,000-table x 27-board matchpoint field against a
naive pairwise baseline in the same run, and the incremental update after one new result.

    .venv/bin/python bench/collector_scoring.py [--tables 1000] [--boards 27] [--repeats 5] [--json]

A benchmark, not a test: a figure over its target is printed as "over target", never an error.
"""
import argparse
import json
import random
import statistics
import sys
import time

from bidwire.core import board as core_board
from bidwire_host.scoring import Result, Session, score_field
from bidwire_host.scoring.model import law77_score

TARGET_FULL_S = 1.0  # issue 4: full rescoring of 27,000 results
TARGET_INCREMENTAL_MS = 20.0  # issue 4: one new result
# A board's usual outcomes: (contract, declarer, tricks relative to the contract, weight).
_OUTCOMES = [("4S", "N", 0, 30), ("4S", "N", 1, 20), ("4S", "N", -1, 12), ("3NT", "S", 0, 10), ("3NT", "S", 1, 6),
             ("2S", "N", 2, 8), ("5DX", "E", -2, 4), ("4SX", "N", -1, 2), ("6S", "N", 0, 3), ("3S", "N", 1, 5)]


def field(tables, boards, seed=1):
    """Deterministic results: each board's outcomes drawn from _OUTCOMES, scored by the core (Law 77)."""
    rng = random.Random(seed)
    results = []
    for b in range(1, boards + 1):
        vul = core_board.vulnerability(b)
        picks = rng.choices(_OUTCOMES, weights=[w for *_, w in _OUTCOMES], k=tables)
        for t, (contract, declarer, over, _) in enumerate(picks, 1):
            tricks = int(contract[0]) + 6 + over
            score = law77_score(b, contract, declarer, tricks, vul)
            results.append(Result(b, str(t), str(t), score, contract, declarer, tricks))
    return results


def naive(results):
    """The baseline: every result compared with every other on its board, one pair at a time, then totals."""
    by_board = {}
    for r in results:
        by_board.setdefault(r.board, []).append(r)
    totals = {}
    for rs in by_board.values():
        for r in rs:
            units = 0
            for other in rs:
                if other is not r:
                    units += 2 if r.score_ns > other.score_ns else 1 if r.score_ns == other.score_ns else 0
            for who, mp in ((("NS", r.ns), units), (("EW", r.ew), 2 * (len(rs) - 1) - units)):
                totals[who] = totals.get(who, 0) + mp
    return totals


def timed(fn, repeats):
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples), samples, out


def run(tables=1000, boards=27, repeats=5):
    results = field(tables, boards)
    full, full_samples, (_, totals, _, _) = timed(lambda: score_field(results, "mp", two_fields=True), repeats)
    base, base_samples, base_totals = timed(lambda: naive(results), 1)
    if {k: t.mp for k, t in totals.items()} != base_totals:
        raise SystemExit("the naive baseline and score_field disagree: the benchmark's workload is broken")
    # Incremental: a session holding every result but the last of each board; then one result arrives.
    last = {}
    for r in results:
        last[r.board] = r
    session = Session("neuberg", two_fields=True, expected=tables)
    session.extend(r for r in results if last[r.board] is not r)
    incremental = []
    for r in last.values():
        t0 = time.perf_counter()
        session.add(r)
        incremental.append(time.perf_counter() - t0)
    correction = []
    for b in range(1, boards + 1):
        old = session.travellers[b].results[0]
        new = Result(b, old.ns, old.ew, -old.score_ns if old.score_ns else 50, old.contract)
        t0 = time.perf_counter()
        session.replace(b, 0, new)
        correction.append(time.perf_counter() - t0)
    return {
        "results": len(results),
        "full_rescoring_s": full, "full_samples_s": full_samples, "full_target_s": TARGET_FULL_S,
        "naive_pairwise_s": base,
        "speedup": base / full,
        "incremental_add_ms": statistics.median(incremental) * 1000,
        "incremental_add_max_ms": max(incremental) * 1000,
        "incremental_correction_ms": statistics.median(correction) * 1000,
        "incremental_target_ms": TARGET_INCREMENTAL_MS,
    }


def report(f):
    over = lambda value, target: "" if value <= target else "  (over target)"  # noqa: E731
    print(f"collector scoring, {f['results']:,} results ({sys.version.split()[0]} CPython)")
    print(f"  full rescoring, score_field mp     {f['full_rescoring_s'] * 1000:8.1f} ms   target "
          f"{f['full_target_s'] * 1000:.0f} ms{over(f['full_rescoring_s'], f['full_target_s'])}")
    print(f"  naive pairwise baseline            {f['naive_pairwise_s'] * 1000:8.1f} ms   "
          f"({f['speedup']:.0f}x slower)")
    print(f"  incremental: one new result (med)  {f['incremental_add_ms']:8.2f} ms   target "
          f"{f['incremental_target_ms']:.0f} ms{over(f['incremental_add_ms'], f['incremental_target_ms'])}")
    print(f"  incremental: one new result (max)  {f['incremental_add_max_ms']:8.2f} ms")
    print(f"  incremental: one correction (med)  {f['incremental_correction_ms']:8.2f} ms")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=1000)
    p.add_argument("--boards", type=int, default=27)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    a = p.parse_args(argv)
    f = run(a.tables, a.boards, a.repeats)
    print(json.dumps(f)) if a.json else report(f)
    return f


if __name__ == "__main__":
    main()
