"""A torn or corrupt journal loses nothing that was intact: the unit's journal reader fuzzed on CPython.

A journal of good records is written with the real writer (bidwire.unit.journal), then the file is damaged:
cut at every offset, bytes flipped, junk appended or inserted. Reading never raises, and yields exactly the
longest prefix of records whose bytes are untouched (after a damaged record nothing is trusted), with
`damaged` the offset of the first damaged record and a reason. The boot's `Journal.repair` then leaves a file that
reads back that same prefix, undamaged, and appends work after it (and after a restart).

Where a record lies is worked out here from the record format (docs/architecture.md §3, journal.py's docstring):
magic 0xB1, kind, u16 LE payload length, payload, CRC32 (u32 LE) of all before it.
"""
import os
import struct
import tempfile
from binascii import crc32

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bidwire.unit import flash as flash_mod
from bidwire.unit.journal import JOURNAL, Journal

REASONS = {"short header", "bad magic", "short payload", "short checksum", "bad checksum"}
RECORDS = [(1, b"\x00\x00\x00"), (2, b"N:1H"), (2, b""), (7, bytes(range(200))), (0xB1, b"\xb1" * 9), (255, b"last")]
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True, scope="module")
def no_global_sync():
    """The writer calls os.sync() after every record (a power cut must not lose it). Durability is not what is
    tested here, and a whole-system sync per record is slow on a shared machine."""
    saved, flash_mod._sync = flash_mod._sync, None
    yield
    flash_mod._sync = saved


def spans(records):
    """(start, end) of each record in the file, from the format alone."""
    out, at = [], 0
    for _, payload in records:
        out.append((at, at + 4 + len(payload) + 4))
        at = out[-1][1]
    return out


def write(directory, records):
    j = Journal(directory)
    for kind, payload in records:
        j.append(kind, payload)
    j.close()
    path = directory + "/" + JOURNAL
    data = b""
    if records:
        with open(path, "rb") as f:
            data = f.read()
    assert len(data) == (spans(records)[-1][1] if records else 0)  # the writer wrote the format
    at = 0
    for kind, payload in records:  # and each record is exactly magic, kind, length, payload, CRC32
        head = struct.pack("<BBH", 0xB1, kind, len(payload))
        assert data[at:at + 4 + len(payload) + 4] == head + payload + struct.pack("<I", crc32(head + payload))
        at += 4 + len(payload) + 4
    return path, data


def read(directory):
    """A fresh Journal (a reboot) read to the end: (records, damaged, reason, end). Must not raise."""
    j = Journal(directory)
    got = [(kind, bytes(payload)) for kind, payload in j.records()]
    return got, j.damaged, j.damage_reason, j.end


def first_damaged(records, position):
    """Index of the record holding byte `position` of the original file (a position at a record's start: that
    record; at the end of the file: len(records))."""
    for i, (start, end) in enumerate(spans(records)):
        if start <= position < end:
            return i
    return len(records)


def check(directory, records, damaged_index, reason=None):
    """Read, then repair, then append: the prefix before record `damaged_index` survives each step."""
    sp = spans(records)
    keep = records[:damaged_index]
    at = sp[damaged_index][0] if damaged_index < len(records) else (sp[-1][1] if records else 0)
    got, damaged, why, end = read(directory)
    assert got == keep
    assert end == at
    if damaged is None:
        was_damaged = False
    else:
        was_damaged = True
        assert damaged == at and why in REASONS, (damaged, at, why)
        if reason is not None:
            assert why == reason
    j = Journal(directory)
    assert j.repair() == was_damaged
    j.close()
    path = directory + "/" + JOURNAL
    assert (os.path.getsize(path) if os.path.exists(path) else 0) == at
    assert read(directory) == (keep, None, None, at)
    j = Journal(directory)
    j.append(9, b"after the repair")
    j.close()
    assert read(directory) == (keep + [(9, b"after the repair")], None, None, at + 4 + 16 + 4)
    return was_damaged


def damage(path, data):
    with open(path, "wb") as f:
        f.write(bytes(data))


# ---- a cut at every offset ---------------------------------------------------------------------------------------
def test_a_cut_at_every_offset_keeps_exactly_the_whole_records_before_it():
    with tempfile.TemporaryDirectory() as tmp:
        directory = tmp + "/j"
        path, data = write(directory, RECORDS)
        sp = spans(RECORDS)
        for cut in range(len(data) + 1):
            damage(path, data[:cut])
            i = first_damaged(RECORDS, cut)
            inside = cut - sp[i][0] if i < len(RECORDS) else 0
            if inside == 0:  # a cut between records is a clean end
                assert not check(directory, RECORDS[:i], i), cut
            else:
                n = len(RECORDS[i][1])
                reason = "short header" if inside < 4 else "short payload" if inside < 4 + n else "short checksum"
                assert check(directory, RECORDS, i, reason), cut


