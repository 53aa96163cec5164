# What stock MicroPython firmware for an ESP32 freezes of what the unit needs: asyncio, and nothing of the unit's
# own. `make mp32-mpy` builds the 32-bit unix port with this manifest; `make bench` runs the firmware on it as .mpy
# files (what `make deploy` copies to a board on stock firmware) beside the build with the firmware frozen in.

include("$(MPY_DIR)/extmod/asyncio")
