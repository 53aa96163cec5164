"""The unit's journal-backed store (docs/architecture.md §3 "Persistence", §4 outbox): a restarted unit is exactly
where it was, with the same unsent events, and nothing acknowledged is kept forever.
"""
import json
import os
import sys

from scratch import cut, file_size, remove_tree, scratch

from bidwire.unit import app as A
from bidwire.unit.app import App
from bidwire.unit.flash import JournalFull
from bidwire.unit.journal import JOURNAL, Journal
from bidwire.unit.keys import parse_key
from bidwire.unit.store import Store


class Clock:
    def __init__(self):
        self.t = 1000

    def time(self):
        self.t += 1
        return self.t


def opened(path):
    s = Store(Journal(path), App("T01", "record", "1234"), Clock())
    s.open({"firmware": "test"})
    return s


def keys(store, script):
    for item in script.split(","):
        seat, key = item.split()
        store.key("NESW".index(seat), parse_key(key))


def state(s):
    a = s.app.auction
    return (s.app.screen, s.app.board, bytes(a.eff), bytes(a.inputs), s.app.td, bytes(s.app.level), s.seq,
            s.acked, s.app.cmd_ack)


def events(s):
    return [json.loads(e) for e in s.batch(1 << 16)]


BOARD = "N PASS, N 1, N H, E PASS, S 2, S H, W PASS, N PASS"


def test_a_restarted_unit_is_where_it_was_with_the_same_unsent_events():
    path = scratch("store-restart")
    try:
        s = opened(path)
        keys(s, BOARD + ", E 3")
        before, sent = state(s), events(s)
        s.journal.close()
        s2 = opened(path)  # power cut and boot
        assert state(s2)[:6] == before[:6] and s2.app.level[1] == 3
        again = events(s2)
        assert again[:len(sent)] == sent and [e["type"] for e in again[len(sent):]] == ["hello"]
        assert [e["seq"] for e in again] == list(range(1, len(again) + 1))
        assert s2.boot == 2 and sent[0]["type"] == "hello" and sent[0]["boot"] == 1
        s2.journal.close()
    finally:
        remove_tree(path)


def test_acknowledged_events_leave_the_outbox_and_a_quiet_point_compacts_the_journal():
    path = scratch("store-ack")
    try:
        s = opened(path)
        keys(s, BOARD + ", E PASS, E C, N PASS, W PASS")  # board 1 played, result confirmed
        n = s.seq - 1
        s.ack(3)
        assert [e["seq"] for e in events(s)] == list(range(4, n + 1))
        keys(s, "N PASS")  # next board: START is a quiet point
        s.ack(s.seq - 1)
        assert events(s) == [] and s.journal.size() == 0  # compacted: snapshot holds the state
        assert Store.SNAPSHOT in os.listdir(path)
        s.journal.close()
        s2 = opened(path)
        assert s2.app.board == 2 and s2.app.screen == A.START and s2.acked == s.seq - 1
        assert [e["type"] for e in events(s2)] == ["hello"] and events(s2)[0]["seq"] == s.seq
        s2.journal.close()
    finally:
        remove_tree(path)


def test_the_replay_module_is_loaded_for_a_boot_or_a_rebuild_and_dropped_after():
    path = scratch("store-replay-drop")
    try:
        s = opened(path)
        assert "bidwire.unit.replay" not in sys.modules
        keys(s, BOARD)
        before = state(s)
        s.rebuild()  # what a failed write does
        assert "bidwire.unit.replay" not in sys.modules and state(s) == before
        s.journal.close()
    finally:
        remove_tree(path)


def test_a_torn_last_record_is_dropped_and_everything_before_it_kept():
    path = scratch("store-torn")
    try:
        s = opened(path)
        keys(s, BOARD)
        good = state(s)
        keys(s, "E PASS")  # the record a power cut will tear
        s.journal.close()
        cut(path + "/" + JOURNAL, file_size(path + "/" + JOURNAL) - 3)
        s2 = opened(path)
        assert state(s2)[2] == good[2] and s2.status.startswith("journal cut")
        notes = [e for e in events(s2) if e["type"] == "note"]
        assert len(notes) == 1 and "torn record was dropped" in notes[0]["text"]
        keys(s2, "E PASS")  # the unit goes on: the press can be made again
        assert s2.app.screen == A.LEAD
        s2.journal.close()
    finally:
        remove_tree(path)


