"""Power loss on littlefs, on the real MicroPython interpreter: a unit's session played on vfs.VfsLfs2 over the fake
flash chip of boards/sim/flash.py, the power cut at one program or erase after another (issue 24; the SIGKILLs of
tests/e2e never tear a write, the host's page cache outlives them). Driven by tests/host/test_power_loss.py.

Run from the repository root with MICROPYPATH at the firmware (sources or .mpy) and boards/sim:
  micropython -X heapsize=8M tests/mp/power_loss.py LINES CUTS SEED [MUTATION]
LINES: a file of key lines ("N 1", "E PASS"; tests/e2e/session.py's script), each of which changes the unit's state;
the last one is kept back for the press after each reboot. CUTS: cut points per mode, drawn with SEED from the
session's ops, or "all": every op (also when CUTS >= the session's ops); SEED draws the tears too.
MUTATION: "noflush", the journal's durable() does nothing; "late", the chip says a program is done before it is
(see Late): a broken journal or chip, which the checks must catch.

The session: the unit boots as a unit does (runner.Unit(hal, cfg).boot() on a 128 x 4 KB partition formatted as
an ESP32 formats it, VfsLfs2 defaults), then the keys, each through Unit.press; a sync (Store.batch / Store.ack, as
the sync client makes them, the collector acknowledging each batch) after every 6th press and whenever the app is
quiet, and at the end. A reference run without a cut gives the session's ops and every event's seq and JSON.

For each cut point, in two modes (stop: the op applies nothing; tear: a prefix, half of them with the rest left
half done), the session is played again on a fresh copy of the formatted chip until the power goes, then rebooted:
a fresh Flash over the same bytes, mounted (never formatted), the unit booted again the same way. Checked each time:
- the file system mounts, the boot completes (no exception, no halt);
- every event acknowledged to the player (its step returned) is still there with its seq and JSON: in the outbox
  (Store.batch), or acknowledged by the collector, which holds it; the unit shows what it showed after its last
  press that survived (screens.lines);
- the step in flight is kept whole or lost whole, and at most that one press is lost;
- nothing the unit had recorded as acknowledged is queued again, and no seq is reused for other content;
- one more press is journaled after the reboot, its events numbered after everything before.
Prints one JSON line: the figures per mode, the session's size and the seconds taken.
"""
import gc
import json
import random
import sys
import time

import vfs
from flash import Flash, PowerCut

from bidwire.unit import screens
from bidwire.unit.hal import Hal
from bidwire.unit.keys import KEYS_PER_SEAT, parse_key
from bidwire.unit.runner import Unit

MOUNT = "/flash"
CFG = {"unit": "T01", "mode": "record", "td_pin": "1234", "collector": "", "state_dir": MOUNT + "/data"}
BLOCKS, BLOCK_SIZE = 128, 4096  # a 512 KB partition, erase blocks of 4 KB as on the ESP32's SPI flash
SYNC_EVERY = 6
FAILURES_KEPT = 8


class Display:
    """The SSD1306 the unit draws on: nothing kept (the rows are compared through screens.lines)."""

    def fill(self, c):
        pass

    def text(self, s, x, y, c=1):
        pass

    def fill_rect(self, x, y, w, h, c):
        pass

    def blit(self, fb, x, y):
        pass

    def page(self, n):
        pass


class Clock:
    """A clock each run starts afresh, so that a run is the reference run up to its cut: events hold the time."""

    def __init__(self, t):
        self.t, self.ms = t, 0

    def time(self):
        self.t += 1
        return self.t

    def ticks_ms(self):
        self.ms += 700
        return self.ms


def unit(t):
    """The unit as main.py builds it (the Hal a board gives), on what /flash holds; unit.boot() boots it."""
    return Unit(Hal(None, Display(), CFG["state_dir"], Clock(t), None, None, name="sim"), CFG)


def rows(u):
    return "|".join(screens.lines(u.app, ""))


def outbox(store):
    """(seq, JSON bytes) of every unacknowledged event, as the sync client would take them."""
    return [(json.loads(raw)["seq"], bytes(raw)) for raw in store.batch(1 << 30)]


class Run:
    """One play of the session: where it was when the power went."""

    def __init__(self):
        self.step = 0  # index of the step under way
        self.done_seq = 1  # events below it were acknowledged to the player (their step returned)
        self.acked = 0  # what the store had recorded as acknowledged by the collector (its ack() returned)
        self.sent = 0  # highest seq the collector received
        self.keys = 0  # presses journaled (Store.keys) when the last step returned
        self.unit = None


