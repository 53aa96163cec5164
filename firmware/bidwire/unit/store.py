"""Persistence and the outbox: each input that changed the app is one journal record holding the input and
the events it produced, numbered with the unit's strictly increasing seq (docs/architecture.md §3, §4).

One record per input makes "journaled" and "queued for the collector" the same act: a power cut either keeps
the press and its events or loses both, and boot replays the records through the same App to rebuild the
exact state. Events stay in the journal until the collector acknowledges them; at a quiet point with nothing
unacknowledged the state is snapshotted (tmp + rename) and the journal starts again (a new generation).

The RAM state is trusted only while it is what the flash gives: an input that fails half-way (a bug, or the heap)
is undone by rebuilding from the flash, and a rebuild (or the boot's replay) that cannot complete halts the store:
nothing more is journaled (so no seq is made from a half-replayed count) and `on_halt` stops the unit (docs/unit.md).

Record payload: u32 time, the input, then events as (u32 seq, u16 length, JSON bytes).
"""
import gc
import json
import struct
import sys

from bidwire.core.compat import const
from bidwire.unit.flash import JournalFull
from bidwire.unit.lazy import drop

# an event's JSON as bytes: on MicroPython a str is a buffer of its UTF-8 bytes, viewed as it is (no copy, which a
# fragmented heap may have no room for); CPython encodes it
_BYTES = memoryview if sys.implementation.name == "micropython" else str.encode


class Halted(Exception):
    """The journal could not be replayed whole: the app is not what the flash holds, so the unit must stop."""


