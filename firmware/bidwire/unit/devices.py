"""What every ESP32 board module shares (docs/hardware.md): how the seat panels' keys reach the expanders, the
clock, the battery gauge, and the turn LEDs with the buzzer. The boards construct the hardware; these only use it.
"""
import asyncio
import time
from bidwire.unit import keys



# Six MCP23017s, 14 inputs each (mcp23017.py says why not 16). Expander 0x20 + seat (N E S W) takes that seat's
# keys 1-7 on GPA0-6 and C D H S NT PASS X on GPB0-6; XX ALERT UNDO TD are on GPA0-3 (N, S) or GPB0-3 (E, W)
# of 0x24 (N, E) and 0x25 (S, W).
EXPANDERS = (0x20, 0x21, 0x22, 0x23, 0x24, 0x25)
_OWN_KEYS = 14  # keys 0..13 on the seat's own expander


def key_input(seat, key):
    """The input bit (2 bytes per expander, GPIOA then GPIOB, in EXPANDERS order) that a seat's key is wired to."""
    if key < 7:
        return 16 * seat + key
    if key < _OWN_KEYS:
        return 16 * seat + 8 + key - 7
    return 64 + 16 * (seat >> 1) + 8 * (seat & 1) + key - _OWN_KEYS


def keymap():
    """bytes: input bit -> key event (seat * 18 + key), NO_KEY on GPA7/GPB7 and the spare pins of 0x24-0x25."""
    m = bytearray(16 * len(EXPANDERS))
    for n in range(len(m)):
        m[n] = keys.NO_KEY
    for seat in range(4):
        for key in range(keys.KEYS_PER_SEAT):
            m[key_input(seat, key)] = seat * keys.KEYS_PER_SEAT + key
    return bytes(m)


class Clock:
    """time() in seconds since 1970 on every port (the ESP32 port counts from 2000), and ticks_ms()."""

    def __init__(self):
        self._offset = 946684800 if time.gmtime(0)[0] == 2000 else 0

    def time(self):
        return time.time() + self._offset

    def ticks_ms(self):
        return time.ticks_ms()


class Battery:
    """A 1S Li-ion cell read through a divider on an ADC1 pin (ADC2 cannot be read while Wi-Fi is on)."""

    empty_mv = 3300  # 0 %: a Li-ion cell has only a few percent of its charge left below 3.3 V
    full_mv = 4200
    samples = 8  # readings averaged: Wi-Fi transmit bursts make single readings jump by tens of mV

    def __init__(self, adc, divider=2):
        self._adc = adc  # a machine.ADC with 11 dB attenuation, read calibrated with read_uv()
        self._divider = divider  # battery voltage / ADC pin voltage: 2 for 100k over 100k

    def millivolts(self):
        total = 0
        for _ in range(self.samples):
            total += self._adc.read_uv()
        return total * self._divider // (self.samples * 1000)

    def battery(self):
        """Percent 0..100, linear between empty_mv and full_mv."""
        pct = (self.millivolts() - self.empty_mv) * 100 // (self.full_mv - self.empty_mv)
        return 0 if pct < 0 else 100 if pct > 100 else pct


class TurnLeds:
    """The seats' "your turn" LEDs (pins in seat order N E S W, lit at 1) and the buzzer (a machine.PWM, or None)."""

    beep_hz = 4000  # the piezo's resonance: loudest for the drive a GPIO gives

    def __init__(self, pins, buzzer=None):
        self._pins = pins
        self._buzzer = buzzer
        self.turn(-1)

    def turn(self, seat):
        """Light that seat's LED and put out the others; -1 puts out all."""
        pins = self._pins
        for i in range(len(pins)):
            pins[i].value(1 if i == seat else 0)

    async def beep(self, ms=80):
        buzzer = self._buzzer
        if buzzer is None:
            return
        buzzer.freq(self.beep_hz)
        buzzer.duty_u16(32768)
        try:
            await asyncio.sleep_ms(ms)
        finally:
            buzzer.duty_u16(0)
