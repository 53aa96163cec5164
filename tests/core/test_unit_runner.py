"""The unit's main loop keeps the table running when a press fails half-way (a bug, an exhausted heap):
the status line says so and the state goes back to what the journal holds; when it cannot go back (the rebuild
fails too) the unit shows its fault screen and resets. MicroPython only (screens.draw
needs framebuf): tests/conftest.py leaves it to tests/mp_suite.py.
"""
import asyncio
import json

from scratch import remove_tree, scratch

from bidwire.unit.hal import Hal as BoardHal
from bidwire.unit.keys import K_PASS, NO_KEY, TOGETHER, key_code, parse_key
from bidwire.unit.runner import Unit
from bidwire.unit.scan import Scanner


class Display:
    def __init__(self):
        self.pages = []

    def fill(self, c):
        pass

    def text(self, s, x, y, c=1):
        pass

    def fill_rect(self, x, y, w, h, c):
        pass

    def blit(self, fb, x, y):
        pass

    def page(self, n):
        self.pages.append(n)


class Clock:
    """The unit's clock as the test sets it: epoch seconds, and ticks_ms for the tempo of each call."""

    ms = 0

    def time(self):
        return 1000

    def ticks_ms(self):
        return self.ms


class Net:
    def connected(self):
        return True

    def rssi(self):
        return None


class Power:
    def battery(self):
        return 80


class Hal(BoardHal):
    """The Hal a board builds, on the test's fakes (no key source: a test that runs main() gives one)."""

    def __init__(self, path):
        super().__init__(None, Display(), path, Clock(), Net(), Power(), name="test")
        self.frames = []


CFG = {"unit": "T01", "mode": "record", "td_pin": "1234", "collector": "", "state_dir": ""}


def booted(path):
    """A unit on the fake Hal, booted, its console frames kept in hal.frames."""
    hal = Hal(path)
    hal.console = hal.frames.append
    unit = Unit(hal, CFG)
    unit.boot()
    return hal, unit


def test_a_press_that_fails_half_way_is_reported_and_undone():
    path = scratch("runner-fault")
    try:
        hal, unit = booted(path)
        unit.press(key_code(0, K_PASS))  # set-up: board 1
        unit.press(key_code(0, parse_key("1")))
        real = unit.app.auction.call

        def broken(seat, call):
            real(seat, call)  # the engine took it ...
            raise MemoryError("memory allocation failed")  # ... and then the heap ran out

        unit.app.auction.call = broken
        try:
            unit.press(key_code(0, parse_key("H")))
        except MemoryError as e:
            unit.fault(e)
        assert unit.faults == 1 and hal.frames[-1][7] == "ERR MemoryError"
        assert len(unit.app.auction.eff) == 0 and unit.app.level[0] == 1  # back to the journaled state
        unit.press(key_code(0, parse_key("H")))  # the next press works and clears the message
        assert len(unit.app.auction.eff) == 1 and hal.frames[-1][7] == "  q3 80%"
        unit.store.journal.close()
    finally:
        remove_tree(path)


def test_presses_of_one_scan_are_taken_in_turn_first_each_journaled_law_33():
    path = scratch("runner-law33")
    try:
        hal, unit = booted(path)
        unit.press(key_code(0, K_PASS))  # set-up: board 1, dealer N
        q = unit.queue
        q.put(key_code(3, K_PASS))  # W, then N, in one scan (W's input scanned first)
        q.put(key_code(0, K_PASS) | TOGETHER)
        unit.take(q.get())
        a = unit.app.auction
        assert len(q) == 0 and unit.keys == 3 and unit.store.keys == 3
        assert a.eff[0] & 3 == 0 and a.p_kind and a.p_seat == 3  # N's pass first; W's then out of rotation
        q.put(key_code(1, K_PASS))  # a press of a scan of its own is taken as it comes
        unit.take(q.get())
        assert unit.keys == 4
        unit.store.journal.close()
    finally:
        remove_tree(path)


