"""The boot's work on the flash: the .tmp files a power cut left removed, the snapshot loaded and the journal replayed
over it through the App (bidwire.unit.store), a torn or corrupt tail cut off (bidwire.unit.journal).

None of it runs between boots but a rebuild after a failed write and the repair after a failed append, so the store
and the journal import this module for those moments and drop it after (bidwire.unit.lazy): its functions are not
in the heap once booted (on the .mpy path that is 1.5 KiB; docs/benchmarks.md "What the heap needs"). It reads the
store and the journal and returns what it found; each of them writes its own fields.
"""
import gc
import json
import os
import struct

from bidwire.core.compat import const
from bidwire.unit.flash import durable, flash_error, remove

_COPY = const(256)  # repair() copies the good prefix through a buffer this size


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
    """The .tmp files a power cut left removed, the snapshot, then the journal replayed over it through the store's
    App: the store's counters as the flash holds them, [gen, boot, seq, acked, keys, new_gen, journal_reset] (the
    store writes them). One that cannot complete (the heap, a bug) would leave a half-replayed app: it halts the
    store (Store.halt)."""
    clean(store.journal)
    found = [0, 0, 1, 0, 0, True, False]  # gen, boot, seq, acked, keys, new_gen, journal reset
    app = store.app
    app.replaying = True
    try:
        snap = read_snapshot(store.journal, store.SNAPSHOT)
        if snap:
            s = json.loads(snap)
            snap = None
            found[0], found[1], found[2], found[3], found[4] = s["gen"], s["boot"], s["seq"], s["acked"], s["keys"]
            app.restore(s["app"])
            s = None
        _records(store, found)
    except Exception as e:  # noqa: BLE001 - whatever it was, the app is half-way
        store.halt("replay " + type(e).__name__)
    finally:
        app.replaying = False
    return found


def _records(store, found):
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
            if kind != store.R_GEN or struct.unpack_from("<I", payload, 4)[0] != found[0]:
                j.reset()  # a journal the snapshot already holds (power cut during compaction)
                found[6] = True
                return
            found[5] = False
            continue
        t = struct.unpack_from("<I", payload, 0)[0]
        off = 8
        if kind == store.R_KEY:
            app.key(payload[4], payload[5])
            found[4] += 1
            off = 6
        elif kind == store.R_CMD:
            n = payload[4] | payload[5] << 8
            app.command(json.loads(payload[6:6 + n]), t)
            off = 6 + n
        elif kind == store.R_BOOT:
            found[1] = struct.unpack_from("<I", payload, 4)[0]
        elif kind == store.R_ACK:
            found[3] = max(found[3], struct.unpack_from("<I", payload, 4)[0])
        while off + 6 <= len(payload):
            seq, n = struct.unpack_from("<IH", payload, off)
            found[2] = seq + 1
            off += 6 + n


def repair(journal):
    """Cut the journal at its first damaged record (copy the good prefix to .tmp, rename over; Journal.repair). False
    if it had none."""
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
    return True
