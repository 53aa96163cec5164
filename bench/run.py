"""`make bench`: the Foundation figures for the core, on MicroPython and CPython, then the table unit's
(unit_bench.py) and the collector's (collector_bench.py, collector_live.py, collector_scoring.py, hostile_bench.py,
collector_backup.py), the double-dummy analysis (analysis_bench.py) and the exports (export_bench.py); writes
bench/results.json.

A benchmark, not a test: a figure over its target is printed as "over target", never an error.
"""
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import click

from bidwire_host.unit_tools.mpy import UNIT_FLAGS, compile_tree

ROOT = Path(__file__).resolve().parent.parent
MP_SIDE = ROOT / "bench" / "mp"  # runs on both interpreters
OUT = ROOT / "build" / "bench-mpy"
DEPLOYED = ROOT / "build" / "bench-deploy"  # the firmware as `make deploy` compiles it, for the sizes
RESULTS = ROOT / "bench" / "results.json"
NAIVE = "naive engine (bench/mp/naive.py: list of (seat, str), string ops)"
WORKLOAD = "21 legal auctions of 4-15 calls (184 calls, bench/mp/workload.py), RECORD mode"


def run_side(cmd, env):
    """Run bench_core.py under one interpreter; {name: value} from its JSON lines."""
    proc = subprocess.run(cmd, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True)
    if proc.returncode != 0:
        hint = "\nThe heap is too small for the core plus this bench: try --heap 96K." if "MemoryError" in \
            proc.stderr else ""
        raise click.ClickException(f"{cmd[0]} failed:\n{proc.stderr.strip() or proc.stdout.strip()}{hint}")
    return dict(json.loads(line) for line in proc.stdout.splitlines() if line.startswith("["))


def median(v):
    return statistics.median(v) if isinstance(v, list) else v


def figure(name, value, unit, method, target=None, baseline=None, baseline_name=None, spread=None,
           at_least=False, tag=None, baselines=None):
    """A figure for results.json; its target is a maximum unless at_least (e.g. events per second). `tag`: a short
    name of the baseline for the table; `baselines`: every baseline measured for it, when there are several."""
    f = {"name": name, "value": round(value, 2), "unit": unit, "target": target,
         "baseline": None if baseline is None else round(baseline, 2), "baseline_name": baseline_name,
         "method": method}
    if tag:
        f["baseline_tag"] = tag
    if baselines:
        f["baselines"] = baselines
    if at_least:
        f["target_is_minimum"] = True
    if spread:
        f["samples"] = [round(x, 3) for x in spread]
    return f


