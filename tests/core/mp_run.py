"""Runs the portable core tests (tests/core/test_*.py) on the MicroPython unix port.

Usage: `make test-mp` (compiles firmware/ and tests/core/ to .mpy in build/mp-test, then tests/mp_suite.py runs
this once per test module, named on the command line).
Prints one line per failure and a closing 'N passed, N failed' line; exits 1 on any failure.
"""
import gc
import os
import sys

from cases import case_id

MODULES = sorted(n[:-3] for n in os.listdir("tests/core") if n.startswith("test_") and n.endswith(".py"))
passed = 0
failed = 0


def run(name, fn, arg=None, cid=None):
    global passed, failed
    try:
        fn() if cid is None else fn(arg)
        passed += 1
    except Exception as e:  # noqa: BLE001 - report every failure and go on
        failed += 1
        label = name if cid is None else name + "[" + cid + "]"
        print("FAIL", label, type(e).__name__, e)
        sys.print_exception(e)
    gc.collect()


for modname in MODULES:
    if len(sys.argv) > 1 and modname not in sys.argv[1:]:
        continue
    gc.collect()
    mod = __import__(modname)
    for attr in sorted(dir(mod)):
        if not attr.startswith("test_"):
            continue
        fn = getattr(mod, attr)
        label = modname + "::" + attr
        if hasattr(fn, "cases"):
            for case in fn.cases:
                run(label, fn, case, case_id(case, fn.key))
                case = None
        else:
            run(label, fn)
    del sys.modules[modname]
    mod = fn = None
    gc.collect()

print(f"micropython core tests: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
