"""ESP32-DevKitC V4 with an ESP32-WROOM-32E: the one place this unit's hardware is constructed.

docs/hardware.md has the wiring table. Every GPIO here avoids the strapping pins (0 2 5 12 15), the flash pins
(6-11), the input-only pins (34-39, no pull-ups), UART0 (1 3, the REPL) and 16-17 (PSRAM on WROVER modules).
"""
import asyncio
import gc

import network
from machine import ADC, I2C, PWM, Pin
from ssd1306 import SSD1306_I2C

from bidwire.unit.devices import EXPANDERS, Battery, Clock, TurnLeds, keymap
from bidwire.unit.hal import Hal
from bidwire.unit.mcp23017 import MCP23017
from bidwire.unit.scan import Scanner
from bidwire.unit.wifi import WifiSupervisor

SDA = 21
SCL = 22
KEYS_INT = 23  # the expanders' shared open-drain INT line, 10k pull-up to 3V3
BATTERY = 33  # ADC1_CH5, the middle of a 100k/100k divider from the cell
TURN_LEDS = (25, 26, 27, 13)  # seats N E S W
BUZZER = 18
OLED = 0x3C


def build(config):
    i2c = I2C(0, scl=Pin(SCL), sda=Pin(SDA), freq=400_000)
    gc.collect()  # the frame buffer is 1 KB in one piece
    display = SSD1306_I2C(128, 64, i2c, addr=OLED)
    expanders = MCP23017(i2c, EXPANDERS)
    flag = asyncio.ThreadSafeFlag()
    Pin(KEYS_INT, Pin.IN, Pin.PULL_UP).irq(lambda _pin: flag.set(), trigger=Pin.IRQ_FALLING)  # only sets the flag
    keys = Scanner(expanders.read_into, expanders.nbytes, keymap(), flag=flag)
    leds = TurnLeds([Pin(n, Pin.OUT, value=0) for n in TURN_LEDS], PWM(Pin(BUZZER), freq=4000, duty_u16=0))
    power = Battery(ADC(Pin(BATTERY), atten=ADC.ATTN_11DB))
    wifi = config.get("wifi") or {}
    net = WifiSupervisor(network.WLAN(network.STA_IF), wifi.get("ssid"), wifi.get("password", ""))
    return Hal(keys, display, config["state_dir"], Clock(), net, power, leds, name="esp32_devkitc")
