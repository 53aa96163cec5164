"""The unit's journal: CRC-framed records appended and flushed to flash, and snapshots replaced atomically.

A record is magic (1 byte), kind (1), payload length (u16 LE), the payload, then CRC32 of all before it
(u32 LE). Reading stops at the first torn or corrupt record: a power cut mid-append leaves only a torn tail,
which the boot cuts off (bidwire.unit.replay) so that new records follow the last good one (docs/architecture.md §3
"Persistence").
"""
import os
import struct
from binascii import crc32
from bidwire.core.compat import const
from bidwire.unit.flash import durable, flash_error, remove
from bidwire.unit.lazy import drop

_MAGIC = const(0xB1)
_HEADER = const(4)
_TRAILER = const(4)
_MAX_PAYLOAD = const(0xFFFF)
JOURNAL = "journal.bin"


class Journal:
    """The record file `journal.bin` and the snapshots of one unit, in `directory` (created if missing)."""

    def __init__(self, directory):
        if not directory:
            raise ValueError("journal directory is empty: give a path such as /data")
        path = "/" if directory[0] == "/" else ""
        for part in directory.split("/"):  # made if missing, a folder at a time
            if part:
                path += part
                try:
                    os.mkdir(path)
                except OSError:
                    pass  # it exists; any other failure shows at the first open
                path += "/"
        self.directory = directory
        self.path = directory + "/" + JOURNAL
        self.damaged = self.damage_reason = None  # offset and why of the first bad record records() read
        self.end = 0  # offset just past the last good record read
        self.at = 0  # offset of the record records() yielded last
        self.writes = self.written = 0  # records appended and their bytes, since this object was made
        self._head, self._tail = bytearray(_HEADER), bytearray(_TRAILER)  # reused by every record
        self._f, self._size = None, 0  # the append handle, opened at the first append, and the file size

    def repair(self):
        """Cut the journal at its first damaged record, so that new records follow the last good one (replay.py, the
        boot's module, loaded for it and dropped after). False if it had none."""
        from bidwire.unit import replay

        cut = replay.repair(self)
        drop(replay.__name__)
        if cut:
            self.damaged = self.damage_reason = None
        return cut

    def append(self, kind, *parts):
        """Store one record durably (flushed and synced) before returning; JournalFull if flash is full. The
        payload is the parts one after the other, written as they are: never joined into one more copy."""
        if not 0 <= kind <= 255:
            raise ValueError(f"record kind {kind} out of range: use 0..255")
        n = 0
        for part in parts:
            n += len(part)
        if n > _MAX_PAYLOAD:
            raise ValueError(f"record payload of {n} bytes is too long: at most {_MAX_PAYLOAD}")
        if self.damaged is not None:  # a record after a torn one could never be read back: cut it first
            self.repair()
        head, tail = self._head, self._tail
        struct.pack_into("<BBH", head, 0, _MAGIC, kind, n)
        crc = crc32(head)
        for part in parts:
            crc = crc32(part, crc)
        struct.pack_into("<I", tail, 0, crc & 0xFFFFFFFF)
        try:
            if self._f is None:
                self._f = open(self.path, "ab")
                self._size = os.stat(self.path)[6]  # not tell(): an O_APPEND file may say 0 until written
            f = self._f
            f.write(head)
            for part in parts:
                f.write(part)
            f.write(tail)
            durable(f)
        except OSError as e:
            self.close()
            self.damaged, self.damage_reason = self._size, "append failed"
            raise flash_error(e, f"journal record of {n} bytes")  # noqa: B904 - MicroPython warns on chaining
        self._size += _HEADER + n + _TRAILER
        self.writes += 1
        self.written += _HEADER + n + _TRAILER

    def records(self, start=0):
        """Yield (kind, payload) in order from offset `start` (a record boundary); stops at the first torn or
        corrupt record and sets self.damaged. `at` is the offset of the record just yielded."""
        self.damaged = self.damage_reason = None
        self.end = offset = start
        head, tail = self._head, self._tail
        try:
            f = open(self.path, "rb")
        except OSError:
            return  # no journal yet
        with f:
            if start:
                f.seek(start)
            while True:
                got = f.readinto(head)
                if not got:
                    return
                reason = None
                n = head[2] | head[3] << 8
                payload = b""
                if got < _HEADER:
                    reason = "short header"
                elif head[0] != _MAGIC:
                    reason = "bad magic"
                else:
                    payload = f.read(n)
                    if len(payload) < n:
                        reason = "short payload"
                    elif f.readinto(tail) < _TRAILER:
                        reason = "short checksum"
                    elif struct.unpack_from("<I", tail)[0] != crc32(payload, crc32(head)) & 0xFFFFFFFF:
                        reason = "bad checksum"
                if reason is not None:
                    self.damaged, self.damage_reason = offset, reason
                    return
                self.at = offset
                offset += _HEADER + n + _TRAILER
                self.end = offset
                yield head[1], payload

    def snapshot(self, name, data):
        """Replace snapshot `name` atomically: write name.tmp, sync, then rename over the old one."""
        path = self.snapshot_path(name)
        tmp = path + ".tmp"
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                durable(f)
            os.rename(tmp, path)
        except OSError as e:
            remove(tmp)
            raise flash_error(e, f"snapshot {name}")  # noqa: B904 - MicroPython warns on chaining

    def reset(self):
        """Start an empty journal (after a snapshot has made its records redundant)."""
        self.close()
        remove(self.path)
        self.damaged = self.damage_reason = None
        self.end = self.at = 0

    def size(self):
        try:
            return os.stat(self.path)[6]
        except OSError:
            return 0

    def close(self):
        f, self._f = self._f, None
        if f is not None:
            try:
                f.close()
            except OSError:
                pass  # a flush that failed again: the torn tail is found and cut on the next read

    def snapshot_path(self, name):
        if not name or "/" in name or name.endswith(".tmp") or name == JOURNAL:
            raise ValueError(f"bad snapshot name {name}: use a plain file name, not ending in .tmp")
        return self.directory + "/" + name
