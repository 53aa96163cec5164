import os
import sys

# The portable core tests import their helpers (cases, vectors) as top-level modules, as MicroPython does.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "core"))

# Frame-buffer rendering, the ESP32 boards' display and the runner's frames need MicroPython's framebuf;
# tests/mp_suite.py runs these modules there.
collect_ignore = ["core/test_unit_frames.py", "core/test_unit_boards.py", "core/test_unit_runner.py"]
