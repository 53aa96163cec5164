# The virtual unit frozen into MicroPython's unix port (`make mp32`: FROZEN_MANIFEST=firmware/manifest.py): the
# firmware every unit runs (manifest_unit.py) and the unix_sim board, which plays the unit on stdin and stdout.
# This is the build the unit's end-to-end tests, `make vunit` and `make demo` run (docs/unit.md "Memory").

include("manifest_unit.py")
package("boards", files=["unix_sim.py", "sim/machine.py", "sim/network.py", "sim/ssd1306.py"], base_path="..")
