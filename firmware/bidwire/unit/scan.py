"""Debounced key scanning: one task reads every key input and puts one event per press into the KeyQueue.

read_into(buf) fills a bytearray of nbytes with one bit per input, bit b of byte i being input i*8+b, 1 meaning
pressed (a board whose inputs read 0 when pressed inverts in its reader or passes active_low=True).
keymap[input] is that input's key event (seat * 18 + key, keys.py) or 255 where no key is wired.
Nothing is allocated per scan (docs/architecture.md §3 "Memory"): every buffer is made in the constructor.
"""
import asyncio
from bidwire.unit import keys




class Scanner:
    poll_ms = 10  # between scans while a key is down or settling; the sleep doubles as the debounce interval
    debounce_scans = 2  # an input counts as changed once it has read its new level on this many scans in a row

    def __init__(self, read_into, nbytes, keymap, queue=None, active_low=False, idle=None):
        if len(keymap) != nbytes * 8:
            raise ValueError(f"keymap has {len(keymap)} entries: it needs one per input bit, {nbytes * 8}")
        self.queue = queue
        self._read = read_into
        self._keymap = keymap
        self._active_low = active_low
        # idle(): True while no input has changed since the last read (the expanders' INT line high), so that a quiet
        # task looks at one pin every poll_ms instead of reading the inputs over I2C. The expanders hold INT low until
        # they are read, so a press shorter than poll_ms is not lost; a pin read needs no asyncio ThreadSafeFlag (whose
        # module would stay in the heap: docs/benchmarks.md)
        self._idle = idle
        self._raw = bytearray(nbytes)  # this scan, 1 = pressed
        self._last = bytearray(nbytes)  # the previous scan
        self._down = bytearray(nbytes)  # debounced state, 1 = key down
        self._moving = bytearray(nbytes)  # inputs reading unlike _down for fewer than debounce_scans scans
        self._runs = bytearray(nbytes * 8)  # for each moving input, how many scans it has read so
        self._used = bytearray(nbytes)  # inputs with a key; the others are ignored
        for n in range(nbytes * 8):
            if keymap[n] != keys.NO_KEY:
                self._used[n >> 3] |= 1 << (n & 7)
        self._settling = False
        self._held = False
        self._together = 0  # TOGETHER once this scan has put a press: its next ones were made at the same moment
        self._task = None

    def scan_once(self):
        """Read the inputs once and put an event for each key that has just become pressed.

        Returns True while a key is down or an input is settling (keep polling), False when all is quiet.
        """
        raw = self._raw
        last = self._last
        self._read(raw)
        if self._active_low:
            for i in range(len(raw)):
                raw[i] ^= 0xFF
        if raw == last and not self._settling:
            return self._held  # nothing moved: the usual case, decided by one buffer comparison
        down = self._down
        used = self._used
        moving = self._moving
        settling = held = False
        self._together = 0
        for i in range(len(raw)):
            last[i] = raw[i]
            diff = (raw[i] & used[i]) ^ down[i]
            if diff or moving[i]:
                self._settle(i, diff)
                if moving[i]:
                    settling = True
            if down[i]:
                held = True
        self._settling = settling
        self._held = held
        return settling or held

    def _settle(self, i, diff):
        runs = self._runs
        down = self._down[i]
        moving = 0
        base = i << 3
        for b in range(8):
            bit = 1 << b
            if diff & bit:
                n = runs[base + b] + 1
                if n >= self.debounce_scans:
                    n = 0
                    down ^= bit
                    if down & bit and self.queue is not None:  # pressed; a release puts nothing
                        self.queue.put(self._keymap[base + b] | self._together)
                        self._together = keys.TOGETHER
                else:
                    moving |= bit
                runs[base + b] = n
            else:
                runs[base + b] = 0  # a bounce back to the debounced level restarts the count
        self._down[i] = down
        self._moving[i] = moving

    def start(self, queue=None):
        """Start the scanning task, putting events into queue (or the one given to the constructor).

        Keys down now (a jammed key) count only once released and pressed again. Reading here also clears any
        interrupt an expander has pending, so its INT line can fall again on the next change.
        """
        self.deinit()
        if queue is not None:
            self.queue = queue
        raw = self._raw
        self._read(raw)
        held = False
        for i in range(len(raw)):
            r = raw[i] ^ 0xFF if self._active_low else raw[i]
            self._last[i] = r
            self._down[i] = r & self._used[i]
            self._moving[i] = 0
            held = held or self._down[i] != 0
        for n in range(len(self._runs)):
            self._runs[n] = 0
        self._settling = False
        self._held = held
        self._task = asyncio.create_task(self._run())

    async def _run(self):
        idle = self._idle
        while True:
            if not self.scan_once() and idle is not None:
                while idle():  # all quiet: no I2C read until an input changes
                    await asyncio.sleep_ms(self.poll_ms)
            await asyncio.sleep_ms(self.poll_ms)

    def deinit(self):
        if self._task is not None:
            self._task.cancel()
            self._task = None
