# The ESP32-DevKitC (ESP32-WROOM-32E) image, frozen: `make firmware BOARD=esp32_devkitc` gives this file to
# MicroPython's ports/esp32 build as FROZEN_MANIFEST (docs/deploy.md). MicroPython's manifest form; relative
# paths start from this file.
include("$(PORT_DIR)/boards/manifest.py")  # the port's own modules: _boot (the file system), asyncio, networking
include("../../firmware/manifest_unit.py")  # the unit: the bidwire package and main.py
require("ssd1306")  # micropython-lib's SSD1306 driver (the stock-firmware path mip-installs it instead)
package("boards", files=["esp32_devkitc.py", "_expander_unit.py"], base_path="../..")  # __init__: manifest_unit.py
