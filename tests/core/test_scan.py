"""The key scanner (docs/architecture.md §3 "Memory"): one event per press, debounced, nothing allocated per scan.

Inputs is a fake reader; the tests step scan_once() by hand, and run the task where the task is the point.
"""
import gc

from mpasyncio import asyncio

from bidwire.unit.keys import K_PASS, K_TD, NO_KEY, KeyQueue, key_code
from bidwire.unit.scan import Scanner

NBYTES = 3
PASS_N = key_code(0, K_PASS)
TD_W = key_code(3, K_TD)
KEYMAP = bytes([PASS_N, TD_W] + [NO_KEY] * 6 + [key_code(1, n) for n in range(8)] + [NO_KEY] * 7 + [TD_W])


class Inputs:
    """What read_into sees: bit n of the buffer is input n, 1 = pressed."""

    def __init__(self, nbytes=NBYTES):
        self.bits = bytearray(nbytes)
        self.reads = 0

    def set(self, n, down=True):
        if down:
            self.bits[n >> 3] |= 1 << (n & 7)
        else:
            self.bits[n >> 3] &= ~(1 << (n & 7)) & 0xFF

    def read_into(self, buf):
        for i in range(len(buf)):
            buf[i] = self.bits[i]
        self.reads += 1


def scanner(**kw):
    inputs = Inputs()
    queue = KeyQueue()
    return inputs, queue, Scanner(inputs.read_into, NBYTES, KEYMAP, queue, **kw)


def events(queue):
    out = []
    while len(queue):
        out.append(queue.get())
    return out


def scans(s, n):
    for _ in range(n):
        s.scan_once()


def test_a_press_is_one_event_after_debounce_scans_and_release_puts_nothing():
    inputs, queue, s = scanner()
    inputs.set(0)
    s.scan_once()
    assert events(queue) == []  # one reading is not yet a press
    s.scan_once()
    assert events(queue) == [PASS_N]
    scans(s, 50)
    assert events(queue) == []  # held: no auto-repeat
    inputs.set(0, False)
    scans(s, 5)
    assert events(queue) == []  # released: nothing
    inputs.set(0)
    scans(s, 2)
    assert events(queue) == [PASS_N]  # pressed again: a new event


def test_bounces_shorter_than_debounce_scans_are_ignored_and_restart_the_count():
    inputs, queue, s = scanner()
    for level in (1, 0, 1, 0, 1):  # contact bounce: never two equal readings in a row
        inputs.set(0, level)
        s.scan_once()
    assert events(queue) == []
    s.scan_once()
    assert events(queue) == [PASS_N]
    for level in (0, 1, 0, 1):  # release bounce, then still held: no second event
        inputs.set(0, level)
        s.scan_once()
    scans(s, 3)
    assert events(queue) == []


def test_debounce_scans_is_a_tunable():
    inputs, queue, s = scanner()
    s.debounce_scans = 4
    inputs.set(8)
    scans(s, 3)
    assert events(queue) == []
    s.scan_once()
    assert events(queue) == [key_code(1, 0)]


def test_simultaneous_presses_come_out_in_input_order():
    inputs, queue, s = scanner()
    for n in (15, 8, 1, 23):
        inputs.set(n)
    scans(s, 2)
    assert events(queue) == [TD_W, key_code(1, 0), key_code(1, 7), TD_W]


def test_presses_of_one_scan_are_marked_together_and_those_of_the_next_are_not():
    """Law 33 needs to know which presses were made at the same moment: the second and later of one scan carry
    TOGETHER (the runner orders them, App.order); a scan's first press starts a new group."""
    inputs, queue, s = scanner()
    inputs.set(8)
    inputs.set(1)
    scans(s, 2)
    inputs.set(0)
    scans(s, 2)
    got = []
    while len(queue):
        together = bool(queue.together())
        got.append((queue.get(), together))
    assert got == [(TD_W, False), (key_code(1, 0), True), (PASS_N, False)]


def test_inputs_without_a_key_are_ignored_and_do_not_keep_the_scanner_busy():
    inputs, queue, s = scanner()
    inputs.set(5)  # keymap 255
    inputs.set(17)
    assert s.scan_once() is False
    scans(s, 5)
    assert events(queue) == [] and s.scan_once() is False


def test_scan_once_reports_busy_while_a_key_is_down_or_settling():
    inputs, queue, s = scanner()
    assert s.scan_once() is False
    inputs.set(9)
    assert s.scan_once() is True  # settling
    assert s.scan_once() is True  # down
    inputs.set(9, False)
    assert s.scan_once() is True  # settling back up
    assert s.scan_once() is False  # released and quiet


def test_active_low_inputs_read_0_when_pressed():
    inputs, queue, s = scanner(active_low=True)
    for i in range(NBYTES):
        inputs.bits[i] = 0xFF  # nothing pressed
    scans(s, 3)
    assert events(queue) == []
    inputs.set(1, False)
    scans(s, 2)
    assert events(queue) == [TD_W]