def figures(mp, cp, modules, heap, board):
    """The core's figures (bench_core.py on both interpreters) and the .mpy sizes."""
    core = sum(size for src, _, size in modules if src.is_relative_to(ROOT / "firmware/bidwire/core"))
    firmware = sum(size for src, _, size in modules if src.is_relative_to(ROOT / "firmware"))
    core_py = sum(p.stat().st_size for p in (ROOT / "firmware/bidwire/core").rglob("*.py"))
    on_mp = f"MicroPython unix port -X heapsize={heap}, core from .mpy; {WORKLOAD}"
    gc_off = "gc.disable(), gc.mem_alloc() delta around the calls of a fresh Auction (construction excluded)"
    timed = "each engine built before its clock starts; median of 5 repeats of 150 rounds"
    us = {side: {k: median(v) for k, v in d.items() if k.startswith("us_")} for side, d in (("mp", mp), ("cp", cp))}
    tag = "naive engine"
    return [
        figure("core bytes allocated per call", median(mp["alloc_engine_call"]), "B/call",
               f"{gc_off}; {on_mp}", 256, median(mp["alloc_naive_call"]), NAIVE, tag=tag),
        figure("core bytes requested per call, incl. freed at once", median(mp["requested_engine_call"]),
               "B/call", f"micropython.mem_total() delta (heap-allocated frames freed on return count too); "
               f"{on_mp}", None, median(mp["requested_naive_call"]), NAIVE, tag=tag),
        figure("core bytes allocated per Auction()", mp["alloc_engine_new"], "B",
               f"gc.disable(), gc.mem_alloc() delta around Auction(dealer); {on_mp}",
               None, mp["alloc_naive_new"], NAIVE, tag=tag),
        figure("core µs per call, MicroPython", us["mp"]["us_engine_call"], "µs/call",
               f"time.ticks_us, {timed}; {on_mp}", None, us["mp"]["us_naive_call"], NAIVE,
               mp["us_engine_call"], tag=tag),
        figure("core µs per call, CPython", us["cp"]["us_engine_call"], "µs/call",
               f"time.perf_counter_ns, {timed}; CPython, core from source; {WORKLOAD}", None,
               us["cp"]["us_naive_call"], NAIVE, cp["us_engine_call"], tag=tag),
        figure("core MicroPython/CPython time ratio", us["mp"]["us_engine_call"] / us["cp"]["us_engine_call"],
               "x", "ratio of the two medians above", None,
               us["mp"]["us_naive_call"] / us["cp"]["us_naive_call"], NAIVE, tag=tag),
        figure("Law 77 score() µs per call, MicroPython", us["mp"]["us_score"], "µs/call",
               "time.ticks_us over 16 contracts x 300, median of 5 repeats (bench/mp/workload.py); no baseline",
               None, None, None, mp["us_score"]),
        figure("Law 77 score() µs per call, CPython", us["cp"]["us_score"], "µs/call",
               "time.perf_counter_ns over 16 contracts x 300, median of 5 repeats; no baseline", None, None, None,
               cp["us_score"]),
        figure("heap free after importing the core", mp["heap_free_after_import"], "B",
               f"gc.collect(); gc.mem_free() once the core (.mpy) and the bench are imported; {on_mp}; no baseline"),
        figure("core .mpy size", core, "B",
               "sum of mpy-cross output for firmware/bidwire/core (compile_tree, mpy.UNIT_FLAGS)",
               24 * 1024, core_py, "the same modules as .py source: what the unit would hold without mpy-cross",
               tag="core .py source"),
        figure("firmware .mpy size", firmware + board, "B",
               "sum of mpy-cross output (mpy.UNIT_FLAGS) for all of firmware/ plus boards/esp32_devkitc.py "
               "and boards/_expander_unit.py: what `make deploy` copies",
               64 * 1024, core, "core .mpy size", tag="core .mpy"),
    ]


def table(figs):
    """The printed table: one line per figure, its baseline and the baseline's short name beside it."""
    lines = [f"{'figure':<66} {'value':>10} {'unit':<8} {'target':>8} {'baseline':>10} {'vs':<17} status"]
    for f in figs:
        least = f.get("target_is_minimum", False)
        missed = f["target"] is not None and (f["value"] < f["target"] if least else f["value"] > f["target"])
        status = ("under target" if least else "over target") if missed else "ok" if f["target"] is not None else ""
        spread = f" ({min(f['samples']):.2f}-{max(f['samples']):.2f})" if "samples" in f else ""
        target = "" if f["target"] is None else f"{'≥' if least else '≤'}{f['target']:g}"
        base = "" if f["baseline"] is None else f"{f['baseline']:g}"
        tag = f.get("baseline_tag") or ""
        lines.append(f"{f['name']:<66} {f['value']:>10g} {f['unit']:<8} {target:>8} {base:>10} {tag:<17} "
                     f"{status}{spread}".rstrip())
    return "\n".join(lines)


def collector_figures(unit_counts, scoring_sizes):
    """The collector's: sync under each number of simulated units (collector_bench.py), the director's page and
    its live stream under 1,000 tables (collector_live.py), then scoring (collector_scoring.py)."""
    import collector_bench
    import collector_live
    import collector_scoring

    out = []
    for n in unit_counts:
        out += [figure(name, value, unit, method, target, base, base_name, at_least=least, tag="trivial endpoint")
                for name, value, unit, target, least, method, base, base_name
                in collector_bench.figures(collector_bench.run(n))]
    out += [figure(**f) for f in collector_live.figures(collector_live.run())]
    out += [figure(**f) for f in collector_scoring.figures(collector_scoring.run(scoring_sizes))]
    import collector_backup  # bidwire backup and the start-up check on a 180,000-result store

    out += [figure(**f) for f in collector_backup.figures(collector_backup.run())]
    return out


