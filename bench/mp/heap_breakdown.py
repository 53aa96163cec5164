"""Where the virtual unit's heap goes at boot, step by step: what each module costs to import (dependencies first,
so each line is that module's own cost), then what each object main.py and the runner build costs.

Run it on the 32-bit frozen build from a directory without firmware sources (the unix port puts the working
directory first on sys.path), with a config whose collector is set (it is not contacted):

    cd /tmp && <repo>/build/mp32/micropython -X heapsize=64K <repo>/bench/mp/heap_breakdown.py CONFIG

Each line: gc.collect(); gc.mem_alloc() after the step minus before it, and the total. docs/benchmarks.md has a
run's output and what it means. (On a build without the firmware frozen, the imports load .mpy code into the heap.)
The modules the unit loads only when needed (the director's, the auction summary, Law 77, the boot's replay) are
measured on their own and dropped again, as the unit drops them.
"""
import gc
import sys

import micropython

MODULES = (
    "asyncio",  # its core alone: the unit loads neither event, funcs nor stream (docs/benchmarks.md)
    "bidwire.core.compat", "bidwire.core.calls", "bidwire.core.codes", "bidwire.core.board", "bidwire.core.classify",
    "bidwire.core.rectify", "bidwire.core.auction", "bidwire.unit.keys", "bidwire.unit.lazy", "bidwire.unit.app",
    "bidwire.unit.screens", "bidwire.unit.journal", "bidwire.unit.store", "bidwire.unit.runner",
    "bidwire.unit.hmac256", "bidwire.unit.http", "bidwire.unit.sync", "bidwire.unit.hal", "boards.unix_sim",
)
LAZY = ("bidwire.unit.director", "bidwire.core.record", "bidwire.core.score", "bidwire.unit.replay")
_last = 0


def step(name):
    global _last
    gc.collect()
    now = gc.mem_alloc()
    print(f"{name:<34} {now - _last:>6} {now:>7}")
    _last = now


def main(path):
    step("interpreter and this script")
    for name in MODULES:
        __import__(name)
        step("import " + name)
    from bidwire.unit.lazy import drop

    for name in LAZY:
        gc.collect()
        before = gc.mem_alloc()
        __import__(name)
        gc.collect()
        print(f"  (loaded when needed: {name}, {gc.mem_alloc() - before} B)")
        drop(name)
    step("the lazy modules dropped again")
    from bidwire.unit import config

    cfg = config.load(path)
    config = None
    drop("bidwire.unit.config")
    step("config read, module dropped")
    import boards.unix_sim

    from bidwire.unit.app import App
    from bidwire.unit.runner import Unit

    hal = boards.unix_sim.build(cfg)
    step("board: Hal, frame buffer, stdin keys")
    app = App(cfg["unit"], cfg["mode"], cfg["td_pin"])
    gc.collect()
    print("  (an App before its first board, alone:", gc.mem_alloc() - _last, "B)")
    app._set_board(1)
    gc.collect()
    print("  (the same with board 1's Auction:", gc.mem_alloc() - _last, "B)")
    del app
    unit = Unit(hal, cfg)
    step("Unit: App, Store, Journal, KeyQueue, Sync")
    unit.hal.console = None
    unit.boot()
    step("boot: journal opened, hello, first frame")
    micropython.qstr_info()


main(sys.argv[1])