# ---- random records, random damage ------------------------------------------------------------------------------
RECORD = st.tuples(st.integers(0, 255), st.binary(max_size=300) | st.sampled_from([b"", b"\xb1", b"\xb1\x00\x04\x00"]))


@FUZZ
@given(records=st.lists(RECORD, min_size=1, max_size=10), data=st.data())
@example(records=RECORDS, data=None)
def test_one_flipped_byte_loses_its_record_and_everything_after(records, data):
    with tempfile.TemporaryDirectory() as tmp:
        directory = tmp + "/j"
        path, raw = write(directory, records)
        if data is None:  # the example: the magic of the record after the 0xB1 payload
            position, mask = spans(records)[5][0], 0x01
        else:
            position = data.draw(st.integers(0, len(raw) - 1), label="position")
            mask = data.draw(st.integers(1, 255), label="xor")
        damaged = bytearray(raw)
        damaged[position] ^= mask
        damage(path, damaged)
        i = first_damaged(records, position)
        start, end = spans(records)[i]
        n = len(records[i][1])
        where = position - start
        if where == 0:
            reason = "bad magic"
        elif where in (2, 3):  # the length: the record now ends elsewhere
            n2 = damaged[start + 2] | damaged[start + 3] << 8
            room = len(raw) - start - 4
            reason = "short payload" if n2 > room else "short checksum" if n2 + 4 > room else "bad checksum"
        else:  # the kind, the payload or the CRC itself
            reason = "bad checksum"
        assert where < 4 + n + 4
        assert check(directory, records, i, reason)


@st.composite
def damages(draw, size):
    """At most one cut, then flips and insertions (appended junk: an insertion at the end) at positions of
    the cut file, as (cut, [(position, op, argument)])."""
    cut = draw(st.none() | st.integers(0, size))
    length = size if cut is None else cut
    ops = draw(st.lists(st.tuples(st.integers(0, max(length, 1) - 1) | st.just(length),
                                  st.sampled_from(["flip", "insert"]),
                                  st.integers(1, 255) | st.binary(min_size=1, max_size=12)), max_size=4))
    fixed, flipped = [], set()
    for position, op, arg in ops:
        if op == "flip":
            if position >= length or position in flipped:  # two flips of one byte could cancel out
                continue
            flipped.add(position)
            fixed.append((position, op, arg if isinstance(arg, int) else arg[0] or 1))
        else:
            fixed.append((position, op, arg if isinstance(arg, bytes) else bytes([arg])))
    return cut, fixed


@FUZZ
@given(records=st.lists(RECORD, max_size=10), data=st.data())
@example(records=RECORDS, data=None)
def test_cut_flipped_and_junk_inserted_keeps_the_intact_prefix(records, data):
    with tempfile.TemporaryDirectory() as tmp:
        directory = tmp + "/j"
        path, raw = write(directory, records)
        if data is None:  # the example: junk appended after the last record
            cut, ops = None, [(len(raw), "insert", b"\x00junk")]
        else:
            cut, ops = data.draw(damages(len(raw)), label="damage")
        out = bytearray(raw if cut is None else raw[:cut])
        for position, op, arg in sorted(ops, key=lambda o: o[0], reverse=True):  # the latest first: no shifts
            if op == "flip":
                out[position] ^= arg
            else:
                out[position:position] = arg
        damage(path, out)
        end = len(raw) if cut is None else cut
        touched = [p for p, _, _ in ops]
        i = first_damaged(records, min(touched) if touched else end)
        torn = i < len(records) and spans(records)[i][0] != end  # the cut is inside record i
        assert check(directory, records, i) == bool(touched or torn)


def test_a_journal_of_only_junk_reads_as_empty_and_repairs_to_empty():
    with tempfile.TemporaryDirectory() as tmp:
        directory = tmp + "/j"
        os.makedirs(directory)
        for junk in (b"\x00", b"\xb1", b"\xb1\x01\xff\xff", b"\xb1\x01\x00\x00\x00\x00\x00\x00", os.urandom(64)):
            damage(directory + "/" + JOURNAL, junk)
            assert check(directory, [], 0)
