"""Collector scoring figures (issue 4): full matchpoint rescoring of fields of 338, 5,400, 27,000 and 180,000
results, each against baselines run in the same process on the same field, how the time grows with the size,
the memory the rescoring takes, the memory of the collector whose store holds that many results, and the
incremental update after one new result (on the 27,000-result field).

Baselines:
- naive pairwise: every result compared with every other on its board, one pair at a time (O(n²) per board);
  run only where a field has at most NAIVE_MAX_PAIRS comparisons (never extrapolated): not at 180,000;
- sort-based: the straightforward implementation one would write by hand (each board's scores sorted once,
  counts below and equal with bisect, totals in a dict), run at every size; it scores matchpoints only, with
  none of score_field's exact Fractions, rows, tops or ranking.
Both must give score_field's matchpoint totals exactly, or the run stops.

    .venv/bin/python bench/collector_scoring.py [--sizes 338,5400,27000,180000] [--skip-memory] [--json]

A benchmark, not a test: a figure over its target is printed as "over target", never an error.
"""
import bisect
import gc
import json
import math
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from itertools import pairwise
from pathlib import Path

import click

from bidwire.core import board as core_board
from bidwire_host.scoring import Result, Session, score_field
from bidwire_host.scoring.model import law77_score

HERE = Path(__file__).resolve()
TARGET_FULL_S = 1.0  # issue 4: full rescoring of 27,000 results
TARGET_INCREMENTAL_MS = 20.0  # issue 4: one new result
TARGET_STRESS_MS = 100.0  # issue 41: full rescoring of 180,000 results
STRESS_SIZE = 180000
# (what it stands for, tables, boards): tables x boards results, each board played once at every table.
SIZES = [("club", 13, 26), ("big field", 200, 27), ("simultaneous", 1000, 27), ("stress", 6000, 30)]
INCREMENTAL_SIZE = 27000  # the field of the incremental figures
NAIVE_MAX_PAIRS = 50_000_000  # comparisons; the 27,000-result field makes 27 million (about 3 s here)
SECTION_TABLES = 25  # the collector's store: sections of at most 25 tables, as a director would seat them
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


def _by_board(results):
    by_board = {}
    for r in results:
        by_board.setdefault(r.board, []).append(r)
    return by_board


def naive(results):
    """The O(n²) baseline: every result compared with every other on its board, one pair at a time, then totals."""
    totals = {}
    for rs in _by_board(results).values():
        for r in rs:
            units = 0
            for other in rs:
                if other is not r:
                    units += 2 if r.score_ns > other.score_ns else 1 if r.score_ns == other.score_ns else 0
            for who, mp in ((("NS", r.ns), units), (("EW", r.ew), 2 * (len(rs) - 1) - units)):
                totals[who] = totals.get(who, 0) + mp
    return totals


def sort_based(results):
    """The straightforward baseline: per board the scores sorted once, each result's units (2 per score beaten,
    1 per tie) from two bisections, then totals."""
    totals = {}
    for rs in _by_board(results).values():
        scores = sorted(r.score_ns for r in rs)
        top = 2 * (len(rs) - 1)
        for r in rs:
            below = bisect.bisect_left(scores, r.score_ns)
            ties = bisect.bisect_right(scores, r.score_ns) - below - 1
            units = 2 * below + ties
            for who, mp in ((("NS", r.ns), units), (("EW", r.ew), top - units)):
                totals[who] = totals.get(who, 0) + mp
    return totals


def comparisons(results):
    """How many ordered pairs the naive baseline compares: the sum over boards of n(n - 1)."""
    return sum(len(rs) * (len(rs) - 1) for rs in _by_board(results).values())


def full(results):
    """What is measured: score_field's full rescoring (matchpoints, NS and EW ranked apart)."""
    return score_field(results, "mp", two_fields=True)