def director_page_figures():
    """The director's page with one unit's flood stored (director_page_bench.py), against /healthz."""
    import director_page_bench

    return [figure(**f) for f in director_page_bench.figures(director_page_bench.run())]


def analysis_figures():
    """The double-dummy analysis (analysis_bench.py), against endplay's calc_dd_table called directly."""
    import analysis_bench

    return [figure(**f) for f in analysis_bench.figures(analysis_bench.run())]


def export_figures():
    """The PBN, USEBIO and CSV exports of a 180,000-result store (export_bench.py), against the publication alone."""
    import export_bench

    return [figure(**f) for f in export_bench.figures(export_bench.run())]


def hostile_figures():
    """A unit's acknowledgement under a hostile network (hostile_bench.py), against the unit alone."""
    import hostile_bench

    return [figure(**f) for f in hostile_bench.figures(hostile_bench.run())]


def hub_figures(clubs, readers):
    """The hub's (hub_bench.py): C clubs uploading at once to 2 workers on a throwaway PostgreSQL, with readers on
    the sim's pages; ingest and acks beside a 1-worker hub, rescoring beside the scoring core, and how ingest
    and rescoring grow with the clubs (one figure per size)."""
    import hub_bench

    measured = hub_bench.run(clubs, readers)
    out = [figure(**f) for f in hub_bench.figures(measured)]
    for g, r in zip(measured["growth"], measured["rescore"], strict=True):
        out.append(figure(f"hub: growth, {g['clubs']} clubs: ingest", g["rate"], "results/s",
                          f"{g['results']:,} results, 2 workers, each club's next upload sent as soon as the last "
                          "is acknowledged, no readers", at_least=True,
                          baseline=measured["baseline"]["rate"], baseline_name="the largest upload, 1 worker",
                          tag="1 worker"))
        out.append(figure(f"hub: growth, {g['clubs']} clubs: full rescoring", 1000 * r["hub_s"], "ms",
                          f"the field scored from a tally of {r['results']:,} results (taking them in: "
                          f"{1000 * r['take_s']:.0f} ms)", baseline=1000 * r["core_s"],
                          baseline_name="the scoring core alone (score_field)", tag="scoring core"))
    return out


def unit_figures(mp, heap, mp32_mpy):
    """The table unit's (unit_bench.py) on the three builds (the device model by `make mp32`, `mp32_mpy`, the 64-bit
    port beside this Python), the core's per-call figures from this run as baselines."""
    import tempfile

    import unit_bench

    core = {"alloc_call": median(mp["alloc_engine_call"]), "us_call": median(mp["us_engine_call"]), "heap": heap}
    on = unit_bench.builds(mp32_mpy)
    with tempfile.TemporaryDirectory() as tmp:
        return [figure(**f) for f in unit_bench.figures(Path(tmp), core, on)]


def carried(skipped):
    """The figures of the parts left out of this run, as the last run that measured them left them in results.json
    (each marked with that run's date), so that running one part does not lose the others'."""
    if not skipped or not RESULTS.exists():
        return []
    old = json.loads(RESULTS.read_text())
    day = old["machine"].get("date")
    out = []
    for f in old["figures"]:
        if any(f["name"].startswith(prefix) for prefix in skipped):
            f.setdefault("measured", day)
            out.append(f)
    return out


def numbers(text):
    return [int(x) for x in text.split(",")] if text else None


