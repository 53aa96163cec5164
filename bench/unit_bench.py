"""`make bench`, the table unit's figures: the virtual unit (firmware .mpy on the MicroPython unix port, unix_sim
board) driven through real sessions against the real collector (`bidwire serve`) on 127.0.0.1.

Figures: the peak heap (the smallest heap a 32-board session runs in: its peak need, fragmentation included) beside
the heap in use once booted, bytes allocated and µs from key press to frame beside the core's own per call, heap
growth over 1,000 boards, flash writes per board. Baselines are measured in the same run. The firmware's .mpy size
is in bench/run.py.
"""
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "e2e"), str(ROOT / "tests")]

from collector_proc import Collector  # noqa: E402
from session import session  # noqa: E402
from vunit import SECRET, VUnit, build, write_config  # noqa: E402

SEATS = "NESW"


def _kib(text):
    return int(text[:-1]) * 1024


RUNS = iter(range(1, 1 << 30))


def fresh_unit(collector):
    """A new unit id (T01, T02, ...: one per run, so each run starts from seq 1), provisioned on the collector."""
    run = next(RUNS)
    unit = f"T{run:02d}"
    collector.add_units({unit: SECRET})
    return run, unit


def run_session(collector, tmp, heap, lines, measure=False):
    """Play the lines on a fresh unit; (ok, unit output) — ok False if the unit ran out of heap or died."""
    run, unit_id = fresh_unit(collector)
    cfg = write_config(tmp / f"s{run}.json", tmp / f"s{run}-state", collector.url, unit=unit_id)
    try:
        unit = VUnit(cfg, heap=heap)
    except (EOFError, TimeoutError):
        return False, None  # out of heap at boot
    try:
        if measure:
            unit.write("measure on")
            unit.write("mem")  # the heap once booted
        for line in lines:
            if not unit.send(line)[1]:  # every line of the session changes the state: refused = no heap
                unit.kill()
                return False, unit
        unit.write("sync 20000")
        unit.write("mem")
        ok = unit.finish() == 0
    except (EOFError, TimeoutError, BrokenPipeError):  # the unit died (out of heap)
        unit.kill()
        return False, unit
    return ok and "MemoryError" not in unit.proc.stderr.read(), unit


def smallest_heap(collector, tmp, lines, low_k=64, high_k=320, step_k=4, tries=2):
    """Binary search (in step_k KiB) for the smallest -X heapsize that completes the session `tries` times in a
    row (the peak depends on when the sync client's requests fall between presses)."""
    while high_k - low_k > step_k:
        mid = (low_k + high_k) // 2 // step_k * step_k
        ok = all(run_session(collector, tmp, f"{mid}K", lines)[0] for _ in range(tries))
        if ok:
            high_k = mid
        else:
            low_k = mid
    return high_k * 1024


def quick_board(n):
    """A short played board: dealer bids 1C, three passes, lead, result entered and confirmed, next board."""
    d = (n - 1) % 4
    s = SEATS[d]
    lho = SEATS[(d + 1) % 4]
    return [f"{s} 1", f"{s} C", f"{lho} PASS", f"{SEATS[(d + 2) % 4]} PASS", f"{SEATS[(d + 3) % 4]} PASS",
            f"{lho} C", f"{s} PASS", f"{lho} PASS", "N PASS"]


def mem_line(unit):
    line = [x for x in unit.out if x.startswith("mem ")][-1]
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}


def long_run(collector, tmp, first=10, boards=1000, heap="512K"):
    """first + boards short boards with the collector acknowledging: heap in use and flash writes once board
    `first` is played (the marks taken at the start of board first + 1) and once all are (at the start of board
    first + boards + 1), so that exactly `boards` boards lie between the two marks."""
    run, unit_id = fresh_unit(collector)
    cfg = write_config(tmp / "long.json", tmp / "long-state", collector.url, unit=unit_id)
    unit = VUnit(cfg, heap=heap)
    unit.send("N PASS")
    marks = []
    for n in range(1, first + boards + 1):
        for line in quick_board(n):
            unit.send(line)
        if n in (first, first + boards):
            unit.write("sync 20000")
            unit.write("mem")
            unit._expect("mem ")
            marks.append(mem_line(unit))
    assert unit.finish() == 0
    return marks