def test_each_call_carries_its_tempo_from_the_clock_at_the_press():
    path = scratch("runner-tempo")
    try:
        hal, unit = booted(path)
        hal.clock.ms = 5000
        unit.press(key_code(0, K_PASS))  # board 1 starts: the first call's tempo counts from here
        for ms, seat, key in ((9000, 0, "1"), (12340, 0, "S"), (12390, 1, "PASS"), (12400, 3, "ALERT"),
                              (2**30 - 200, 2, "PASS"), (300, 3, "PASS")):  # ticks_ms wraps at 2**30
            hal.clock.ms = ms
            unit.press(key_code(seat, parse_key(key)))
        events = [json.loads(bytes(raw)) for raw in unit.store.batch(1 << 20)]
        got = [(e["input"], e.get("tempo", "none")) for e in events if e["type"] == "call"]
        # 7.34 s; 0.05 s rounds to a tenth; an alert carries none; a think of days is cut to an hour; 0.5 s across
        # the wrap
        assert got == [("N:1S", 73), ("E:P", 1), ("W@", "none"), ("S:P", 36000), ("W:P", 5)]
        unit.store.journal.close()
    finally:
        remove_tree(path)


class Reset(Exception):
    """What the test's reset raises: a device does not come back from machine.reset()."""


def test_a_rebuild_that_cannot_complete_shows_the_fault_screen_and_resets():
    path = scratch("runner-halt")
    try:
        hal = Hal(path)
        hal.console = hal.frames.append
        resets = []

        def reset():
            resets.append(unit.store.halted)
            raise Reset()

        hal.reset = reset
        unit = Unit(hal, CFG)
        unit.boot()
        unit.press(key_code(0, K_PASS))  # set-up: board 1
        unit.press(key_code(0, parse_key("1")))

        def broken(seat, key):
            raise MemoryError("memory allocation failed")  # the press, and every record the rebuild replays

        unit.app.key = broken
        try:
            unit.press(key_code(0, parse_key("H")))
            raise AssertionError("the unit did not reset")
        except Reset:
            pass
        assert resets == ["replay MemoryError"]
        assert hal.frames[-1][:3] == ["FAULT", "replay MemoryErr", "restarting"]
        unit.store.journal.close()
        hal = Hal(path)
        again = Unit(hal, CFG)  # after the reset: the journal replayed whole, the level key pressed before kept
        again.boot()
        assert again.app.board == 1 and again.app.level[0] == 1 and again.store.keys == 2
        again.store.journal.close()
    finally:
        remove_tree(path)


def test_deinit_stops_the_main_loop_and_the_key_scanner_and_closes_the_journal():
    path = scratch("runner-deinit")
    pressed = bytearray(1)

    def read_into(buf):
        buf[0] = pressed[0]

    async def hold(ms):
        pressed[0] = 1
        await asyncio.sleep_ms(ms)
        pressed[0] = 0
        await asyncio.sleep_ms(ms)

    async def scenario(unit, hal):
        main = asyncio.create_task(unit.main())
        await asyncio.sleep_ms(30)
        await hold(80)  # PASS at North: the set-up screen starts board 1
        assert unit.keys == 1 and unit.app.board == 1
        unit.deinit()
        await asyncio.sleep_ms(30)
        assert main.done() and unit.store.journal._f is None
        await hold(80)  # nothing scans any more: the press is not taken
        assert unit.keys == 1

    try:
        hal = Hal(path)
        hal.keys = Scanner(read_into, 1, bytes([key_code(0, K_PASS)] + [NO_KEY] * 7))
        hal.network = None  # nothing to supervise, as on the unix port
        unit = Unit(hal, CFG)
        asyncio.run(scenario(unit, hal))
    finally:
        remove_tree(path)


def test_a_frame_sends_the_rows_that_changed_and_a_draw_cut_short_is_redrawn_whole():
    path = scratch("runner-pages")
    try:
        hal, unit = booted(path)
        assert hal.display.pages == [0, 1, 2, 3, 4, 5, 6, 7]  # the first frame: every row
        for key in (K_PASS, parse_key("1"), parse_key("H")):
            hal.display.pages = []
            unit.press(key_code(0, key))
            before, after = hal.frames[-2], hal.frames[-1]
            changed = [y for y in range(8) if before[y] != after[y]]
            assert 0 < len(changed) < 8 and hal.display.pages == changed, (key, changed, hal.display.pages)
        page = hal.display.page

        def failing(n):
            hal.display.page = page  # the next page goes out again
            raise MemoryError("memory allocation failed")

        hal.display.page = failing
        hal.display.pages = []
        try:
            unit.press(key_code(1, K_PASS))
        except MemoryError as e:
            unit.fault(e)
        assert hal.display.pages == [0, 1, 2, 3, 4, 5, 6, 7]  # the panel may show anything: all redrawn
        unit.store.journal.close()
    finally:
        remove_tree(path)
