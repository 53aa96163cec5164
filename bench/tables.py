"""The figures of bench/results.json as Markdown tables, one per part of docs/benchmarks.md (`PARTS`): the
numbers are copied by this script from the run, not typed by hand.

    .venv/bin/python bench/tables.py [bench/results.json]
"""
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results.json"
PARTS = [("core", "The core"), ("unit", "The table unit"), ("sync", "The collector: sync"),
         ("live", "The collector: the director's page and its live stream"),
         ("scoring", "The collector: scoring and memory"), ("backup", "The collector: backup"),
         ("hostile", "The collector on a hostile network"), ("analysis", "The double-dummy analysis"),
         ("export", "The exports"), ("flooded", "The director's page with a flooded board"), ("hub", "The hub")]
_BY_START = [("virtual unit", "unit"), ("export:", "export"), ("hub:", "hub"), ("double-dummy", "analysis"),
             ("collector: bidwire backup", "backup"), ("collector: store check", "backup"),
             ("collector: unit ack", "hostile"), ("collector: GET /director", "flooded")]


def part(name):
    """Which table a figure goes in, by its name: the part of docs/benchmarks.md that measures it."""
    for start, key in _BY_START:
        if name.startswith(start):
            return key
    if name.startswith("collector:"):
        return "live" if " page" in name else "sync" if " units" in name else "scoring"
    return "core"


def number(x):
    """A figure as results.json holds it (rounded to 2 decimals by bench/run.py), thousands separated."""
    if x is None:
        return "—"
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:,.2f}".rstrip("0")


def row(f):
    least = f.get("target_is_minimum", False)
    target = "—" if f["target"] is None else f"{'≥' if least else '≤'} {number(f['target'])}"
    value = f"{number(f['value'])} {f['unit']}".strip()
    base = "—" if f["baseline"] is None else f"{number(f['baseline'])} {f['unit']}".strip()
    return f"| {f['name']} | {value} | {target} | {base} | {f.get('baseline_tag') or '—'} |"


def tables(results):
    out = []
    for key, title in PARTS:
        figs = [f for f in results["figures"] if part(f["name"]) == key]
        if not figs:
            continue
        out += [f"#### {title}", "", "| figure | value | target | baseline | baseline is |", "|---|---|---|---|---|"]
        out += [row(f) for f in figs]
        out.append("")
    return "\n".join(out)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    results = json.loads(Path(argv[0] if argv else RESULTS).read_text())
    m = results["machine"]
    print(f"<!-- {m['date']}, {m['nproc']} cores, Python {m['python']}, MicroPython {m['micropython']}, "
          f"load {m['loadavg_1min']}, {m.get('wall_s', '?')} s -->")
    print(tables(results))


if __name__ == "__main__":
    main()