def timed(fns, repeats):
    """{name: (median s, samples s, last result)} of each function's run time; the functions take turns in each
    repeat (so that a change in the machine's load falls on all of them). The garbage collector is off while a run
    is timed, as timeit does; a full gc.collect() before each run (the method until issue 41) left every run
    starting cold, which a collector never does: a numpy call's first use then costs some 60 us, a tenth of the
    club's field."""
    samples = {name: [] for name in fns}
    last = dict.fromkeys(fns)
    for _ in range(repeats):
        for name, fn in fns.items():
            last[name] = None
            gc.disable()
            try:
                t0 = time.perf_counter()
                last[name] = fn()
                samples[name].append(time.perf_counter() - t0)
            finally:
                gc.enable()
    return {name: (statistics.median(xs), xs, last[name]) for name, xs in samples.items()}


def repeats_for(n):
    """More samples of the small fields, whose times are short and noisier on a shared machine."""
    return 25 if n < 1000 else 15 if n < 10000 else 9 if n < 100000 else 5


def rescoring(name, tables, boards):
    """score_field and its baselines on one field: medians (s) and samples; the naive one only where it is at
    most NAIVE_MAX_PAIRS comparisons."""
    results = field(tables, boards)
    n = len(results)
    reps = repeats_for(n)
    runs = timed({"full": lambda: full(results), "sort": lambda: sort_based(results)}, reps)
    (t_full, full_samples, (_, totals, _, _)), (t_sort, sort_samples, sort_totals) = runs["full"], runs["sort"]
    expected = {k: t.mp for k, t in totals.items()}
    if sort_totals != expected:
        raise SystemExit(f"{name}: the sort-based baseline and score_field disagree: the workload is broken")
    pairs = comparisons(results)
    out = {"name": name, "tables": tables, "boards": boards, "results": n, "repeats": reps,
           "full_s": t_full, "full_samples_s": full_samples, "sort_s": t_sort, "sort_samples_s": sort_samples,
           "pairs": pairs, "naive_s": None, "naive_samples_s": None}
    if pairs <= NAIVE_MAX_PAIRS:
        naive_reps = 5 if pairs <= NAIVE_MAX_PAIRS // 10 else 1
        out["naive_s"], out["naive_samples_s"], naive_totals = timed({"naive": lambda: naive(results)},
                                                                     naive_reps)["naive"]
        if naive_totals != expected:
            raise SystemExit(f"{name}: the naive baseline and score_field disagree: the workload is broken")
    return out


def growth(a, b, key):
    """How a time grows from field a to field b: the ratio, the exponent k of time ∝ results^k between them."""
    if a[key] is None or b[key] is None:
        return None
    ratio = b[key] / a[key]
    return {"ratio": ratio, "exponent": math.log(ratio) / math.log(b["results"] / a["results"])}


def models(a, b):
    """What the time ratio from field a to field b would be if the time grew linearly in the results, as
    n log n of each board's traveller, or as the square of each board's traveller (the naive baseline's
    comparisons)."""
    def nlogn(f):
        return f["results"] * math.log(f["tables"])

    return {"linear": b["results"] / a["results"], "n log n per board": nlogn(b) / nlogn(a),
            "quadratic per board": b["pairs"] / a["pairs"]}


def step(a, b):
    """Growth from one field to the next: score_field's, the baselines', and the models' ratios."""
    return {"from": a["results"], "to": b["results"], "full": growth(a, b, "full_s"), "sort": growth(a, b, "sort_s"),
            "naive": growth(a, b, "naive_s"), "models": models(a, b)}


