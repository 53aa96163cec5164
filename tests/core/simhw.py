"""The unit's hardware simulated for the tests: boards/sim (fake machine, network, ssd1306) goes first on sys.path,
so a board module runs unchanged off the device, as in the Tildagon simulator.

On MicroPython the compiled boards/ beside the compiled tests are used when `make test-mp` has built them
(build/mp-test/boards): compiling the sources at import time takes heap the 64 KB cap can hardly spare.
Otherwise the sources are used, from the repository root, where pytest and tests/mp_suite.py both run.
"""
import os
import sys

_here = __file__.replace("\\", "/")
if _here.endswith("tests/core/simhw.py"):  # CPython: this file, in the repository
    ROOT = _here[: -len("tests/core/simhw.py")] or "."
else:  # MicroPython: simhw.mpy in the build tree, run from the repository root
    ROOT = "."


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def enter():
    """Put boards/sim first on sys.path, and the directory holding `boards` before the rest; returns the fake
    machine module."""
    root = ROOT
    built = _here.rsplit("/", 1)[0] if _here.endswith(".mpy") and "/" in _here else None
    if built is not None and _exists(built + "/boards/sim/machine.mpy"):
        root = built
    for path in (root, root + "/boards/sim"):
        if path in sys.path:
            sys.path.remove(path)
        sys.path.insert(0, path)
    import machine

    if not hasattr(machine, "Expander"):
        raise ImportError(f"`import machine` found the port's own module, not the fake in {root}/boards/sim")
    return machine