def steps(lines):
    """The session's plan: ("boot",), ("key", i), ("sync",) — the syncs placed as the app's state calls for, so
    the plan is only known as it is played (the same in every run)."""
    yield ("boot",)
    for i in range(len(lines) - 1):  # the last line is kept back for the press after a reboot
        yield ("key", i)
        yield ("sync?", i)
    yield ("sync",)


def play(lines, run, dev, ref=None, check=None):
    """Play the session on chip `dev` to its end (the reference run, `ref` filled) or until the power goes
    (PowerCut, or whatever the firmware made of it while unwinding: a step that returns on a dead chip did not
    complete either). `check(seq, raw)`: each event the collector receives."""
    for step in steps(lines):
        kind = step[0]
        if kind == "sync?":
            i = step[1]
            if i % SYNC_EVERY != SYNC_EVERY - 1 and not run.unit.app.quiet():
                continue
            kind = "sync"
        if ref is not None:
            ref["steps"].append((kind, dev.ops, run.done_seq))
        if kind == "boot":
            run.unit = None
            run.unit = unit(1_790_000_000)  # kept before it boots: the journal it opens is closed after a cut
            run.unit.boot()
        elif kind == "key":
            seat, key = lines[step[1]].split()
            run.unit.press("NESW".index(seat) * KEYS_PER_SEAT + parse_key(key))
            if not run.unit.changed:
                raise AssertionError(f"line {step[1]} ({lines[step[1]]}) changed nothing: not a session line")
        else:
            store = run.unit.store
            while store.backlog():
                batch = store.batch(2048)
                if not batch:
                    raise AssertionError(f"a backlog of {store.backlog()} events and an empty outbox")
                last = 0
                for raw in batch:
                    ev = json.loads(raw)
                    last = ev["seq"]
                    if check is not None:
                        check(last, bytes(raw))
                    run.sent = max(run.sent, last)
                batch = None
                store.ack(last)
                run.acked = store.acked
        if dev.dead:
            raise PowerCut("the step returned, on a chip without power")
        store = run.unit.store
        run.done_seq, run.keys = store.seq, store.keys
        if ref is not None and kind == "key":
            ref["rows"][store.keys] = rows(run.unit)
        run.step += 1


def reference(lines, formatted):
    data = bytearray(formatted)
    dev = Chip(data, BLOCKS, BLOCK_SIZE)
    vfs.mount(vfs.VfsLfs2(dev), MOUNT)
    ref = {"steps": [], "rows": {}, "events": {}}
    run = Run()

    def keep(seq, raw):
        ref["events"][seq] = raw

    play(lines, run, dev, ref, keep)
    ref["ops"], ref["programs"], ref["erases"] = dev.ops, dev.programs, dev.erases
    ref["compactions"] = run.unit.store.gen
    ref["presses"] = run.unit.store.keys
    ref["syncs"] = sum(1 for s in ref["steps"] if s[0] == "sync")
    ref["steps"].append(("end", dev.ops, run.done_seq))
    # the line kept back, pressed once after the session: the rows the unit shows after it
    seat, key = lines[-1].split()
    run.unit.press("NESW".index(seat) * KEYS_PER_SEAT + parse_key(key))
    ref["rows"][run.unit.store.keys] = rows(run.unit)
    run.unit.store.journal.close()
    vfs.umount(MOUNT)
    ref["rows"][0] = None  # before the first press: whatever the boot shows
    return ref