def fit(fields, key):
    """The exponent k of time ∝ results^k fitted (least squares, log-log) over every field measured."""
    pts = [(math.log(f["results"]), math.log(f[key])) for f in fields if f[key] is not None]
    if len(pts) < 2:
        return None
    mx, my = statistics.fmean(x for x, _ in pts), statistics.fmean(y for _, y in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


def nearest(ratio, refs):
    """The model whose ratio is nearest to the measured one (on a log scale)."""
    return min(refs, key=lambda k: abs(math.log(ratio / refs[k])))


def incremental(tables, boards):
    """Neuberg Session holding every result but each board's last; the last result added, board by board (ms),
    then a correction (Session.replace) on each board."""
    results = field(tables, boards)
    last = {}
    for r in results:
        last[r.board] = r
    session = Session("neuberg", two_fields=True, expected=tables)
    session.extend(r for r in results if last[r.board] is not r)
    added = []
    for r in last.values():
        t0 = time.perf_counter()
        session.add(r)
        added.append(time.perf_counter() - t0)
    corrected = []
    for b in range(1, boards + 1):
        old = session.travellers[b].results[0]
        new = Result(b, old.ns, old.ew, -old.score_ns if old.score_ns else 50, old.contract)
        t0 = time.perf_counter()
        session.replace(b, 0, new)
        corrected.append(time.perf_counter() - t0)
    return {"results": len(results), "add_ms": statistics.median(added) * 1000, "add_max_ms": max(added) * 1000,
            "correction_ms": statistics.median(corrected) * 1000, "target_ms": TARGET_INCREMENTAL_MS}


# ---- memory: a fresh process per measurement ------------------------------------------------------------------
def vm(key):
    """VmHWM (peak) or VmRSS (now) of this process, in bytes."""
    status = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{key}:\s+(\d+) kB", status, re.M).group(1)) * 1024


def probe(tables, boards, what):
    """In a fresh process (--probe): build the field (unless tables is 0), rescore it once with `what` ("full" or
    "sort"), then again under tracemalloc; the process's peak RSS after each step and the rescoring's own peak
    of Python allocations (the input excluded)."""
    out = {"start_hwm": vm("VmHWM")}
    if tables:
        results = field(tables, boards)
        out["loaded_hwm"] = vm("VmHWM")
        fn = {"full": full, "sort": sort_based}[what]
        fn(results)
        out["scored_hwm"] = vm("VmHWM")
        tracemalloc.start()
        fn(results)
        out["traced_peak"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return out


def run_probe(tables, boards, what):
    proc = subprocess.run([sys.executable, str(HERE), "--probe", str(tables), str(boards), what],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def rescoring_memory(tables, boards, empty):
    """Peak RSS of a process that builds the field and rescores it (score_field, then the sort-based baseline in
    another process), less its own peak before it built anything (interpreter and imports: what a process that
    loads nothing holds; a separate such process, `empty`, is reported beside it); bytes."""
    f, s = run_probe(tables, boards, "full"), run_probe(tables, boards, "sort")
    return {"full": f["scored_hwm"] - f["start_hwm"], "sort": s["scored_hwm"] - s["start_hwm"],
            "input": f["loaded_hwm"] - f["start_hwm"], "full_traced": f["traced_peak"],
            "sort_traced": s["traced_peak"], "start_hwm": f["start_hwm"], "empty_hwm": empty["start_hwm"]}


def store_with_results(data, tables, boards):
    """A collector data directory whose store holds the field's results, seated in sections of SECTION_TABLES
    tables (NS pairs 1-25, EW 26-50), written straight into the derived `results` table: the standings are fed
    from it at start-up. No raw events (180,000 results would be about two million of them)."""
    from collector_bench import section_name

    from bidwire_host.collector.store import Store

    rows = []
    for k, r in enumerate(field(tables, boards)):
        section, table = divmod(int(r.ns) - 1, SECTION_TABLES)
        table += 1
        rows.append((f"B{r.ns}", k + 1, k + 1, r.board, section_name(section), table, 1, str(table),
                     str(SECTION_TABLES + table), r.contract, r.declarer, r.tricks, r.score_ns))
    with Store(data) as store:
        store.write(lambda conn: conn.executemany(
            "INSERT INTO results (unit, seq, board_id, board, section, table_no, round, ns, ew, contract, declarer, "
            "tricks, score_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows), timeout=300)
    conn = sqlite3.connect(data / "bidwire.sqlite3")
    try:
        return conn.execute("SELECT count(*) FROM results").fetchone()[0]
    finally:
        conn.close()


def collector_memory(tables, boards, tmp):
    """`bidwire serve` on a store holding tables x boards results (0: an empty store): seconds until it answers
    /healthz (its standings loaded, every result scored), its peak and current RSS then."""
    from collector_bench import BIDWIRE, Server, memory

    data = tmp / f"store-{tables}x{boards}"
    held = store_with_results(data, tables, boards) if tables else 0
    keyring = tmp / "keyring.json"
    keyring.write_text(json.dumps({"units": {}}))
    t0 = time.perf_counter()
    server = Server([str(BIDWIRE), "serve", "--data", str(data), "--keyring", str(keyring), "--port", "0",
                     "--log-level", "warning"], tmp / f"serve-{tables}.log", ready_timeout=600)
    try:
        ready = time.perf_counter() - t0
        return {"results": held, "ready_s": ready, **memory(server.proc.pid)}
    finally:
        server.stop()


def run(sizes=None, memory=True):
    """Every figure of this file; sizes: the result counts to measure (default all of SIZES)."""
    chosen = [s for s in SIZES if sizes is None or s[1] * s[2] in sizes]
    fields = [rescoring(*s) for s in chosen]
    steps = [step(a, b) for a, b in pairwise(fields)]
    out = {"fields": fields, "growth": steps, "target_full_s": TARGET_FULL_S, "naive_max_pairs": NAIVE_MAX_PAIRS,
           "fit": {key: fit(fields, f"{key}_s") for key in ("full", "sort", "naive")}}
    if any(t * b == INCREMENTAL_SIZE for _, t, b in chosen):
        out["incremental"] = incremental(*next((t, b) for _, t, b in chosen if t * b == INCREMENTAL_SIZE))
    if memory:
        empty = run_probe(0, 0, "full")
        for f in fields:
            f["memory"] = rescoring_memory(f["tables"], f["boards"], empty)
        with tempfile.TemporaryDirectory(prefix="bidwire-bench-") as tmp:
            out["collector_empty"] = collector_memory(0, 0, Path(tmp))
            for f in fields:
                f["collector"] = collector_memory(f["tables"], f["boards"], Path(tmp))
    return out


# ---- figures for bench/run.py ---------------------------------------------------------------------------------
SORTED = ("sort-based straightforward matchpoints: each board's scores sorted once, bisect for below/equal, "
          "totals in a dict (same run, same field)")


def mib(n):
    return n / (1024 * 1024)


def label(f):
    return f"{f['results']:,} results, {f['name']} {f['tables']:,}x{f['boards']}"


def time_figure(f):
    """Full rescoring time of one field, beside the sort-based baseline (issue 41: faster than it at every size),
    the naive one in the method where it ran."""
    naive_note = (f"naive pairwise {f['naive_s'] * 1000:.1f} ms ({f['pairs']:,} comparisons)" if f["naive_s"]
                  is not None else f"naive pairwise not run: {f['pairs']:,} comparisons, over the bench's "
                  f"{NAIVE_MAX_PAIRS:,}")
    method = (f"score_field(results, 'mp', two_fields=True) over {f['tables']:,} tables x {f['boards']} boards "
              f"(each board's results drawn from ten usual outcomes, Law 77 scores by the core), CPython; median "
              f"of {f['repeats']} repeats; {f['full_s'] * 1e6 / f['results']:.2f} µs per result; baselines on the "
              f"same field, totals checked equal: sort-based {f['sort_s'] * 1000:.1f} ms (median of {f['repeats']}), "
              f"{naive_note}")
    target = {INCREMENTAL_SIZE: TARGET_FULL_S * 1000, STRESS_SIZE: TARGET_STRESS_MS}.get(f["results"])
    return {"name": f"collector: full rescoring, {label(f)}", "value": f["full_s"] * 1000, "unit": "ms",
            "method": method, "target": target, "baseline": f["sort_s"] * 1000, "baseline_name": SORTED,
            "tag": "sort-based",
            "spread": [x * 1000 for x in f["full_samples_s"]],
            "baselines": [{"name": "sort-based", "value": round(f["sort_s"] * 1000, 2)},
                          {"name": "naive pairwise",
                           "value": None if f["naive_s"] is None else round(f["naive_s"] * 1000, 2)}]}


def growth_figure(st):
    """How the rescoring time grows from one size to the next, beside the naive baseline's growth where it ran
    at both sizes, else the sort-based baseline's; the nearest of three models named."""
    g, refs = st["full"], st["models"]
    base_key = "naive" if st["naive"] is not None else "sort"
    shown = ", ".join(f"{k} x{v:.2f}" for k, v in refs.items())
    method = (f"ratio of the full-rescoring medians above: x{g['ratio']:.2f} for x{st['to'] / st['from']:.2f} "
              f"results, exponent {g['exponent']:.2f} (time ∝ results^k between the two sizes); models: {shown}; "
              f"nearest: {nearest(g['ratio'], refs)}; sort-based baseline x{st['sort']['ratio']:.2f} (nearest: "
              f"{nearest(st['sort']['ratio'], refs)})" +
              (f"; naive pairwise x{st['naive']['ratio']:.2f} (nearest: {nearest(st['naive']['ratio'], refs)})"
               if st["naive"] else "; naive pairwise not run at both sizes"))
    return {"name": f"collector: rescoring time growth, {st['from']:,} -> {st['to']:,} results",
            "value": g["ratio"], "unit": "x", "method": method, "baseline": st[base_key]["ratio"],
            "baseline_name": f"the {'naive pairwise' if base_key == 'naive' else 'sort-based'} baseline's "
                             "time ratio between the same two fields",
            "tag": "naive pairwise" if base_key == "naive" else "sort-based"}


def fit_figure(s):
    """The exponent fitted over every size, beside the sort-based baseline's."""
    fields, k = s["fields"], s["fit"]
    sizes = ", ".join(f"{f['results']:,}" for f in fields)
    naive = ", ".join(f"{f['results']:,}" for f in fields if f["naive_s"] is not None)
    method = (f"least-squares slope of log(median time) on log(results) over the fields of {sizes} results: "
              "time ∝ results^k, k = 1 is linear" +
              (f"; naive pairwise k {k['naive']:.2f} over {naive}" if k["naive"] is not None else ""))
    return {"name": f"collector: rescoring growth exponent k, {fields[0]['results']:,}-{fields[-1]['results']:,}",
            "value": k["full"], "unit": "", "method": method, "baseline": k["sort"], "tag": "sort-based",
            "baseline_name": f"{SORTED}: the same fit"}


def memory_figures(f, empty):
    """The rescoring's peak memory and the collector's resident set holding the field, each beside a baseline."""
    m, c = f["memory"], f["collector"]
    rescore = (f"a fresh CPython process builds the {f['results']:,} results and rescores them once with "
               f"score_field: its VmHWM (/proc/self/status) less its own VmHWM before building anything "
               f"({mib(m['start_hwm']):.1f} MiB: interpreter and imports; a process that loads nothing: "
               f"{mib(m['empty_hwm']):.1f} MiB); the input alone "
               f"{mib(m['input']):.1f} MiB; tracemalloc peak of the rescoring itself (input excluded) "
               f"{mib(m['full_traced']):.1f} MiB, of the sort-based baseline {mib(m['sort_traced']):.1f} MiB")
    served = (f"`bidwire serve` on a store holding {c['results']:,} results in sections of {SECTION_TABLES} tables "
              f"(rows written into the `results` table, no raw events): VmHWM of the server once /healthz answers, "
              f"its standings loaded and scored ({c['ready_s']:.1f} s from start; the empty store's "
              f"{empty['ready_s']:.1f} s); VmRSS then {mib(c['rss']):.1f} MiB")
    return [
        {"name": f"collector: load + rescore peak RSS, {f['results']:,} results", "value": mib(m["full"]),
         "unit": "MiB",
         "method": rescore, "baseline": mib(m["sort"]), "tag": "sort-based",
         "baseline_name": f"{SORTED}: the same measure"},
        {"name": f"collector: server peak RSS holding {f['results']:,} results", "value": mib(c["hwm"]),
         "unit": "MiB",
         "method": served, "baseline": mib(empty["hwm"]), "tag": "empty store",
         "baseline_name": "`bidwire serve` on an empty store: VmHWM once /healthz answers (same run)"},
        {"name": f"collector: start-up holding {f['results']:,} results", "value": c["ready_s"] * 1000,
         "unit": "ms",
         "method": "seconds from starting `bidwire serve` on that store until /healthz answers: the standings "
                   "loaded (Standings.load: every result at once, each board scored once) — a restart after a "
                   "crash takes this long", "baseline": empty["ready_s"] * 1000, "tag": "empty store",
         "baseline_name": "`bidwire serve` on an empty store (same run)"},
    ]


def figures(s):
    """Dicts of figure(**...) arguments for bench/run.py: times, growth, memory, incremental update."""
    out = [time_figure(f) for f in s["fields"]]
    out += [growth_figure(st) for st in s["growth"]]
    if len(s["fields"]) > 2:
        out.append(fit_figure(s))
    for f in s["fields"]:
        if "memory" in f:
            out += memory_figures(f, s["collector_empty"])
    inc = s.get("incremental")
    if inc:
        base = next((f for f in s["fields"] if f["results"] == inc["results"]), None)
        out.append({"name": "collector: incremental update, one new result", "value": inc["add_ms"], "unit": "ms",
                    "method": f"Session('neuberg').add of each board's last result to a session holding the rest of "
                              f"the {inc['results']:,}-result field; median over its boards, max "
                              f"{inc['add_max_ms']:.2f} ms; a correction (Session.replace) "
                              f"{inc['correction_ms']:.2f} ms", "target": inc["target_ms"],
                    "baseline": None if base is None else base["full_s"] * 1000, "tag": "full rescoring",
                    "baseline_name": "what an update would take without the incremental path: the full rescoring of "
                                     "the same field (score_field, the figure above, same run)"})
    return out


def report(s):
    print(f"collector scoring ({sys.version.split()[0]} CPython)")
    for f in s["fields"]:
        naive_ms = "not run" if f["naive_s"] is None else f"{f['naive_s'] * 1000:9.1f} ms"
        print(f"  {label(f):<44} score_field {f['full_s'] * 1000:8.1f} ms  sort-based {f['sort_s'] * 1000:7.1f} ms"
              f"  naive {naive_ms}")
        if "memory" in f:
            m, c = f["memory"], f["collector"]
            print(f"  {'':<44} rescoring peak RSS {mib(m['full']):6.1f} MiB (sort-based {mib(m['sort']):.1f}, input "
                  f"{mib(m['input']):.1f});  collector {mib(c['hwm']):.1f} MiB after {c['ready_s']:.1f} s")
    for g in s["growth"]:
        print(f"  {g['from']:>7,} -> {g['to']:>7,}: x{g['full']['ratio']:.2f} (k {g['full']['exponent']:.2f}), "
              f"sort-based x{g['sort']['ratio']:.2f}" +
              (f", naive x{g['naive']['ratio']:.2f}" if g["naive"] else ""))
    fit_k = s["fit"]
    if fit_k["full"] is not None:  # one size alone has no fit
        print(f"  fitted exponent: score_field {fit_k['full']:.2f}, sort-based {fit_k['sort']:.2f}" +
              (f", naive {fit_k['naive']:.2f}" if fit_k["naive"] is not None else ""))
    if "collector_empty" in s:
        print(f"  collector, empty store: {mib(s['collector_empty']['hwm']):.1f} MiB")
    if "incremental" in s:
        inc = s["incremental"]
        print(f"  incremental: one new result {inc['add_ms']:.2f} ms (max {inc['add_max_ms']:.2f}), a correction "
              f"{inc['correction_ms']:.2f} ms")


@click.command(help=__doc__.splitlines()[0])
@click.option("--sizes", help="result counts to measure, comma-separated (default: "
              f"{','.join(str(t * b) for _, t, b in SIZES)})")
@click.option("--skip-memory", is_flag=True, help="leave out the memory figures")
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON instead of a table")
@click.option("--probe", "probe_args", nargs=3, hidden=True)  # the memory figures' fresh process
def main(sizes, skip_memory, as_json, probe_args):
    if probe_args:
        print(json.dumps(probe(int(probe_args[0]), int(probe_args[1]), probe_args[2])))
        return
    s = run([int(x) for x in sizes.split(",")] if sizes else None, not skip_memory)
    print(json.dumps(s)) if as_json else report(s)


if __name__ == "__main__":
    main()
