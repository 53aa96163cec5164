"""The virtual unit: the real firmware on the MicroPython unix port. Keys come from stdin, one per line —
`N 1`, `N H`, `E PASS`, `S X`, `W TD`, or several pressed in one scan, `N PASS + W PASS` — plus `sleep <ms>`,
`clock <ms>` and `clock +<ms>` (the unit's ticks_ms set, or moved on, by the script: a tempo the tests choose),
`sync [ms]` (wait until the collector has
acknowledged everything), `shot <file.pbm>` (save the frame), `mem` and `mem map` (the heap in use, and its block
map), `quit`, and `#` comments. Each new frame is
printed as text between `+----------------+` rules; after each key a line `key <journaled keys> <1 if it
changed anything>`, and at boot `boot <n> keys=<journaled keys> seq=<next event> acked=<n> status=<text>`
(test drivers resume a script from there). The journal lives in config["state_dir"].
"""
import asyncio
import gc
import sys
import time

import framebuf

import bidwire.unit.keys as keys  # the full name: one global for the three it reads
from bidwire.core.compat import const
from bidwire.unit.hal import Hal
from bidwire.unit.screens import text

_RULE = const("+----------------+")
_PANEL = const("panel.bin")  # the display's memory, in the state folder


class Display(framebuf.FrameBuffer):
    """The SSD1306 at the hardware boundary. The unit draws a text row into this one-page buffer (128 x 8) and
    page(n) writes it to page n of the panel's memory, GDDRAM: 8 pages of 128 bytes, a byte a column with the top
    pixel in its low bit. That memory is the panel's, not the unit's heap: here a file in the state folder,
    written page by page and cleared at power-on (each boot). pbm() saves what the panel shows."""

    def __init__(self, folder):
        self.buffer = bytearray(128)
        super().__init__(self.buffer, 128, 8, framebuf.MONO_VLSB)
        self.folder = folder  # the state folder's name, which the journal keeps too
        self.gddram = None  # opened at the first page: the folder exists by then (the journal made it)

    def page(self, n):
        f = self.gddram
        if f is None:
            f = self.gddram = open(self.folder + "/" + _PANEL, "w+b")  # power-on: blank, a page not written reads 0
        f.seek(n * 128)
        f.write(self.buffer)

    def pbm(self, path):
        """Save the panel's picture as a binary PBM (P4) image, a page at a time: framebuf's blit turns the panel's
        layout (MONO_VLSB) into PBM's (MONO_HLSB: 16 bytes a pixel row, the leftmost pixel in the high bit)."""
        page = bytearray(128)
        rows = bytearray(128)
        panel = framebuf.FrameBuffer(page, 128, 8, framebuf.MONO_VLSB)
        image = framebuf.FrameBuffer(rows, 128, 8, framebuf.MONO_HLSB)
        with open(path, "wb") as out:
            out.write(b"P4\n128 64\n")
            for n in range(8):
                got = 0
                if self.gddram is not None:
                    self.gddram.seek(n * 128)
                    got = self.gddram.readinto(page) or 0
                for x in range(got, 128):
                    page[x] = 0
                image.blit(panel, 0, 0)
                out.write(rows)


class Clock:
    ms = -1  # ticks_ms as the script's `clock` line set it; -1: the real clock's (a class attribute: no instance dict)

    def time(self):
        return int(time.time())

    def ticks_ms(self):
        return time.ticks_ms() if self.ms < 0 else self.ms


def console(rows):
    out = sys.stdout
    out.write(_RULE + "\n")
    for r in text(rows):
        out.write("|" + r + " " * (16 - len(r)) + "|\n")
    out.write(_RULE + "\n")


