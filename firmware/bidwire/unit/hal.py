"""The hardware abstraction the app is given: a board module (boards/*.py) builds one and nothing else does.

keys     — starts a task that puts key events into a KeyQueue: `start(queue)`, `deinit()`
display  — one page of the 128 x 64 SSD1306: a 128 x 8 framebuf.FrameBuffer (MONO_VLSB) a text row is drawn in,
           and `page(n)`, which sends it to page n (0-7, top down) of the panel; the panel keeps the frame
           (bidwire.unit.oled on the ESP32 boards; on unix a file holds the panel's memory)
storage  — the directory for the journal and snapshots ("/data" on a device)
clock    — `time()` epoch seconds, `ticks_ms()`
network  — `start()` its supervisor task, `connected()`, `rssi()` (dBm or None), `deinit()`; or None where there
           is nothing to supervise (the unix port, a wired bench: the host's network is up)
power    — `battery()`: percent 0..100, or None when unknown; or None for no battery to read (`Hal.battery()`
           answers for both)
leds     — optional: `turn(seat)` lights that seat's "your turn" LED (seat -1: none), or None
console  — optional: called with the 8 text rows of each new frame (the virtual unit prints them), or None
reset    — optional: restarts the device (machine.reset), called when the journal cannot be replayed; None: exit
"""


class Hal:
    def __init__(self, keys, display, storage, clock, network, power, leds=None, name="", console=None, reset=None):
        self.keys = keys
        self.display = display
        self.storage = storage
        self.clock = clock
        self.network = network
        self.power = power
        self.leds = leds
        self.name = name  # the board module's name, reported in the hello event
        self.console = console
        self.reset = reset

    def battery(self):
        """The battery's charge in percent, 0..100, or None: unknown, or no battery to read (power None)."""
        return None if self.power is None else self.power.battery()
