"""Bad input at the unit (docs/architecture.md §8): a torn or corrupt journal tail, a full file system and a
10,000-key mash each leave the virtual unit running, saying what happened, with every accepted call intact.
"""
import random
import resource
import signal
import subprocess

import vunit
from collector_proc import Collector
from session import session
from vunit import SECRET, VUnit, write_config

from bidwire.unit.keys import KEY_NAMES


def results(events):
    return {e["board"]: (e["contract"], e["declarer"], e["tricks"], e["score_ns"])
            for e in events if e["type"] == "result"}


def expected_results(expected):
    return {b: (r["contract"], r["declarer"], r["tricks"], r["score_ns"]) for b, r in expected.items()}


def finish_session(cfg, collector, lines, expected):
    """Restart, resume the script where the unit's journal ends, and check the whole session's results."""
    unit = VUnit(cfg)
    for line in lines[unit.keys_journaled():]:
        assert unit.send(line)[1]
    unit.write("sync 20000")
    assert unit.finish() == 0
    assert results(collector.events("T01")) == expected_results(expected)
    return unit


def test_a_torn_or_corrupt_last_record_is_cut_reported_and_the_rest_kept(tmp_path):
    lines, expected = session(8)
    for damage in ("torn", "corrupt"):
        with Collector.with_units(tmp_path, {"T01": SECRET}) as collector:
            state = tmp_path / f"state-{damage}"
            cfg = write_config(tmp_path / f"{damage}.json", state)  # offline: everything stays in the journal
            unit = VUnit(cfg)
            for line in lines[:60]:
                unit.send(line)
            unit.kill()
            journal = state / "journal.bin"
            data = bytearray(journal.read_bytes())
            if damage == "torn":
                data = data[:-3]  # the power failed while the checksum of the last record was written
            else:
                data[-6] ^= 0x40  # a bit flipped in the last record's payload
            journal.write_bytes(bytes(data))
            unit = VUnit(cfg)
            assert unit.keys_journaled() == 59  # only the damaged press is gone
            reason = "short checksum" if damage == "torn" else "bad checksum"
            assert f"status=journal cut: {reason}" in unit.boot
            assert unit.frame()[7] == "journal cut"  # the status line says so (the reason: boot line, note)
            unit.kill()
            write_config(cfg, state, collector.url)
            finish_session(cfg, collector, lines, expected)
            notes = [e for e in collector.events("T01") if e["type"] == "note"]
            assert len(notes) == 1 and reason in notes[0]["text"]


def test_a_full_file_system_refuses_presses_with_a_message_and_loses_nothing(tmp_path):
    lines, expected = session(8)

    def small_flash():  # in the unit's process: files may not grow past 3,000 bytes
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # so a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))

    with Collector.with_units(tmp_path, {"T01": SECRET}) as collector:
        cfg = write_config(tmp_path / "unit.json", tmp_path / "state")
        unit = VUnit(cfg, preexec=small_flash)
        refused_at = None
        for i, line in enumerate(lines):
            n, changed = unit.send(line)
            if not changed:
                refused_at = i
                break
        assert refused_at is not None, "the journal never reached the limit"
        assert unit.frame()[7] == "FLASH FULL"
        assert unit.send(lines[refused_at]) == (refused_at, False)  # still running, still refusing
        assert unit.proc.poll() is None
        unit.kill()
        write_config(cfg, tmp_path / "state", collector.url)
        finish_session(cfg, collector, lines, expected)  # room again: resumes exactly after the last kept press