class StdinKeys:
    """Reads the script from stdin; key lines go into the key queue one at a time, in order. stdin is polled
    (zero timeout; asyncio's StreamReader would keep its `stream` module in the heap, which the unit itself no
    longer loads: docs/benchmarks.md) after 1, 2, 4, 8, then every 16 ms while no line comes. Each key line waits
    until the app has taken the key, so while lines come the key queue is looked at every 1 ms; once stdin is idle,
    every 10 ms as on a unit (an idle virtual unit then costs next to no CPU)."""

    def __init__(self):
        self.unit = None
        self.task = None
        self.errors = 0

    def start(self, queue):
        self.queue = queue
        self.task = asyncio.create_task(self._read())

    def attach(self, unit):
        self.unit = unit
        s = unit.store
        print(f"boot {s.boot} keys={s.keys} seq={s.seq} acked={s.acked} status={s.status}")

    def deinit(self):
        if self.task is not None:
            self.task.cancel()

    async def _read(self):
        import select  # here, not in the module's dict (asyncio has loaded it already)

        poller = select.poll()
        poller.register(sys.stdin, select.POLLIN)
        while True:
            line = await self._next(poller)
            if not line:
                break
            try:
                if await self._line(line.strip()):
                    break
            except ValueError as e:
                self.errors += 1
                sys.stderr.write("script: " + str(e) + "\n")
        await self._sync(10000)
        sys.exit(0)

    async def _next(self, poller):
        """The next line of the script ("" at its end) once stdin has one to read."""
        wait = 1
        while True:
            for _ in poller.ipoll(0):
                self.queue.poll_ms = 1
                return sys.stdin.readline()
            if wait == 16:
                self.queue.poll_ms = 10
            await asyncio.sleep_ms(wait)
            wait = min(wait * 2, 16)

    async def _line(self, line):
        if not line or line.startswith("#"):  # not line[0]: indexing a str makes the letter a qstr
            return False
        words = line.split()
        cmd = words[0].lower()
        if cmd == "quit":
            return True
        if cmd == "sleep":
            await asyncio.sleep_ms(int(words[1]))
        elif cmd == "sync":
            await self._sync(int(words[1]) if len(words) > 1 else 10000)
        elif cmd == "shot" and self.unit is not None:
            self.unit.hal.display.pbm(words[1])
        elif cmd == "clock" and self.unit is not None:
            clock = self.unit.hal.clock
            w = words[1]
            clock.ms = max(clock.ms, 0) + int(w[1:]) if w.startswith("+") else int(w)
        elif cmd == "measure" and self.unit is not None:  # `make bench`: per-press bytes and µs
            self.unit.measure = (0, 0) if words[1:] == ["on"] else None
        elif cmd == "mem" and self.unit is not None:
            gc.collect()
            u = self.unit
            j = u.store.journal
            print(f"mem alloc={gc.mem_alloc()} free={gc.mem_free()} writes={j.writes} written={j.written} "
                  f"boards={u.app.boards_played} journal={j.size()} snapshots={u.store.compactions}")
            if words[1:] == ["map"]:
                import micropython
                micropython.mem_info(1)
        elif len(words) == 2 or "+" in line:
            codes = []
            for press in line.split("+"):  # one scan: the first as any press, the others TOGETHER with it
                w = press.split()
                if len(w) != 2:
                    raise ValueError(f"cannot read script line: {line}")
                codes.append(keys.key_code(self._seat(w[0]), keys.parse_key(w[1])) | (keys.TOGETHER if codes else 0))
            for code in codes:
                self.queue.put(code)
            while len(self.queue):
                await asyncio.sleep_ms(1)  # let the app take it (KeyQueue.wait looks every poll_ms)
            unit = self.unit
            if unit is not None:
                m = unit.measure
                print(f"key {unit.store.keys} {1 if unit.changed else 0}" + ("" if m is None else f" {m[0]} {m[1]}"))
        else:
            raise ValueError(f"cannot read script line: {line}")
        return False

    def _seat(self, name):
        i = "NESW".find(name.upper())
        if len(name) != 1 or i < 0:
            raise ValueError(f"unknown seat {name}: use N, E, S or W")
        return i

    async def _sync(self, limit_ms):
        unit = self.unit
        if unit is None or unit.sync is None:
            return
        t0 = time.ticks_ms()
        while unit.sync.pending() and time.ticks_diff(time.ticks_ms(), t0) < limit_ms:
            unit.sync.wake()
            await asyncio.sleep_ms(20)


def build(config):
    return Hal(keys=StdinKeys(), display=Display(config["state_dir"]), storage=config["state_dir"], clock=Clock(),
               network=None, power=None, name="unix_sim", console=console)
