"""Power cuts (docs/architecture.md §3 "Persistence"): the virtual unit is killed with SIGKILL at 100 random points
of the 32-board session — between presses, in the middle of one, during a sync — and restarted each time.
The collector must end up with the same events as after an uninterrupted run, none lost and none twice.
"""
import random
import time

from collector_proc import Collector
from session import session
from vunit import SECRET, VUnit, write_config

KILLS = 100


def played(events):
    """The events that say what happened at the table (boot greetings and their seqs and times aside)."""
    out = []
    for e in events:
        if e["type"] in ("hello", "note"):
            continue
        out.append({k: v for k, v in e.items() if k not in ("seq", "t", "tempo")})  # tempo: a clock reading too
    return out


def run(tmp_path, name, lines, kills):
    with Collector.with_units(tmp_path, {"T01": SECRET}) as collector:
        cfg = write_config(tmp_path / f"{name}.json", tmp_path / f"{name}-state", collector.url)
        rng = random.Random(7)
        kills = sorted(kills)
        restarts = 0
        unit = VUnit(cfg)
        pos = 0
        while pos < len(lines):
            if kills and pos >= kills[0]:
                kills.pop(0)
                if rng.random() < 0.5:  # mid-press: the key may or may not be on flash when the power fails
                    unit.write(lines[pos])
                    time.sleep(rng.random() * 0.004)
                else:  # between presses, while the sync client may be posting
                    time.sleep(rng.random() * 0.05)
                unit.kill()
                restarts += 1
                unit = VUnit(cfg)
                pos = unit.keys_journaled()  # every script line is journaled: resume after the last one kept
                continue
            n, changed = unit.send(lines[pos])
            assert changed and n == pos + 1, f"line {pos} {lines[pos]!r}: unit reports key {n}"
            pos += 1
        unit.write("sync 20000")
        assert unit.finish() == 0
        return collector.events("T01"), restarts


def test_a_session_cut_100_times_reaches_the_collector_exactly_as_an_uncut_one(tmp_path):
    lines, _ = session(32)
    reference, _ = run(tmp_path, "uncut", lines, [])
    points = random.Random(2026).sample(range(1, len(lines)), KILLS)
    events, restarts = run(tmp_path, "cut", lines, points)
    assert restarts == KILLS
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1))  # no seq lost, none stored twice
    assert len([e for e in events if e["type"] == "hello"]) == KILLS + 1  # one per boot
    assert played(events) == played(reference)


def test_a_unit_replaced_by_a_fresh_one_with_the_same_id_loses_nothing(tmp_path):
    """A spare given a dead unit's config and an empty flash (docs/deploy.md says not to) numbers its events from 1
    again. Nothing the collector stored is lost or changed, and nothing the spare records is lost. Which of two
    things happens depends on the clock: if the spare's first events are the stored ones to the byte (its hello
    made in the same second as the old unit's), the collector acknowledges past them and the spare sends all it
    has again, numbered after the collector's highest (Store.ack); otherwise they are another version of a stored
    seq, the collector refuses the batch (a seq conflict, both versions kept for the director) and the spare keeps
    everything in its outbox, retrying."""
    lines, expected = session(4)
    with Collector.with_units(tmp_path, {"T01": SECRET}) as collector:
        old = VUnit(write_config(tmp_path / "old.json", tmp_path / "old-state", collector.url))
        for line in lines[: len(lines) // 2]:
            old.send(line)
        old.write("sync 20000")
        assert old.finish() == 0
        before = collector.events("T01")
        # the unit dies; a spare gets the same config and an empty flash, and the table plays the boards again
        new = VUnit(write_config(tmp_path / "new.json", tmp_path / "new-state", collector.url))
        for line in lines:
            new.send(line)
        new.write("sync 5000")
        assert new.finish() == 0
        events = collector.events("T01")
    assert events[: len(before)] == before  # nothing stored is lost or changed
    after = events[len(before):]
    status = [row for row in new.out if row.startswith("|") and " q" in row][-1]  # the last frame's status line
    if not after:  # refused as another version of seq 1: all of it still in the spare's outbox
        assert before[0]["type"] == "hello" and status.startswith("|x q") and int(status[4:-1]) > len(lines) // 2
        return
    assert [e["seq"] for e in after] == list(range(len(before) + 1, len(events) + 1))
    results = {e["board"]: e["score_ns"] for e in after if e["type"] == "result"}
    assert results == {b: r["score_ns"] for b, r in expected.items()}  # every board of the spare arrived
    assert any(e["type"] == "note" and "sent again" in e["text"] for e in after)
    assert status.startswith("|W q0")