@click.command()
@click.option("--micropython", "micropython", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The MicroPython unix port executable.")
@click.option("--mpy-cross", "mpy_cross", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The mpy-cross executable.")
@click.option("--mp32-mpy", default=str(ROOT / "build/mp32-mpy/micropython"), show_default=True,
              type=click.Path(dir_okay=False),
              help="The 32-bit unix port with only asyncio frozen, for the firmware as .mpy files (make mp32-mpy).")
@click.option("--heap", default="96K", show_default=True,
              help="MicroPython heap size for the core bench on the 64-bit port (-X heapsize): the core with its "
                   "preallocated input log and this bench's workloads no longer fits 64K there.")
@click.option("--skip-unit", is_flag=True, help="Leave out the table unit's figures (they take a few minutes).")
@click.option("--skip-collector", is_flag=True, help="Leave out the collector's figures (about 4 minutes).")
@click.option("--skip-hostile", is_flag=True, help="Leave out the hostile-network figures (about a minute).")
@click.option("--skip-analysis", is_flag=True, help="Leave out the double-dummy analysis figures (about a minute).")
@click.option("--skip-export", is_flag=True, help="Leave out the export figures (a few minutes).")
@click.option("--skip-hub", is_flag=True, help="Leave out the hub's figures (PostgreSQL; about 10 minutes).")
@click.option("--hub-clubs", default="10,50,150", show_default=True,
              help="Club counts for the hub's growth figures, comma-separated; the largest is the headline.")
@click.option("--collector-units", default="200,1000", show_default=True,
              help="Numbers of simulated units for the collector's sync figures, comma-separated.")
@click.option("--scoring-sizes", default=None,
              help="Result counts for the scoring figures, comma-separated (default: 338,5400,27000,180000).")
def main(micropython, mpy_cross, mp32_mpy, heap, skip_unit, skip_collector, skip_hostile, skip_analysis,
         skip_export, skip_hub, hub_clubs, collector_units, scoring_sizes):
    """Measure the core, the table unit and the collector; print a table and write bench/results.json."""
    started, load_start = time.perf_counter(), os.getloadavg()[0]
    compile_tree(mpy_cross, OUT, [ROOT / "firmware", MP_SIDE])
    # the sizes are of what `make deploy` copies: compiled with the unit's mpy-cross options (mpy.UNIT_FLAGS)
    modules = compile_tree(mpy_cross, DEPLOYED, [ROOT / "firmware"], flags=UNIT_FLAGS)
    mp = run_side([str(Path(micropython).resolve()), "-X", f"heapsize={heap}", "-m", "bench_core"],
                  {"MICROPYPATH": f".frozen:{OUT}"})
    cp = run_side([sys.executable, str(MP_SIDE / "bench_core.py")], {"PYTHONPATH": str(ROOT / "firmware")})
    board_bytes = 0
    for name in ("esp32_devkitc", "_expander_unit"):  # what `make deploy` copies besides firmware/
        board_mpy = DEPLOYED / f"{name}.mpy"
        subprocess.run([mpy_cross, *UNIT_FLAGS, "-o", str(board_mpy), str(ROOT / "boards" / f"{name}.py")],
                       check=True)
        board_bytes += board_mpy.stat().st_size
    figs = figures(mp, cp, modules, heap, board_bytes)
    if skip_unit:
        figs.extend(carried(["virtual unit"]))
    else:
        figs.extend(unit_figures(mp, heap, mp32_mpy))
    if skip_collector:
        figs.extend(carried(["collector:"]))
    else:
        figs.extend(collector_figures(numbers(collector_units), numbers(scoring_sizes)))
    if not skip_hostile:
        figs.extend(hostile_figures())
        figs.extend(director_page_figures())
    if not skip_analysis:
        figs.extend(analysis_figures())
    if skip_export:
        figs.extend(carried(["export:"]))
    else:
        figs.extend(export_figures())
    if skip_hub:
        figs.extend(carried(["hub:"]))
    else:
        figs.extend(hub_figures(tuple(numbers(hub_clubs)), 200))
    left_out = [part for part, skip in (("unit", skip_unit), ("collector", skip_collector), ("export", skip_export),
                                        ("hub", skip_hub)) if skip]
    machine = {"nproc": os.cpu_count(), "cpu": platform.processor() or platform.machine(),
               "python": platform.python_version(), "micropython": mp["version"], "heap": heap,
               "loadavg_1min_start": round(load_start, 2), "loadavg_1min": round(os.getloadavg()[0], 2),
               "date": date.today().isoformat(), "parts_left_out": left_out,
               "wall_s": round(time.perf_counter() - started, 1)}
    RESULTS.write_text(json.dumps({"machine": machine, "figures": figs}, indent=1, ensure_ascii=False) + "\n")
    click.echo(f"{machine['nproc']} cores (load {machine['loadavg_1min_start']} at start, {machine['loadavg_1min']} "
               f"at end), Python {machine['python']}, "
               f"MicroPython {machine['micropython']}; {machine['wall_s']:g} s")
    click.echo(table(figs))
    click.echo(f"written {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