def test_a_keymap_of_the_wrong_length_is_refused():
    try:
        Scanner(Inputs().read_into, NBYTES, KEYMAP[:-1])
    except ValueError as e:
        assert "24" in str(e)
    else:
        raise AssertionError("a short keymap was accepted")


def test_no_queue_yet_means_presses_are_debounced_but_not_put():
    inputs = Inputs()
    s = Scanner(inputs.read_into, NBYTES, KEYMAP)
    inputs.set(0)
    scans(s, 3)
    queue = KeyQueue()
    s.queue = queue
    inputs.set(0, False)
    scans(s, 2)
    inputs.set(0)
    scans(s, 2)
    assert events(queue) == [PASS_N]


def allocated(fn, times):
    """Bytes the heap grew by over `times` calls of fn, or None where the interpreter cannot say (CPython)."""
    try:
        mem_alloc = gc.mem_alloc
    except AttributeError:
        for _ in range(times):
            fn()
        return None
    gc.collect()
    gc.disable()  # a collection mid-way would hide allocations
    try:
        before = mem_alloc()
        for _ in range(times):
            fn()
        return mem_alloc() - before
    finally:
        gc.enable()


class Typist:
    """Presses and releases input 8 every few scans: scanning while keys move, not only while all is quiet."""

    def __init__(self, inputs, s):
        self.inputs = inputs
        self.s = s
        self.n = 0

    def step(self):
        self.n += 1
        self.inputs.set(8, self.n & 4)
        self.s.scan_once()


def test_scanning_allocates_nothing_quiet_held_or_typing():
    inputs, queue, s = scanner()
    scan = s.scan_once
    scan()
    assert allocated(scan, 1000) in (0, None)  # quiet
    inputs.set(0)
    inputs.set(23)
    scan()
    assert allocated(scan, 1000) in (0, None)  # held
    typist = Typist(inputs, s)
    step = typist.step
    step()
    assert allocated(step, 1000) in (0, None)  # a press every 8 scans, into a full ring too
    assert len(queue) + queue.dropped >= 125


def test_the_task_puts_presses_into_the_queue_given_to_start_and_deinit_stops_it():
    async def main():
        inputs = Inputs()
        s = Scanner(inputs.read_into, NBYTES, KEYMAP)
        s.poll_ms = 1
        queue = KeyQueue()
        s.start(queue)
        inputs.set(9)
        code = await asyncio.wait_for(queue.wait(), 2)
        s.deinit()
        await asyncio.sleep_ms(5)
        reads = inputs.reads
        await asyncio.sleep_ms(20)
        return code, reads, inputs.reads

    code, reads, later = asyncio.run(main())
    assert code == key_code(1, 1)
    assert later == reads  # no scans after deinit()


def test_a_key_held_when_the_task_starts_counts_only_when_pressed_again():
    async def main():
        inputs = Inputs()
        inputs.set(0)  # a jammed key at power-on must not make a call
        s = Scanner(inputs.read_into, NBYTES, KEYMAP)
        s.poll_ms = 1
        queue = KeyQueue()
        s.start(queue)
        await asyncio.sleep_ms(30)
        first = events(queue)
        inputs.set(0, False)
        await asyncio.sleep_ms(30)
        inputs.set(0)
        code = await asyncio.wait_for(queue.wait(), 2)
        s.deinit()
        return first, code

    first, code = asyncio.run(main())
    assert first == [] and code == PASS_N


def test_with_an_idle_line_the_task_reads_nothing_while_quiet_and_scans_when_the_line_falls():
    async def main():
        inputs = Inputs()
        line = [1]  # the expanders' INT line: high while no change is unread
        s = Scanner(inputs.read_into, NBYTES, KEYMAP, idle=lambda: line[0])
        s.poll_ms = 1
        queue = KeyQueue()
        s.start(queue)
        await asyncio.sleep_ms(30)
        quiet_reads = inputs.reads  # start()'s read and one scan, then the task looks at the line only
        inputs.set(8)
        await asyncio.sleep_ms(30)
        unseen = events(queue)  # the line still high: no scan, the press is not seen yet
        line[0] = 0  # what the expanders do on a change (held low until they are read)
        code = await asyncio.wait_for(queue.wait(), 2)
        line[0] = 1
        inputs.set(8, False)
        line[0] = 0
        await asyncio.sleep_ms(30)
        line[0] = 1
        await asyncio.sleep_ms(30)
        settled_reads = inputs.reads
        await asyncio.sleep_ms(30)
        s.deinit()
        return quiet_reads, unseen, code, settled_reads, inputs.reads

    quiet_reads, unseen, code, settled_reads, final_reads = asyncio.run(main())
    assert quiet_reads <= 3 and unseen == [] and code == key_code(1, 0)
    assert final_reads == settled_reads  # released and quiet again: back to looking at the line alone
