"""Out of memory never loses the unit's place (docs/unit.md "Memory"): an input that fails half-way is undone by
rebuilding from the journal, and a rebuild that cannot complete halts the store, which then journals nothing: a
half-replayed app never numbers an event. After the restart the seq and key counts are the journal's, so no event
is ever sent under a seq the collector already holds.

The heap running out is modelled by an App whose key() raises MemoryError at chosen calls (the live press, and a
record of the replay that follows it), after doing its work, as an allocation late in a press would.
"""
from scratch import file_size, remove_tree, scratch

from bidwire.unit.app import App
from bidwire.unit.journal import JOURNAL, Journal
from bidwire.unit.keys import parse_key
from bidwire.unit.store import Halted, Store


class Clock:
    t = 1000

    def time(self):
        self.t += 1
        return self.t


class FailingApp(App):
    """key() fails at the calls numbered in `fail` (counted from when `armed` is set)."""

    fail = ()
    armed = False
    calls = 0

    def key(self, seat, key, ms=-1):
        changed = App.key(self, seat, key, ms)
        if FailingApp.armed:
            FailingApp.calls += 1
            if FailingApp.calls in FailingApp.fail:
                raise MemoryError("memory allocation failed")
        return changed


def opened(path, app=None):
    s = Store(Journal(path), app or App("T01", "record", "1234"), Clock())
    s.open({"firmware": "test"})
    return s


def keys(store, script):
    for item in script.split(","):
        seat, key = item.split()
        store.key("NESW".index(seat), parse_key(key))


def seqs(store):
    return [int(raw.split(b'"seq": ')[1].split(b",")[0].split(b"}")[0]) for raw in store.batch(1 << 30)]


def test_a_rebuild_that_fails_half_way_halts_and_the_restart_never_reuses_a_seq():
    path = scratch("halt")
    FailingApp.armed, FailingApp.calls, FailingApp.fail = False, 0, (1, 3)
    store = opened(path, FailingApp("T01", "record", "1234"))
    keys(store, "N PASS, N 1, N H, E PASS, S 2, S H, W PASS")  # board 1: 1H P 2H P, each call an event
    store.ack(store.seq - 1)  # the collector holds every event so far
    acked, journaled, size = store.acked, store.keys, file_size(path + "/" + JOURNAL)
    halts = []
    store.on_halt = halts.append
    FailingApp.armed = True
    try:
        store.key(0, parse_key("PASS"))  # fails; the rebuild after it fails at its second record
        raise AssertionError("the store did not halt")
    except Halted as e:
        assert str(e) == "replay MemoryError" and halts == ["replay MemoryError"]
    # the app is half-replayed; the store's counts are not (replay.load returns them only once whole) ...
    assert store.halted and store.acked == acked
    for item in ("E PASS", "N 3"):  # ... and the store takes nothing more, and journals nothing
        try:
            store.key("NESW".index(item[0]), parse_key(item[2:]))
            raise AssertionError("a halted store took a press")
        except Halted:
            pass
    assert file_size(path + "/" + JOURNAL) == size
    store.journal.close()

    again = opened(path)  # the restart: a fresh heap replays the whole journal
    assert again.keys == journaled and again.acked == acked and again.seq == acked + 2  # + this boot's hello
    keys(again, "N PASS, E PASS")  # the passes that end the auction: 2H by S
    new = seqs(again)
    assert new == list(range(acked + 1, acked + 1 + len(new))) and len(new) == 4  # hello, two calls, auction_end
    again.journal.close()
    remove_tree(path)


def test_a_press_that_fails_half_way_is_undone_from_the_journal():
    path = scratch("halt-undo")
    FailingApp.armed, FailingApp.calls, FailingApp.fail = False, 0, (1,)
    store = opened(path, FailingApp("T01", "record", "1234"))
    keys(store, "N PASS, N 1, N H")
    seq, n = store.seq, store.keys
    FailingApp.armed = True
    try:
        store.key(1, parse_key("PASS"))  # E's pass taken by the app, then the heap ran out
        raise AssertionError("no MemoryError")
    except MemoryError:
        pass
    assert not store.halted and store.seq == seq and store.keys == n
    assert len(store.app.auction.eff) == 1 and store.app.auction.n_inputs == 1  # back to N's 1H alone
    keys(store, "E PASS")  # the next press is taken
    assert len(store.app.auction.eff) == 2 and seqs(store)[-1] == seq
    store.journal.close()
    remove_tree(path)


def test_a_command_that_fails_half_way_is_undone_from_the_journal():
    path = scratch("halt-command")
    store = opened(path)
    real = store.app.command

    def broken(cmd, now=0):
        real(cmd, now)  # applied (cmd_ack moved on) ...
        raise MemoryError("memory allocation failed")  # ... and then the heap ran out before the journal

    store.app.command = broken
    try:
        store.command({"seq": 1, "type": "message", "text": "hello"})
        raise AssertionError("no MemoryError")
    except MemoryError:
        pass
    assert store.app.cmd_ack == 0 and store.app.message == ""  # as the journal holds: sent again, applied then
    store.app.command = real
    assert store.command({"seq": 1, "type": "message", "text": "hello"}) and store.app.cmd_ack == 1
    store.journal.close()
    remove_tree(path)
