"""The unit's journal (docs/architecture.md §3 "Persistence"): every accepted input survives a power cut.

Each test works in its own directory under build/ and removes it. Replay: test_journal_replay.py.
"""
import os

from scratch import cut, file_size, remove_tree, scratch

from bidwire.unit import replay
from bidwire.unit.flash import JournalFull
from bidwire.unit.journal import JOURNAL, Journal

RECORDS = [(1, b"\x00\x00\x00"), (2, b"N:1H"), (2, b""), (7, bytes(range(200))), (255, b"last")]


def written(path, items=RECORDS):
    j = Journal(path)
    for kind, payload in items:
        j.append(kind, payload)
    j.close()
    return j


def read_all(j):
    return [(kind, bytes(payload)) for kind, payload in j.records()]


def test_records_read_back_in_order_with_their_kinds():
    path = scratch("roundtrip")
    try:
        written(path)
        j = Journal(path)
        assert read_all(j) == RECORDS and [kind for kind, _ in j.records()] == [kind for kind, _ in RECORDS]
        assert j.damaged is None and j.end == file_size(j.path)
        j.append(9, b"more")  # a reopened journal appends after what is there
        assert read_all(j) == RECORDS + [(9, b"more")]
        j.close()
    finally:
        remove_tree(path)


def test_power_cut_mid_append_loses_only_the_torn_record_and_appends_continue():
    path = scratch("torn")
    try:
        full = file_size(written(path).path)
        last = 4 + len(RECORDS[-1][1]) + 4
        for missing in (1, 2, 4, 5, last - 4, last - 1):
            remove_tree(path)
            j = written(path)
            cut(j.path, full - missing)
            assert read_all(j) == RECORDS[:-1], missing
            assert j.damaged == full - last and j.damage_reason is not None, missing
            assert j.repair() and j.damaged is None and file_size(j.path) == full - last
            j.append(3, b"after")
            j.close()
            assert read_all(j) == RECORDS[:-1] + [(3, b"after")] and j.damaged is None
    finally:
        remove_tree(path)


def test_corrupt_middle_record_stops_reading_there_keeping_earlier_records():
    path = scratch("corrupt")
    try:
        j = written(path, RECORDS[:3])
        middle = 4 + len(RECORDS[0][1]) + 4
        for offset, reason in ((middle, "bad magic"), (middle + 5, "bad checksum")):
            remove_tree(path)
            j = written(path, RECORDS[:3])
            with open(j.path, "rb") as f:
                data = bytearray(f.read())
            data[offset] ^= 0x40
            with open(j.path, "wb") as f:
                f.write(data)
            assert read_all(j) == RECORDS[:1]
            assert j.damaged == middle and j.damage_reason == reason
    finally:
        remove_tree(path)


def test_append_after_damage_is_found_cuts_the_damage_first():
    path = scratch("append-after-damage")
    try:
        j = written(path)
        cut(j.path, file_size(j.path) - 1)
        read_all(j)
        j.append(4, b"next")  # without the cut this record would sit behind the torn one, unreadable
        j.close()
        assert read_all(j) == RECORDS[:-1] + [(4, b"next")]
    finally:
        remove_tree(path)


class FlashFillsUp:
    """A file whose flash runs out after `room` more bytes: the rest of the write fails with ENOSPC."""

    def __init__(self, f, room):
        self.f = f
        self.room = room

    def write(self, data):
        if len(data) > self.room:
            self.f.write(bytes(data)[:self.room])
            self.room = 0
            self.f.flush()
            raise OSError(28)
        self.room -= len(data)
        return self.f.write(data)

    def flush(self):
        self.f.flush()

    def close(self):
        self.f.close()


def test_full_flash_raises_journal_full_and_keeps_earlier_records():
    path = scratch("full")
    try:
        for room in (0, 3, 6, 9):
            remove_tree(path)
            j = written(path)
            j.append(2, b"x")
            j._f = FlashFillsUp(j._f, room)
            try:
                j.append(2, b"E:2S")
                raise AssertionError("append on a full flash did not raise JournalFull")
            except JournalFull as e:
                assert "full" in str(e)
            assert read_all(j) == RECORDS + [(2, b"x")], room
            j.append(5, b"room again")  # the torn record is cut before the next one is written
            j.close()
            assert read_all(j) == RECORDS + [(2, b"x"), (5, b"room again")]
    finally:
        remove_tree(path)


def test_snapshot_replaces_atomically_and_stray_tmp_is_cleaned_at_boot():
    path = scratch("snapshot")
    try:
        j = Journal(path)
        assert replay.read_snapshot(j, "board") is None
        j.snapshot("board", b"v1")
        assert replay.read_snapshot(j, "board") == b"v1"
        with open(path + "/board.tmp", "wb") as f:  # a power cut before the rename
            f.write(b"v2-half")
        assert replay.read_snapshot(j, "board") == b"v1"
        replay.clean(j)
        assert sorted(os.listdir(path)) == ["board"]
        j.snapshot("board", b"v2")
        assert replay.read_snapshot(j, "board") == b"v2" and "board.tmp" not in os.listdir(path)
    finally:
        remove_tree(path)


class TooLong:
    """A payload one byte over the u16 length field, without allocating 64 KB."""

    def __len__(self):
        return 0x10000


def test_bad_names_and_sizes_are_refused_with_a_reason():
    path = scratch("refused")
    try:
        j = Journal(path)
        for call in (lambda: j.append(256, b""), lambda: j.append(1, TooLong()),
                     lambda: j.snapshot("x.tmp", b""), lambda: j.snapshot(JOURNAL, b""),
                     lambda: j.snapshot("a/b", b"")):
            try:
                call()
                raise AssertionError("accepted")
            except ValueError as e:
                assert str(e)
        j.close()
        assert read_all(j) == []
    finally:
        remove_tree(path)
