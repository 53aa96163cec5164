"""A fake `machine` for running a board module off the device (the tests; a simulator): put boards/sim first on
sys.path, before boards/, and `import machine` finds this instead of the port's own.

I2C is one bus holding what a bidwire unit has on it: six MCP23017 expanders (0x20-0x25) modelled register by
register, whose input pins a test presses with press(), and the SSD1306 (0x3C), which accepts anything. Every
input Pin with a pull-up is treated as the expanders' shared open-drain INT line: it reads 0 while an expander asserts
INT (until the expander is read), and its IRQ fires when the line falls.
Nothing here allocates on a read, so allocation can be measured through it. `used` lists the GPIOs a board took.
"""

used = []  # GPIO numbers passed to Pin(), in order
devices = {}  # I2C address -> device, rebuilt by each I2C(): a new bus is a power-on
_irqs = {}  # pin id -> (Pin, handler)


class Expander:
    """An MCP23017 with IOCON.BANK = 0: registers 0x00-0x15, GPIOA/B reads clearing a pending interrupt."""

    def __init__(self):
        self.regs = bytearray(0x16)
        self.regs[0] = self.regs[1] = 0xFF  # IODIR: all inputs at power-on
        self.levels = bytearray(b"\xff\xff")  # pin levels per port; inputs float high (pull-up or not)
        self.interrupt = False  # asserting INT
        self.reads = 0

    def press(self, pin, down=True):
        """Ground (down) or release input pin 0-15 (GPA0-7, GPB0-7)."""
        port = pin >> 3
        bit = 1 << (pin & 7)
        before = self.levels[port]
        self.levels[port] = before & ~bit if down else before | bit
        inputs = self.regs[port] & self.regs[0x04 + port]  # IODIR & GPINTEN
        if (before ^ self.levels[port]) & inputs and not self.interrupt:
            line_was_high = not any_interrupt()
            self.interrupt = True
            if line_was_high:
                for pin_, handler in _irqs.values():
                    handler(pin_)

    def gpio(self, port):
        iodir = self.regs[port]
        level = self.levels[port]
        return ((level ^ self.regs[0x02 + port]) & iodir) | (self.regs[0x14 + port] & ~iodir & 0xFF)

    def read_into(self, reg, buf):
        self.reads += 1
        for i in range(len(buf)):
            r = reg + i
            buf[i] = self.gpio(r - 0x12) if 0x12 <= r <= 0x13 else self.regs[r]
            if 0x10 <= r <= 0x13:  # INTCAP or GPIO read: the interrupt is cleared
                self.interrupt = False

    def write(self, reg, data):
        for i in range(len(data)):
            self.regs[reg + i] = data[i]
        if self.regs[0x0A] & 0x80:
            raise NotImplementedError("IOCON.BANK = 1 is not modelled")
        self.regs[0x0B] = self.regs[0x0A]


class Oled:
    def __init__(self):
        self.writes = 0

    def read_into(self, reg, buf):
        pass

    def write(self, reg, data):
        self.writes += 1


def any_interrupt():
    for dev in devices.values():
        if getattr(dev, "interrupt", False):
            return True
    return False


def press(address, pin, down=True):
    devices[address].press(pin, down)


def _device(addr):
    try:
        return devices[addr]
    except KeyError:
        raise OSError(19) from None  # ENODEV, as the ESP32 port reports a missing device


class I2C:
    def __init__(self, id=0, *, scl=None, sda=None, freq=400000, timeout=50000):
        self.freq = freq
        devices.clear()
        for addr in range(0x20, 0x26):
            devices[addr] = Expander()
        devices[0x3C] = Oled()

    def scan(self):
        return sorted(devices)

    def readfrom_mem_into(self, addr, memaddr, buf, *, addrsize=8):
        _device(addr).read_into(memaddr, buf)

    def writeto_mem(self, addr, memaddr, buf, *, addrsize=8):
        _device(addr).write(memaddr, buf)

    def writeto(self, addr, buf, stop=True):
        _device(addr).write(None, buf)
        return 1

    def writevto(self, addr, vector, stop=True):
        for buf in vector:
            self.writeto(addr, buf)
        return 1


class Pin:
    IN = 1
    OUT = 3
    OPEN_DRAIN = 7
    PULL_UP = 2
    PULL_DOWN = 1
    IRQ_RISING = 1
    IRQ_FALLING = 2

    def __init__(self, id, mode=-1, pull=-1, *, value=None):
        used.append(id)
        self.id = id
        self.mode = mode
        self.pull = pull
        self._value = value or 0

    def value(self, v=None):
        if v is None:
            if self.mode == Pin.IN and self.pull == Pin.PULL_UP:
                return 0 if any_interrupt() else 1  # the INT line
            return self._value
        self._value = 1 if v else 0

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self._value = 1

    def off(self):
        self._value = 0

    def irq(self, handler=None, trigger=3, hard=False):
        _irqs[self.id] = (self, handler)


class ADC:
    ATTN_0DB = 0
    ATTN_2_5DB = 1
    ATTN_6DB = 2
    ATTN_11DB = 3
    microvolts = 1900000  # what every ADC reads: a test sets it

    def __init__(self, pin, *, atten=0):
        self.pin = pin
        self.atten = atten

    def read_uv(self):
        return ADC.microvolts

    def read_u16(self):
        return min(65535, ADC.microvolts * 65535 // 3300000)


class PWM:
    def __init__(self, pin, *, freq=1000, duty_u16=0):
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16

    def freq(self, hz=None):
        if hz is None:
            return self._freq
        self._freq = hz

    def duty_u16(self, duty=None):
        if duty is None:
            return self._duty
        self._duty = duty

    def deinit(self):
        self._duty = 0


def reset():
    """The device restarts (the unit halts when its journal cannot be replayed): off the device the process ends,
    with the status the unix port's halt gives (docs/unit.md "Out of memory")."""
    raise SystemExit(3)