def test_a_power_cut_during_compaction_does_not_replay_old_records():
    path = scratch("store-compact-cut")
    try:
        s = opened(path)
        keys(s, "N PASS")
        s.ack(s.seq - 1)  # compacted at board 1's START
        keys(s, "N 1, N C")
        snap = {"gen": s.gen + 1, "boot": s.boot, "seq": s.seq, "acked": s.seq - 1, "keys": 1, "app": {
            "screen": A.START, "assignment": None, "next": None, "late": None, "board_idx": -1, "board": 1, "mode": 0,
            "cmd_ack": 0, "clock_offset": 0, "played": 0}}
        s.journal.snapshot(Store.SNAPSHOT, json.dumps(snap).encode())  # the snapshot of a later quiet point landed ...
        s.journal.close()  # ... and the power failed before the journal was restarted
        with open(path + "/" + Store.SNAPSHOT + ".tmp", "w") as f:
            f.write("half")
        s2 = opened(path)
        assert len(s2.app.auction.eff) == 0 and s2.seq == snap["seq"] + 1  # old records ignored
        assert Store.SNAPSHOT + ".tmp" not in os.listdir(path)  # stray tmp removed at boot
        s2.journal.close()
    finally:
        remove_tree(path)


class FullJournal(Journal):
    """The flash fills up after `room` more records (JournalFull is what Journal raises on ENOSPC)."""

    room = 1 << 30

    def append(self, kind, *parts):
        if self.room <= 0:
            raise JournalFull("flash full")
        self.room -= 1
        Journal.append(self, kind, *parts)


def test_a_full_flash_refuses_the_press_keeps_what_was_accepted_and_says_so():
    path = scratch("store-full")
    try:
        s = Store(FullJournal(path), App("T01", "record", "1234"), Clock())
        s.open({})
        keys(s, BOARD)
        good = state(s)
        s.journal.room = 0
        assert not s.key(1, parse_key("PASS"))
        assert state(s) == good and s.status == "FLASH FULL"
        s.journal.room = 5
        assert s.key(1, parse_key("PASS")) and s.status == ""
        s.journal.close()
    finally:
        remove_tree(path)


def test_commands_are_journaled_and_replayed_in_order():
    path = scratch("store-cmd")
    try:
        s = opened(path)
        assert s.command({"seq": 1, "type": "assign", "round": 1, "table": 2, "boards": [9, 10], "ns": 1, "ew": 2})
        assert not s.command({"seq": 1, "type": "assign", "boards": [1]})  # a repeat changes nothing
        s.journal.close()
        s2 = opened(path)
        assert s2.app.board == 9 and s2.app.cmd_ack == 1 and s2.app.assignment["table"] == 2
        s2.journal.close()
    finally:
        remove_tree(path)


def test_a_collector_ahead_of_a_fresh_unit_gets_the_unacknowledged_events_again_after_its_seq():
    path = scratch("store-renumber")
    try:
        s = opened(path)  # a replacement unit: same id, empty flash
        keys(s, "N PASS, N 1, N H")
        before = events(s)
        s.ack(500)  # the collector already holds seqs up to 500 from the unit it replaced
        after = events(s)
        assert [e["seq"] for e in after] == list(range(501, 501 + len(before) + 1))
        assert [e["type"] for e in after[:-1]] == [e["type"] for e in before] and after[-1]["type"] == "note"
        assert [e["t"] for e in after[:-1]] == [e["t"] for e in before]  # the same events, the same times
        s.journal.close()
        s2 = opened(path)
        assert s2.acked == 500 and [e["seq"] for e in events(s2)][:len(after)] == [e["seq"] for e in after]
        s2.journal.close()
    finally:
        remove_tree(path)


def test_a_new_events_collector_numbers_its_commands_afresh_and_binds_each_board():
    """Issue 39, finding 7: a unit that played last week (cmd_ack 3 under event aaaa...) meets tonight's fresh
    collector, whose commands start at 1 again. The first command naming another event resets the count and is
    applied; each board_start names the event of its assign; a boot replays to the same state."""
    path = scratch("store-event")
    last_week, tonight = "a" * 16, "0123456789abcdef"
    try:
        s = opened(path)
        for seq in (1, 2, 3):
            assert s.command({"seq": seq, "event": last_week, "type": "message", "text": "m"})
        assert s.command({"seq": 4, "event": last_week, "type": "assign", "section": "A", "round": 1, "table": 2,
                          "boards": [9, 10], "ns": 1, "ew": 2})
        assert [e["event"] for e in events(s) if e["type"] == "board_start"] == [last_week]
        assert (s.app.cmd_ack, s.app.event) == (4, last_week)
        assert not s.command({"seq": 1, "event": last_week, "type": "message", "text": "old"})  # a repeat
        assert s.command({"seq": 1, "event": tonight, "type": "assign", "section": "A", "round": 1, "table": 3,
                          "boards": [5, 6], "ns": 3, "ew": 3})
        assert (s.app.cmd_ack, s.app.event, s.app.board) == (1, tonight, 5)
        assert [e["event"] for e in events(s) if e["type"] == "board_start"] == [last_week, tonight]
        s.ack(s.seq - 1)  # all sent: at board 5's START the journal is compacted to a snapshot, which holds the event
        s.journal.close()
        s2 = opened(path)
        assert (s2.app.cmd_ack, s2.app.event, s2.app.board) == (1, tonight, 5)
        assert not s2.command({"seq": 1, "event": tonight, "type": "message", "text": "again"})
        s2.journal.close()
    finally:
        remove_tree(path)
