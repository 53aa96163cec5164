"""MCP23017 16-bit I/O expanders as key inputs: each key pulls a pin with its pull-up to ground and reads as 1.

Pins 0-6 of each port (GPA0-6, GPB0-6) are inputs. GPA7 and GPB7 are driven low as outputs: since revision D (2022)
of the datasheet (DS20001952) Microchip rates them output-only, as an input changing on them during a read
can corrupt SDA. All chips' INT pins share one open-drain line that falls on any input change.
Register addresses are for IOCON.BANK = 0, the power-on default, which this driver keeps.
"""
from bidwire.core.compat import const

_IODIRA = const(0x00)  # then IODIRB, IPOLA/B, GPINTENA/B, DEFVALA/B, INTCONA/B: written as one block
_IOCON = const(0x0A)
_GPPUA = const(0x0C)
_GPIOA = const(0x12)  # then GPIOB: one two-byte read gets both ports
_OLATA = const(0x14)
# IOCON = 0x44: BANK=0 (A/B registers interleaved, so GPIOA then GPIOB in one read); MIRROR=1 (INTA and INTB are
# one signal, so either pin reports both ports); SEQOP=0 (the register pointer increments); DISSLW=0 (SDA slew
# control on); HAEN=0 (for the SPI MCP23S17 only); ODR=1 (INT open-drain: the chips share one wire and pull-up);
# INTPOL=0 (ignored when ODR=1).
_IOCON_VALUE = b"\x44"
# IODIR 1 = input, IPOL 1 = reads inverted (a pressed key, at ground, reads 1), GPINTEN 1 = interrupt on change,
# DEFVAL 0, INTCON 0 = compare with the previous level (not DEFVAL): INT falls on press and on release.
_INPUTS = const(0x7F)
_SETUP = bytes((_INPUTS, _INPUTS, _INPUTS, _INPUTS, _INPUTS, _INPUTS, 0, 0, 0, 0))
_PULL_UPS = bytes((_INPUTS, _INPUTS))
_OUTPUTS_LOW = b"\x00\x00"


class MCP23017:
    """Expanders at `addresses` on one I2C bus, read as 2 bytes each (GPIOA, GPIOB) in the order given."""

    def __init__(self, i2c, addresses):
        self._i2c = i2c
        self.addresses = tuple(addresses)
        self.nbytes = 2 * len(self.addresses)
        for addr in self.addresses:
            try:
                i2c.writeto_mem(addr, _IOCON, _IOCON_VALUE)
                i2c.writeto_mem(addr, _OLATA, _OUTPUTS_LOW)
                i2c.writeto_mem(addr, _IODIRA, _SETUP)
                i2c.writeto_mem(addr, _GPPUA, _PULL_UPS)
            except OSError:
                raise OSError(f"no MCP23017 answers at I2C address {hex(addr)}: check its power, its A0-A2 "
                              "pins, RESET tied high, and the SDA/SCL wiring") from None
        self._buf = None
        self._views = ()

    def read_into(self, buf):
        """GPIOA then GPIOB of each chip into buf[0:2], buf[2:4], ... (1 = pressed). Allocates nothing once the
        views into buf are made, on the first read into that buffer."""
        if buf is not self._buf:
            self._bind(buf)
        i2c = self._i2c
        addresses = self.addresses
        views = self._views
        for k in range(len(addresses)):
            i2c.readfrom_mem_into(addresses[k], _GPIOA, views[k])

    def _bind(self, buf):
        # Apart from read_into: a generator there would make `mv` a closure cell, allocated on every call.
        mv = memoryview(buf)
        self._views = tuple(mv[2 * k:2 * k + 2] for k in range(len(self.addresses)))
        self._buf = buf
