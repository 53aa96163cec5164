"""ESP32-DevKitC V4 with an ESP32-WROOM-32E: its pins. boards/_expander_unit.py builds the unit on them.

docs/hardware.md has the wiring table. Every GPIO here avoids the strapping pins (0 2 5 12 15), the flash pins
(6-11), the input-only pins (34-39, no pull-ups), UART0 (1 3, the REPL) and 16-17 (PSRAM on WROVER modules).
"""
from boards import _expander_unit

SDA = 21
SCL = 22
KEYS_INT = 23  # the expanders' shared open-drain INT line, 10k pull-up to 3V3
BATTERY = 33  # ADC1_CH5, the middle of a 100k/100k divider from the cell
TURN_LEDS = (25, 26, 27, 13)  # seats N E S W
BUZZER = 18


def build(config):
    return _expander_unit.build(config, "esp32_devkitc", SDA, SCL, KEYS_INT, BATTERY, TURN_LEDS, BUZZER)
