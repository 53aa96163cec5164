"""`make bench` is not run by the tests, so a module it imports could move without it noticing (the hub's bench
imported a signing module that had been folded into another). Each bench module is imported here, in a process
of its own, as bench/run.py imports it."""
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
MODULES = sorted(p.stem for p in BENCH.glob("*.py"))


@pytest.mark.parametrize("module", MODULES)
def test_each_bench_module_imports(module):
    assert {"run", "hub_bench", "collector_scoring", "unit_bench"} <= set(MODULES)
    code = f"import sys; sys.path[:0] = [{str(BENCH)!r}, {str(BENCH / 'mp')!r}]; import {module}"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=BENCH, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