def cut_once(lines, formatted, data, ref, at, tear, noise, totals):
    """Play until op `at` loses power, reboot, check; add to `totals`. Returns a failure's text or None."""
    data[:] = formatted
    dev = Chip(data, BLOCKS, BLOCK_SIZE)
    dev.cut(at, tear, noise)
    vfs.mount(vfs.VfsLfs2(dev), MOUNT)
    run = Run()
    events = ref["events"]
    bad = []

    def check(seq, raw):  # what the collector gets before the cut is the reference's
        if events.get(seq) != raw:
            bad.append(f"seq {seq} sent as {raw} (reference {events.get(seq)})")

    try:
        play(lines, run, dev, None, check)
        return "the session ended without a power cut"
    except PowerCut:
        pass
    except BaseException as e:  # noqa: BLE001 - or what the firmware made of the cut while unwinding (a close's EIO)
        if not dev.dead:
            return f"the session raised {type(e).__name__}: {e} before the power cut"
    if run.unit is not None:
        try:
            run.unit.store.journal.close()  # the old file system is never used again (its handle must not be
        except BaseException:  # noqa: BLE001, S110 - closed later by the collector, on the dead chip)
            pass
    run.unit = None
    vfs.umount(MOUNT)
    gc.collect()
    kind = ref["steps"][run.step][0]
    totals["cut_in"][kind] = totals["cut_in"].get(kind, 0) + 1
    if bad:
        return "before the cut: " + bad[0]

    # reboot on the bytes as they are
    dev = Flash(data, BLOCKS, BLOCK_SIZE)  # the chip of a mutation lies only until its power cut
    try:
        fs = vfs.VfsLfs2(dev)
    except OSError as e:
        return f"the file system does not mount: {e}"
    totals["mounted"] += 1
    vfs.mount(fs, MOUNT)
    try:
        return after_reboot(lines, ref, run, kind, totals)
    except BaseException as e:  # noqa: BLE001 - SystemExit too: a halt
        return f"after the reboot: {type(e).__name__}: {e}"
    finally:
        vfs.umount(MOUNT)


def after_reboot(lines, ref, run, kind, totals):
    events = ref["events"]
    u = unit(2_000_000_000)
    store = u.store
    try:
        try:
            u.boot()
        except BaseException as e:  # noqa: BLE001 - SystemExit: the runner halted
            return f"the boot raised {type(e).__name__}: {e}"
        if store.halted:
            return "the store halted: " + store.halted
        totals["booted"] += 1
        if store.status.startswith("journal cut"):
            totals["journal_cut"] += 1  # a torn record found and cut off by the boot (replay.repair)
        out = outbox(store)
        by_seq = {}
        prev = 0
        for seq, raw in out:
            if seq <= prev:
                totals["duplicates"] += 1
                return f"outbox seqs out of order: {seq} after {prev}"
            prev = seq
            by_seq[seq] = raw
        problems = []
        # acknowledged to the player: still there
        lost = 0
        for seq in range(1, run.done_seq):
            if seq <= store.acked:
                continue  # the collector holds it (checked below: acked <= sent)
            if by_seq.get(seq) != events[seq]:
                lost += 1
                if len(problems) < 3:
                    problems.append(f"acknowledged event {seq} {'altered' if seq in by_seq else 'lost'}")
        totals["lost_acknowledged"] += lost
        if store.acked > run.sent:
            problems.append(f"the unit counts seq {store.acked} acknowledged, the collector got up to {run.sent}")
        # nothing acknowledged by the collector queued again
        again = sum(1 for seq, _ in out if seq <= run.acked)
        if store.acked < run.acked:
            problems.append(f"acknowledgement of {run.acked} lost (acked {store.acked})")
        totals["duplicates"] += again
        if again:
            problems.append(f"{again} events acknowledged by the collector queued again")
        # the step in flight: whole or not at all; then this boot's own events
        lo = run.done_seq
        hi = ref["steps"][run.step + 1][2] if run.step + 1 < len(ref["steps"]) else lo
        tail = [(seq, raw) for seq, raw in out if seq >= lo]
        kept = 0
        while kept < len(tail) and events.get(tail[kept][0]) == tail[kept][1] and tail[kept][0] < hi:
            kept += 1
        if kept not in (0, hi - lo):
            problems.append(f"the step in flight kept {kept} of its {hi - lo} events")
        rest = [json.loads(raw) for _, raw in tail[kept:]]
        types = [e["type"] for e in rest]
        if types not in (["hello"], ["note", "hello"]) or rest[-1]["boot"] != store.boot:
            problems.append(f"after the events before the cut, {types}: not this boot's own")
        if rest and rest[0]["seq"] < (tail[kept - 1][0] + 1 if kept else lo):
            problems.append(f"seq {rest[0]['seq']} reused")
        pressed = store.keys - run.keys
        if pressed == 0 and kind == "key":
            totals["lost_in_flight"] += 1
        elif pressed == 1 and kind == "key":
            totals["kept_in_flight"] += 1
        elif pressed != 0:
            problems.append(f"{pressed} presses more than acknowledged, the step in flight a {kind}")
        if kind == "key" and (pressed == 1) != (kept > 0) and hi > lo:
            problems.append(f"the press in flight {'kept' if pressed else 'lost'}, its events not")
        if ref["rows"].get(store.keys) not in (None, rows(u)):
            totals["wrong_state"] += 1
            problems.append(f"after {store.keys} presses the unit shows {rows(u)}, not {ref['rows'][store.keys]}")
        # and the session goes on
        seq_before = store.seq
        seat, key = lines[store.keys].split()
        u.press("NESW".index(seat) * KEYS_PER_SEAT + parse_key(key))
        if not u.changed or store.keys != run.keys + pressed + 1 or store.seq < seq_before:
            problems.append(f"the press after the reboot ({lines[store.keys - 1]}) was not journaled")
        elif ref["rows"].get(store.keys) != rows(u):
            problems.append(f"after the press after the reboot the unit shows {rows(u)}")
        else:
            totals["went_on"] += 1
        return "; ".join(problems) or None
    finally:
        store.journal.close()


