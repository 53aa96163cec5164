"""Runs each portable core test module (tests/core/test_*.py) on the MicroPython unix port, one process per
module, each with the ESP32-like heap cap, and prints the total.

One process per module because MicroPython never frees interned names (qstrs): a 64 KB heap that holds the
core and one test module would not also hold every earlier test module's names.
The table unit's modules (test_unit_*) run with the unit's heap (UNIT_HEAPSIZE, docs/benchmarks.md): the
app, store and screens sit on top of the core.
Usage: python tests/mp_suite.py MICROPYTHON HEAPSIZE BUILD_DIR [UNIT_HEAPSIZE]
"""
import os
import re
import subprocess
import sys
from pathlib import Path

micropython, core_heap, build = sys.argv[1], sys.argv[2], sys.argv[3]
unit_heap = sys.argv[4] if len(sys.argv) > 4 else core_heap
env = dict(os.environ, MICROPYPATH=f".frozen:{build}")
passed = failed = 0
broken = []
for path in sorted(Path("tests/core").glob("test_*.py")):
    heap = unit_heap if path.stem.startswith("test_unit_") else core_heap
    proc = subprocess.run([micropython, "-X", f"heapsize={heap}", "-m", "mp_run", path.stem],
                          env=env, capture_output=True, text=True, timeout=600)
    sys.stdout.write("".join(line + "\n" for line in proc.stdout.splitlines() if not line.startswith("micropython")))
    m = re.search(r"(\d+) passed, (\d+) failed", proc.stdout)
    if m is None or proc.returncode not in (0, 1):
        broken.append(path.stem)
        sys.stdout.write(f"{path.stem}: the MicroPython run did not finish (exit {proc.returncode})\n"
                         f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        continue
    passed += int(m.group(1))
    failed += int(m.group(2))
    print(f"  {path.stem} (heapsize={heap}): {m.group(1)} passed, {m.group(2)} failed")
print(f"micropython: {passed} passed, {failed + len(broken)} failed")
sys.exit(1 if failed or broken else 0)
