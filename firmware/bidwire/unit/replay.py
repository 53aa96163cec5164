"""The boot's work on the flash: the .tmp files a power cut left removed, the snapshot loaded and the journal replayed
over it through the App (bidwire.unit.store), a torn or corrupt tail cut off (bidwire.unit.journal).

None of it runs between boots but a rebuild after a failed write and the repair after a failed append, so the store
and the journal import this module for those moments and drop it after (bidwire.unit.lazy): its functions are not
in the heap once booted (docs/benchmarks.md).
"""
import gc
import json
import os
import struct

from bidwire.core.compat import const
from bidwire.unit.flash import durable, flash_error, remove

_SNAPSHOT = const("state.json")  # store.SNAPSHOT
_COPY = const(256)  # repair() copies the good prefix through a buffer this size
# The store's record kinds, as store.py writes them (tests/core/test_unit_store.py replays each of them)
_R_GEN = const(1)
_R_BOOT = const(2)
_R_KEY = const(3)
_R_CMD = const(4)
_R_ACK = const(5)


def clean(journal):
    """Remove the .tmp files a power cut left behind (before reading anything)."""
    for name in os.listdir(journal.directory):
        if name.endswith(".tmp"):
            os.remove(journal.directory + "/" + name)


def read_snapshot(journal, name):
    try:
        with open(journal.snapshot_path(name), "rb") as f:
            return f.read()
    except OSError:
        return None


def load(store):
    """The .tmp files a power cut left removed, the snapshot, then the journal replayed over it: the app, seq, keys,
    boot and acked as the flash holds them. One that cannot complete (the heap, a bug) would leave a half-replayed app
    and counters: it halts the store."""
    clean(store.journal)
    store.gen = store.boot = store.acked = store.keys = 0
    store.seq = 1
    store.hint = 0
    app = store.app
    app.replaying = True
    try:
        snap = read_snapshot(store.journal, _SNAPSHOT)
        if snap:
            s = json.loads(snap)
            snap = None
            store.gen, store.boot, store.seq, store.acked = s["gen"], s["boot"], s["seq"], s["acked"]
            store.keys = s["keys"]
            app.restore(s["app"])
            s = None
        _records(store)
    except Exception as e:  # noqa: BLE001 - whatever it was, the app is half-way
        store.halt("replay " + type(e).__name__)
    finally:
        app.replaying = False
    _damaged(store)


def _records(store):
    j, app = store.journal, store.app
    first = True
    count = 0
    for kind, payload in j.records():
        count += 1
        if not count & 7:
            # Many short-lived payloads: collected every 8 records (every 64 left a journal of one long mashed
            # auction unreadable at boot in a 48K heap: its growing input log found no room among them).
            gc.collect()
        if first:
            first = False
            if kind != _R_GEN or struct.unpack_from("<I", payload, 4)[0] != store.gen:
                j.reset()  # a journal the snapshot already holds (power cut during compaction)
                store.status = ""
                return
            store.new_gen = False
            continue
        t = struct.unpack_from("<I", payload, 0)[0]
        off = 8
        if kind == _R_KEY:
            app.key(payload[4], payload[5])
            store.keys += 1
            off = 6
        elif kind == _R_CMD:
            n = payload[4] | payload[5] << 8
            app.command(json.loads(payload[6:6 + n]), t)
            off = 6 + n
        elif kind == _R_BOOT:
            store.boot = struct.unpack_from("<I", payload, 4)[0]
        elif kind == _R_ACK:
            store.acked = max(store.acked, struct.unpack_from("<I", payload, 4)[0])
        while off + 6 <= len(payload):
            seq, n = struct.unpack_from("<IH", payload, off)
            store.seq = seq + 1
            off += 6 + n
    if first:
        store.new_gen = True


def _damaged(store):
    """A torn or corrupt record ended the replay: say so, and cut it so that new records follow good ones."""
    j = store.journal
    if j.damaged is not None:
        store.status = "journal cut: " + j.damage_reason
        store.pending.append({"type": "note", "text": f"journal damaged at byte {j.damaged} "
                              f"({j.damage_reason}); the torn record was dropped"})
        repair(j)
        if j.size() == 0:
            store.new_gen = True


def repair(journal):
    """Cut the journal at its first damaged record (copy the good prefix to .tmp, rename over). False if it had
    none."""
    for _ in journal.records():
        pass
    if journal.damaged is None:
        return False
    journal.close()
    keep, tmp = journal.end, journal.path + ".tmp"
    buf = bytearray(_COPY)
    try:
        with open(journal.path, "rb") as src, open(tmp, "wb") as dst:
            while keep:
                got = src.readinto(buf) if keep >= _COPY else src.readinto(memoryview(buf)[:keep])
                if not got:
                    break
                dst.write(memoryview(buf)[:got])
                keep -= got
            durable(dst)
        os.rename(tmp, journal.path)
    except OSError as e:
        remove(tmp)
        raise flash_error(e, "journal repair")  # noqa: B904 - MicroPython warns on chaining
    journal.damaged = journal.damage_reason = None
    return True
