"""The seat panels' keys and the key queue between the scanner (or stdin on the virtual unit) and the app.

Each seat panel has 18 keys (docs/architecture.md §3). A key event is one byte: seat * 18 + key, seat 0..3 N E S W.
KeyQueue is a ring of such bytes: put() never allocates, so a scanner task may call it on every scan. A press
put with TOGETHER was made in the same scan as the one before it (Law 33: the runner takes such a group in the
order the app gives, App.order).
Its reader, wait(), looks at the ring every `poll_ms` (10 ms, the scanner's own period while a key moves): a press
is taken at most 10 ms after the scanner queued it, well under what a player notices (asyncio's Event would wake
it at once, but its module would stay in the heap: docs/benchmarks.md). The virtual unit, whose script waits for
each key to be taken before it reads the next, looks every 1 ms while the script runs (boards/unix_sim.py).
"""
from bidwire.core.compat import const

import asyncio

KEY_NAMES = ("1", "2", "3", "4", "5", "6", "7", "C", "D", "H", "S", "NT", "PASS", "X", "XX", "ALERT", "UNDO", "TD")
KEYS_PER_SEAT = const(18)
K_C = const(7)  # strains: K_C + strain (C D H S NT)
K_NT = const(11)
K_PASS = const(12)
K_X = const(13)
K_XX = const(14)
K_ALERT = const(15)
K_UNDO = const(16)
K_TD = const(17)
NO_KEY = const(255)
TOGETHER = const(128)  # put(code | TOGETHER): pressed in the same scan as the key put just before it


def key_code(seat, key):
    return seat * KEYS_PER_SEAT + key


def parse_key(name):
    """'1'..'7', 'C' 'D' 'H' 'S' 'NT' (or 'N'), 'PASS' (or 'P'), 'X', 'XX', 'ALERT', 'UNDO', 'TD' -> key."""
    n = name.upper()
    if n == "P":
        n = "PASS"
    elif n == "N":
        n = "NT"
    for i in range(KEYS_PER_SEAT):
        if KEY_NAMES[i] == n:
            return i
    raise ValueError(f"unknown key {name}: use 1-7, C D H S NT, PASS, X, XX, ALERT, UNDO or TD")


class KeyQueue:
    """A bounded ring of key events. A full ring drops the newest press and counts it (`dropped`)."""

    poll_ms = 10  # how often wait() looks at an empty ring: the most a press waits to be taken

    def __init__(self, size=32):
        self._ring = bytearray(size)
        self._head = self._count = 0
        self.dropped = 0

    def put(self, code):
        n = len(self._ring)
        if self._count == n:
            self.dropped += 1
            return False
        self._ring[(self._head + self._count) % n] = code
        self._count += 1
        return True

    def together(self):
        """Was the next event pressed in the same scan as the one taken last?"""
        return self._count and self._ring[self._head] & TOGETHER

    def get(self):
        """The oldest event (its TOGETHER bit cleared), or NO_KEY when empty."""
        if not self._count:
            return NO_KEY
        code = self._ring[self._head] & 127
        self._head = (self._head + 1) % len(self._ring)
        self._count -= 1
        return code

    def __len__(self):
        return self._count

    async def wait(self):
        """The next event, waiting for one if the ring is empty (looked at every poll_ms)."""
        while not self._count:
            await asyncio.sleep_ms(self.poll_ms)
        return self.get()