class Store:
    SNAPSHOT = "state.json"  # the snapshot's file in the journal's directory
    # The record kinds (replay.py reads them through the store; tests/core/test_unit_store.py replays each of them)
    R_GEN = const(1)  # first record of a journal: its generation (the snapshot names the one that follows it)
    R_BOOT = const(2)
    R_KEY = const(3)
    R_CMD = const(4)
    R_ACK = const(5)

    def __init__(self, journal, app, clock):
        self.journal = journal
        self.app = app
        self.clock = clock
        self.gen = self.boot = self.acked = 0
        self.seq = 1  # the next event's seq
        self.keys = 0  # key presses journaled, ever (kept in the snapshot): the virtual unit reports it
        self.compactions = 0  # snapshots written this boot (flash writes besides journal records)
        self.hint = 0  # journal offset from which unacknowledged events may be found
        self.status = ""  # trouble with the flash, for the status line
        self.notify = None  # called when new events are queued (the sync client wakes up)
        self.on_halt = None  # called with the reason when a replay cannot complete (runner: fault screen, reset);
        # without one (tests) only the Halted exception stops the caller
        self.halted = ""  # why the store halted; then it journals nothing more
        self.new_gen = True  # the journal needs its R_GEN record before the next append (the boot's replay says)
        self.pending = []  # the store's own events (boot, a damaged journal) for the next record

    def halt(self, reason):
        """Stop journaling for good: the app is not what the flash holds (a replay that could not complete)."""
        self.halted = reason
        if self.on_halt is not None:
            self.on_halt(reason)  # on a unit it does not return
        raise Halted(reason)

    # ---- boot ------------------------------------------------------------------------------------------
    def open(self, hello):
        """Boot: drop stray .tmp files, load the snapshot, replay the journal, then journal this boot."""
        self._load()
        self.boot += 1
        hello["type"], hello["boot"], hello["backlog"] = "hello", self.boot, self.backlog()
        self.pending.append(hello)
        self._commit(self.R_BOOT, struct.pack("<I", self.boot), self.clock.time(), [])

    def _load(self):
        """The snapshot and the journal replayed through the App (replay.py, the boot's module, dropped again: not in
        the heap once booted), and a torn tail cut off."""
        from bidwire.unit import replay

        found = replay.load(self)
        self.gen, self.boot, self.seq, self.acked, self.keys, self.new_gen, reset = found
        self.hint = 0
        if reset:
            self.status = ""
        j = self.journal
        if j.damaged is not None:  # a torn or corrupt record ended the replay: say so, and cut it
            self.status = "journal cut: " + j.damage_reason
            self.pending.append({"type": "note", "text": f"journal damaged at byte {j.damaged} "
                                 f"({j.damage_reason}); the torn record was dropped"})
            j.repair()  # (with replay.py still loaded)
            if j.size() == 0:
                self.new_gen = True
        drop(replay.__name__)

    def rebuild(self):
        """Rebuild the app from flash (after a failed write left the RAM state ahead of the journal)."""
        app = self.app
        app.__init__(app.unit, "enforce" if app.mode else "record", app.td_pin)
        gc.collect()
        status = self.status
        self._load()  # once the old state is freed (as .mpy files its code comes into the heap)
        self.pending = []  # what the rebuild found to say is for a boot: this input goes back
        self.status = status

    # ---- inputs -----------------------------------------------------------------------------------------
    def key(self, seat, key, ms=-1):
        """A key press (`ms`: its ticks_ms, for the tempo): applied, and journaled with its events if it changed
        anything. False if ignored.

        An exception half-way (the heap, a bug) may leave the app ahead of the journal: it is rebuilt from the flash
        before the exception goes on (and halts if it cannot be); likewise for a command."""
        t = self.clock.time()
        try:
            if not self._commit(self.R_KEY, bytes((seat, key)), t, self.app.key(seat, key, ms)):
                return False
        except Halted:
            raise
        except Exception:
            self.rebuild()
            raise
        self.keys += 1
        return True

    def command(self, cmd):
        """A collector command (already parsed); journaled with its events if new."""
        t = self.clock.time()
        try:
            events = self.app.command(cmd, t)
            if events is None:
                return False
            raw = json.dumps(cmd).encode()
            return self._commit(self.R_CMD, struct.pack("<H", len(raw)) + raw, t, events)
        except Halted:
            raise
        except Exception:
            self.rebuild()
            raise

    def ack(self, seq):
        """The collector has stored every event up to `seq`."""
        if seq < self.seq:
            if seq > self.acked:
                self.acked = seq
                self._commit(self.R_ACK, struct.pack("<I", seq), self.clock.time(), [])
                self.compact()
            return
        # The collector holds seqs up to `seq`, more than this unit ever made: a unit replaced under the same id with
        # a fresh flash. Whatever it has not acknowledged was taken for repeats, so the unacknowledged events are
        # queued again, numbered after `seq`, in the same record that marks the old ones done.
        again = self.batch(1 << 30)
        old = self.seq - 1
        events = [json.loads(raw) for raw in again]
        again = None
        self.seq = seq + 1
        self.acked = seq
        events.append({"type": "note", "text": f"collector was at seq {seq}, unit at {old}: "
                       "unacknowledged events sent again after it"})
        self._commit(self.R_ACK, struct.pack("<I", seq), self.clock.time(), events)

    def _commit(self, kind, body, t, events):
        """Journal one input (`kind`, `body`) with its `events` and the store's own `pending` ones, numbered from
        the next seq. False if there is nothing to journal (`events` None: the input changed nothing) or the flash
        refused the record (the state goes back to what the flash holds)."""
        if self.halted:
            raise Halted(self.halted)
        if events is None:
            return False
        app = self.app
        if self.pending:  # the store's own go first (a damaged journal's note, then the boot's hello)
            self.pending.extend(events)
            events, self.pending = self.pending, []
        parts = [struct.pack("<I", t), body]
        seq = self.seq
        for ev in events:
            if "t" not in ev:  # events queued again keep their time
                ev["t"], ev["unit"] = t + app.clock_offset, app.unit
            ev["seq"] = seq
            raw = _BYTES(json.dumps(ev))  # pyright: ignore[reportArgumentType] - a str is a buffer on MicroPython
            parts.append(struct.pack("<IH", seq, len(raw)))
            parts.append(raw)
            seq += 1
        events.clear()  # the dicts go now: the journal write may need their room
        try:
            if self.new_gen:
                self.journal.append(self.R_GEN, struct.pack("<II", t, self.gen))
                self.new_gen = False
            self.journal.append(kind, *parts)
        except (JournalFull, OSError) as e:  # not stored: the press is not taken, the state goes back
            self.status = "FLASH FULL" if isinstance(e, JournalFull) else "FLASH ERROR " + str(e)[:4]
            self.rebuild()
            return False
        if self.status.startswith("FLASH") or self.status.startswith("ERR "):
            self.status = ""
        if seq != self.seq:
            self.seq = seq
            if self.notify is not None:
                self.notify()
        return True

    # ---- outbox -----------------------------------------------------------------------------------------
    def backlog(self):
        return self.seq - 1 - self.acked

    def batch(self, limit=2048):
        """Unacknowledged events in seq order, at most `limit` bytes of JSON (at least one event)."""
        out = []
        size = 0
        j = self.journal
        if self.hint > j.size():
            self.hint = 0  # the journal was cut or restarted under the hint
        it = j.records(self.hint)
        first = -1
        for kind, payload in it:
            off = 6 + (payload[4] | payload[5] << 8) if kind == self.R_CMD else (6 if kind == self.R_KEY else 8)
            while off + 6 <= len(payload):
                seq, n = struct.unpack_from("<IH", payload, off)
                if seq > self.acked:
                    if first < 0:
                        first = j.at
                    if out and size + n > limit:
                        it.close()
                        self.hint = first
                        return out
                    out.append(payload[off + 6:off + 6 + n])
                    size += n + 1
                off += 6 + n
        self.hint = first if first >= 0 else j.end
        return out

    def compact(self):
        """At a quiet point with every event acknowledged: snapshot the state and start a new journal."""
        if not self.app.quiet() or self.acked != self.seq - 1:
            return False
        snap = {"gen": self.gen + 1, "boot": self.boot, "seq": self.seq, "acked": self.acked, "keys": self.keys,
                "app": self.app.snapshot()}
        try:
            self.journal.snapshot(self.SNAPSHOT, json.dumps(snap).encode())
        except JournalFull:
            return False
        self.gen += 1
        self.compactions += 1
        self.journal.reset()
        self.new_gen = True
        self.hint = 0
        return True