def test_ten_thousand_random_keys_leave_the_unit_running_and_consistent(tmp_path):
    rng = random.Random(10_000)
    script = [f"{rng.choice('NESW')} {rng.choice(KEY_NAMES)}" for _ in range(10_000)]
    junk = ["Q 1", "N 8", "N FOO", "E", "sleep x", "N 1 H", "\x00\x01", "W  PASS  EXTRA"]
    for i in range(0, len(script), 997):
        script.insert(i, junk[i % len(junk)])
    with Collector.with_units(tmp_path, {"T01": SECRET}) as collector:
        cfg = write_config(tmp_path / "unit.json", tmp_path / "state", collector.url)
        unit = VUnit(cfg)
        for line in script:
            unit.write(line)
        unit.write("sync 30000")
        assert unit.finish(timeout=300) == 0
        err = unit.proc.stderr.read()
        assert "Traceback" not in err and err.count("script:") == len(range(0, 10_000, 997))
        acks = [line for line in unit.out if line.startswith("key ")]
        assert len(acks) == 10_000
        last_frame = unit.frame()
        journaled = int(acks[-1].split()[1])
        again = VUnit(cfg)  # a restart rebuilds exactly the same table from flash
        assert again.keys_journaled() == journaled
        assert again.frame()[:7] == last_frame[:7]
        again.write("sync 20000")
        assert again.finish() == 0
        events = collector.events("T01")
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1))
    from bidwire.core import readback, record
    from bidwire.core.auction import Auction
    for e in events:  # every auction the unit closed is what its own inputs give on the host
        if e["type"] == "auction_end":
            dealer = "NESW".index(next(x for x in events if x["type"] == "board_start" and
                                       x["board"] == e["board"])["dealer"])
            a = Auction(dealer)
            for token in e["inputs"]:
                readback.apply(a, token)
            assert record.contract_text(a) == e["contract"]


def test_a_journal_the_heap_cannot_replay_stops_the_unit_and_no_seq_is_used_twice(tmp_path):
    """A mash journaled and acknowledged, then boots under heaps too small to replay it: where the code loads but
    the replay runs out, the unit stops with its fault screen and exit status 3 (a device resets), sending
    nothing. Booted again at 48K it carries on from the journal, and every seq the collector
    holds was sent once: 1..n, none refused as a repeat."""
    rng = random.Random(3_000)
    script = [f"{rng.choice('NESW')} {rng.choice(KEY_NAMES)}" for _ in range(3_000)]
    with Collector.with_units(tmp_path, {"T01": SECRET}) as collector:
        cfg = write_config(tmp_path / "unit.json", tmp_path / "state", collector.url)
        unit = VUnit(cfg)
        for line in script:
            unit.write(line)
        unit.write("sync 20000")
        unit.write("mem")
        unit._expect("mem ", timeout=180)
        journaled = int([line for line in unit.out if line.startswith("key ")][-1].split()[1])
        unit.kill()
        stored = collector.events("T01")
        assert stored and (tmp_path / "state" / "journal.bin").stat().st_size > 20_000  # one board: no compaction
        outcomes = []  # (heap K, exit status, fault screen shown) up to the first heap that replays it whole
        for k in range(16, 49):
            proc = vunit.RUNTIME.popen(cfg, f"{k}K", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
            out, err = proc.communicate("", timeout=60)
            outcomes.append((k, proc.returncode, "|FAULT           |\n|replay MemoryErr|" in out))
            if proc.returncode == 3:  # halted: the screen when the heap still allows it, never a key or a sync
                assert "boot " not in out and "Traceback" not in err
                assert collector.events("T01") == stored  # and sent nothing
            if proc.returncode == 0:
                break
        # at the smallest heaps the code itself does not load (exit 1, MicroPython's traceback); then the replay
        # runs out: exit 3, the fault screen shown at least once; then it replays whole
        assert outcomes[-1][1] == 0 and any(rc == 3 and shown for _, rc, shown in outcomes), outcomes
        again = VUnit(cfg)
        assert again.keys_journaled() == journaled
        boot = dict(w.split("=") for w in again.boot.split()[2:] if "=" in w)
        assert int(boot["seq"]) > int(boot["acked"]) >= stored[-1]["seq"] - 1
        for line in ("N TD", "E TD", "sleep 50"):
            again.write(line)
        again.write("sync 20000")
        assert again.finish() == 0
        events = collector.events("T01")
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > len(stored)
    assert events[:len(stored)] == stored
    # the boots that stopped journaled nothing; the one that replayed whole (boot 2) and this one each sent a
    # hello under a new seq, stored, not dropped as a repeat of an acknowledged one
    assert [(e["boot"], e["seq"] > stored[-1]["seq"]) for e in events if e["type"] == "hello"] == [
        (1, False), (2, True), (3, True)]