def figures(tmp, core):
    """The unit's figures as dicts of bench/run.py figure() arguments. `core`: the core's own figures from the same
    run (MicroPython, bench_core.py), the baselines of the per-press figures: {"alloc_call": B allocated per call,
    "us_call": µs per call, "heap": the heap they ran in}."""
    build()
    lines, _ = session(32)
    with Collector.with_units(tmp, {}) as collector:  # one collector for every run, each run a new unit id
        peak = smallest_heap(collector, tmp, lines)
        ok, unit = run_session(collector, tmp, "512K", lines, measure=True)
        first, last = long_run(collector, tmp)
    mems = [x for x in unit.out if x.startswith("mem ")]
    booted = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", mems[0])}
    after = mem_line(unit)
    per_key = [tuple(map(int, x.split()[3:5])) for x in unit.out if x.startswith("key ") and len(x.split()) == 5]
    alloc = [a for a, _ in per_key]
    us = [t for _, t in per_key]
    boards = last["boards"] - first["boards"]
    on_core = (f"a bare Auction (bench_core.py, MicroPython -X heapsize={core['heap']}, 21 auctions, same run): "
               "what the core alone takes per call")
    span = f"{first['boards'] + 1}-{last['boards']:,}"
    return [
        {"name": "virtual unit: peak heap (smallest heap, 32-board session)", "value": peak, "unit": "B",
         "target": 48 * 1024, "tag": "heap once booted",
         "method": "binary search over -X heapsize in 4 KiB steps: the smallest heap in which the session (every "
                   "press taken, sync with the collector) completes twice in a row, i.e. the session's peak need, "
                   f"fragmentation included; heap in use (gc.collect()ed) after the session {after['alloc']:,} B",
         "baseline": booted["alloc"], "baseline_name": "heap in use once booted, gc.collect()ed (same run, 512K heap)"},
        {"name": "virtual unit: bytes allocated per key press (median)", "value": statistics.median(alloc),
         "unit": "B", "tag": "core per call",
         "method": "gc.disable(); gc.mem_alloc() delta from the press to the frame drawn (journal record, events, "
                   f"screen); 32-board session, {len(alloc)} presses; p95 {sorted(alloc)[len(alloc) * 95 // 100]} B",
         "baseline": core["alloc_call"], "baseline_name": f"bytes allocated per call by {on_core}"},
        {"name": "virtual unit: µs from key press to frame (median)", "value": statistics.median(us), "unit": "µs",
         "tag": "core per call",
         "method": "time.ticks_us around store.key + screens.lines + draw + show, console printing excluded; "
                   f"p95 {sorted(us)[len(us) * 95 // 100]} µs", "baseline": core["us_call"],
         "baseline_name": f"µs per call (median of 5) of {on_core}"},
        {"name": f"virtual unit: heap growth over {boards:,} boards", "value": last["alloc"] - first["alloc"],
         "unit": "B", "target": 0, "tag": f"heap at board {first['boards'] + 1}",
         "method": f"gc.mem_alloc() after sync and gc.collect() at board {first['boards'] + 1}'s start minus at "
                   f"board {last['boards'] + 1}'s (collector acking), {boards:,} short boards apart",
         "baseline": first["alloc"], "baseline_name": f"heap in use at board {first['boards'] + 1}"},
        {"name": "virtual unit: journal records per board", "value": (last["writes"] - first["writes"]) / boards,
         "unit": "writes", "method": f"journal appends (each one flush) per played board, boards {span}; plus "
                                     f"{last['snapshots'] - first['snapshots']} snapshot writes in {boards:,} boards; "
                                     "no baseline"},
        {"name": "virtual unit: journal bytes per board", "value": (last["written"] - first["written"]) / boards,
         "unit": "B", "method": f"bytes appended to the journal per played board, boards {span}; no baseline"},
    ]