def main():
    lines_path, cuts, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mutation = sys.argv[4] if len(sys.argv) > 4 else ""
    mutate(mutation)
    with open(lines_path) as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    t0 = time.ticks_ms()
    dev = Chip(None, BLOCKS, BLOCK_SIZE)
    vfs.VfsLfs2.mkfs(dev)  # as an ESP32's first boot formats its partition (readsize, progsize, lookahead: 32)
    formatted = bytes(dev.data)
    dev = None
    ref = reference(lines, formatted)
    total = ref["ops"]
    random.seed(seed)
    data = bytearray(len(formatted))
    summary = {"seed": seed, "mutation": mutation, "lines": len(lines), "presses": ref["presses"],
               "syncs": ref["syncs"], "compactions": ref["compactions"], "events": len(ref["events"]),
               "ops": total, "programs": ref["programs"], "erases": ref["erases"], "partition": [BLOCKS, BLOCK_SIZE]}
    for mode in ("stop", "tear"):
        points = list(range(total)) if cuts == "all" or int(cuts) >= total else sample(total, int(cuts))
        totals = {"tried": 0, "mounted": 0, "booted": 0, "lost_acknowledged": 0, "lost_in_flight": 0,
                  "kept_in_flight": 0, "journal_cut": 0, "duplicates": 0, "wrong_state": 0, "went_on": 0, "failed": 0,
                  "cut_in": {}, "failures": []}
        for at in points:
            tear, noise = -1, 0
            if mode == "tear":
                tear = random.getrandbits(16) / 65536
                noise = random.getrandbits(24) + 1 if random.getrandbits(1) else 0
            totals["tried"] += 1
            why = cut_once(lines, formatted, data, ref, at, tear, noise, totals)
            if why is not None:
                totals["failed"] += 1
                if len(totals["failures"]) < FAILURES_KEPT:
                    totals["failures"].append({"op": at, "tear": tear, "noise": noise, "why": why})
            gc.collect()
        summary[mode] = totals
    summary["seconds"] = time.ticks_diff(time.ticks_ms(), t0) / 1000
    print(json.dumps(summary))


# ---- mutations: a broken journal or chip that the checks must catch (tests/host/test_power_loss.py) --------------

class Late(Flash):
    """Mutation "late": a chip that says a program is done before it is (a write cache that the power cut empties):
    the power cut loses the program before the op it falls in as well."""

    undo = None

    def writeblocks(self, block, buf, offset=0):
        self._lie()
        if not self.dead:
            start = block * self.block_size + offset
            self.undo = (start, bytes(self.data[start:start + len(buf)]))
        return super().writeblocks(block, buf, offset)

    def ioctl(self, op, arg):
        if op == 6:
            self._lie()
            self.undo = None
        return super().ioctl(op, arg)

    def _lie(self):
        if self.ops == self.cut_at and self.undo is not None and not self.dead:
            start, old = self.undo
            self.data[start:start + len(old)] = old


Chip = Flash


def mutate(mutation):
    global Chip
    if mutation == "noflush":  # the journal's records never flushed (lfs: never committed until closed)
        import bidwire.unit.journal as journal

        journal.durable = lambda f: None
    elif mutation == "late":
        Chip = Late
    elif mutation:
        raise ValueError(f"unknown mutation {mutation}: use noflush or late")


def sample(total, k):
    """k distinct ops of 0..total-1, in order (drawn from the seeded generator)."""
    chosen = set()
    while len(chosen) < k:
        chosen.add(random.getrandbits(30) % total)
    return sorted(chosen)


main()
