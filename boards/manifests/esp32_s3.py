# The ESP32-S3-DevKitC-1 image, frozen: `make firmware BOARD=esp32_s3` gives this file to MicroPython's ports/esp32
# build as FROZEN_MANIFEST (docs/deploy.md). MicroPython's manifest form; relative paths start from this file.
include("$(PORT_DIR)/boards/manifest.py")  # the port's own modules: _boot (the file system), asyncio, networking
include("../../firmware/manifest_unit.py")  # the unit: the bidwire package and main.py
require("ssd1306")  # micropython-lib's SSD1306 driver (the stock-firmware path mip-installs it instead)
package("boards", files=["esp32_s3.py", "_expander_unit.py"], base_path="../..")  # __init__: manifest_unit.py
