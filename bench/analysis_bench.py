"""`make bench`, the double-dummy analysis (issue 14): bidwire_host/event/analysis.py's `tables` — makeable tricks
for every seat and strain plus par — for one deal and for a 36-board set, beside endplay's `calc_dd_table` called
directly on the same deals in the same run (the baseline: the solver alone, one deal a call, no par).

The deals are dealt with endplay's dealer from a fixed seed (analysis.deal_session), so every run analyses the same
36 boards. Each figure is the median of REPEATS runs.

    .venv/bin/python bench/analysis_bench.py [--json]
"""
import json
import statistics
import sys
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "firmware"), str(ROOT / "host_tools")]

from bidwire_host.event import analysis  # noqa: E402
from bidwire_host.formats.pbn_import import load  # noqa: E402

REPEATS = 3
BOARDS = 36


def run():
    from endplay.dds import calc_dd_table
    from endplay.types import Deal

    hands = load(analysis.deal_session(range(1, BOARDS + 1), seed=2026)).hands
    deals = [Deal(h.deal.pbn("N")) for h in hands.values()]
    one = {1: hands[1]}
    out = {"set": [], "set_baseline": [], "one": [], "one_baseline": []}
    for _ in range(REPEATS):
        t = time.perf_counter()
        for d in deals:
            calc_dd_table(d)
        out["set_baseline"].append(time.perf_counter() - t)
        t = time.perf_counter()
        analysis.tables(hands)
        out["set"].append(time.perf_counter() - t)
        t = time.perf_counter()
        calc_dd_table(deals[0])
        out["one_baseline"].append(time.perf_counter() - t)
        t = time.perf_counter()
        analysis.tables(one)
        out["one"].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in out.items()}


def figures(s):
    method = (f"bench/analysis_bench.py: analysis.tables (endplay's DDS in batches of up to 32 deals, then par for "
              f"the board's vulnerability and dealer) on deals dealt from a fixed seed; median of {REPEATS} runs")
    base = "endplay calc_dd_table called directly, one deal a call, same deals, same run"
    return [{"name": "double-dummy analysis per deal", "value": s["one"] * 1000, "unit": "ms", "method": method,
             "baseline": s["one_baseline"] * 1000, "baseline_name": base, "tag": "calc_dd_table"},
            {"name": f"double-dummy analysis of a {BOARDS}-board set", "value": s["set"] * 1000, "unit": "ms",
             "method": method, "baseline": s["set_baseline"] * 1000, "baseline_name": base, "tag": "calc_dd_table"}]


@click.command(help=__doc__.split("\n\n")[0])
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON")
def main(as_json):
    s = run()
    if as_json:
        print(json.dumps(figures(s), indent=1))
    else:
        for f in figures(s):
            print(f"{f['name']}: {f['value']:.0f} {f['unit']} ({f['tag']} {f['baseline']:.0f})")


if __name__ == "__main__":
    main()
