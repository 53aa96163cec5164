"""What the ESP32 boards share: the unit built on six MCP23017 expanders and an SSD1306 on one I2C bus, with a
turn LED per seat, a buzzer, a battery divider and Wi-Fi. Each board module passes its own pins (docs/hardware.md).
Not a board itself (the leading underscore keeps it out of `bidwire deploy --board`), but deployed with them.
"""
import network
from machine import ADC, I2C, PWM, Pin, reset

from bidwire.unit.devices import EXPANDERS, Battery, Clock, TurnLeds, keymap
from bidwire.unit.hal import Hal
from bidwire.unit.mcp23017 import MCP23017
from bidwire.unit.oled import Oled
from bidwire.unit.scan import Scanner
from bidwire.unit.wifi import WifiSupervisor

OLED = 0x3C


def build(config, name, sda, scl, keys_int, battery, turn_leds, buzzer):
    i2c = I2C(0, scl=Pin(scl), sda=Pin(sda), freq=400_000)
    display = Oled(i2c, OLED)  # one page buffer: the panel keeps the frame
    expanders = MCP23017(i2c, EXPANDERS)
    line = Pin(keys_int, Pin.IN, Pin.PULL_UP)  # the expanders' INT, open drain: low while a change is unread
    keys = Scanner(expanders.read_into, expanders.nbytes, keymap(), idle=line.value)
    leds = TurnLeds([Pin(n, Pin.OUT, value=0) for n in turn_leds], PWM(Pin(buzzer), freq=4000, duty_u16=0))
    power = Battery(ADC(Pin(battery), atten=ADC.ATTN_11DB))
    wifi = config.get("wifi") or {}
    net = WifiSupervisor(network.WLAN(network.STA_IF), wifi.get("ssid"), wifi.get("password", ""))
    return Hal(keys, display, config["state_dir"], Clock(), net, power, leds, name=name, reset=reset)
