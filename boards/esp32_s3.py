"""ESP32-S3-DevKitC-1 (v1.0 or v1.1, any ESP32-S3-WROOM-1/1U/2 module): its pins. boards/_expander_unit.py
builds the unit on them.

docs/hardware.md has the wiring table. Every GPIO here is on header J1 and avoids the strapping pins (0 3 45 46),
USB (19 20), UART0 (43 44), the flash and octal-PSRAM pins (26-37) and the RGB LED (38 on v1.1, 48 on v1.0).
"""
from boards import _expander_unit

SDA = 8
SCL = 9
KEYS_INT = 7  # the expanders' shared open-drain INT line, 10k pull-up to 3V3
BATTERY = 4  # ADC1_CH3, the middle of a 100k/100k divider from the cell
TURN_LEDS = (10, 11, 12, 13)  # seats N E S W
BUZZER = 14


def build(config):
    return _expander_unit.build(config, "esp32_s3", SDA, SCL, KEYS_INT, BATTERY, TURN_LEDS, BUZZER)
