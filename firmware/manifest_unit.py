# The table unit frozen into a MicroPython build: what every unit runs, whatever its board (MicroPython's manifest
# form: tools/manifestfile.py). Frozen, the bytecode stays in flash (rodata) instead of being loaded into the heap.
#
# A board's manifest (boards/manifests/<board>.py) includes this file and adds what only that board needs, its
# board module and the helpers it imports; paths are relative to the manifest that names them:
#     include("$(PORT_DIR)/boards/manifest.py")  # the port's own frozen modules
#     include("../../firmware/manifest_unit.py")
#     package("boards", files=["esp32_devkitc.py", "_expander_unit.py"], base_path="../..")
# main.py reads the config and imports boards.<config's board>: that board must be frozen in the same image.
# The firmware then runs as `micropython -X heapsize=N -m main CONFIG` on the unix port (main.py at boot on a
# device), with nothing on MICROPYPATH.

include("$(MPY_DIR)/extmod/asyncio")  # the runner's loop; an include seen twice (the port's own) counts once
package("bidwire")  # the Laws core and the unit (app, screens, store, journal, sync, hardware drivers)
module("main.py")  # the entry point
package("boards", files=["__init__.py"], base_path="..")  # the package the board modules live in
