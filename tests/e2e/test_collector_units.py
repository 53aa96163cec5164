"""End to end: the real collector (`bidwire serve`: uvicorn on 127.0.0.1, SQLite in a data directory) and real
virtual units (the firmware under MicroPython, real journals, real HTTP with HMAC) in separate processes.

- the 32-board session of session.py reaches the store as the script implies, and the validator agrees;
- three units at once each play the boards of the `assign` command queued for it;
- the collector killed with SIGKILL while units are sending, restarted on the same data and port: every event
  each unit made is stored exactly once (seqs contiguous, nothing left unacknowledged on any unit).
"""
import json
import os
import random
import re
import socket
import threading
import time
from pathlib import Path

import pytest
from collector_proc import Collector, keyring, rows
from session import endplay_score_ns, session
from vunit import VUnit, write_config
from waiting import wait_until

SEATS = "NESW"


def secret(i):
    return f"{i:02x}" * 32


def fixed_port():
    """A free port below the ephemeral range: while the collector is down, units retrying a connection to an
    ephemeral port could be given that very port as their own (a TCP self-connect), and the restart would fail."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for port in random.sample(range(max(1024, low - 12000), low), 200):
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError("no free port below the ephemeral range")


@pytest.fixture
def collector(tmp_path):
    c = Collector(tmp_path, keyring(tmp_path / "keyring.json", {f"T{i:02d}": secret(i) for i in range(1, 21)}),
                  fixed_port())
    yield c
    c.stop()


def unit_config(tmp_path, collector, unit, i):
    return write_config(tmp_path / f"{unit}.json", tmp_path / f"{unit}-state", collector.url, unit=unit,
                        secret=secret(i))


def board_lines(board, tricks, first=False):
    """Dealer opens 1NT, three passes; LHO leads a club; declarer enters `tricks`, LHO confirms; next board."""
    dealer = SEATS[(board - 1) % 4]
    lho = SEATS[(SEATS.index(dealer) + 1) % 4]
    lines = [f"{dealer} 1", f"{dealer} NT"] + [f"{SEATS[(SEATS.index(dealer) + k) % 4]} PASS" for k in (1, 2, 3)]
    lines.append(f"{lho} C")
    if tricks > 7:
        lines.append(f"{dealer} {tricks - 6}")
    lines += [f"{dealer} X"] * (7 - tricks) if tricks < 7 else []
    lines += [f"{dealer} PASS", f"{lho} PASS", "N PASS"]
    return lines


def play(unit, lines):
    for line in lines:
        if line.startswith("sync"):
            unit.write(line)  # answered by nothing: the next key line waits for it
        else:
            unit.send(line)


# ---- the 32-board session ------------------------------------------------------------------------------------
def test_the_32_board_session_is_stored_as_the_script_implies(tmp_path, collector):
    lines, expected = session(32)
    unit = VUnit(unit_config(tmp_path, collector, "T01", 1))
    for line in lines:
        n, changed = unit.send(line)
        assert changed, f"script line {line!r} changed nothing (key {n})"
    unit.write("sync 20000")
    assert unit.finish() == 0
    seqs = [r["seq"] for r in rows(collector.data, "SELECT seq FROM events WHERE unit = 'T01' ORDER BY seq")]
    assert seqs == list(range(1, len(seqs) + 1))
    got = {r["board"]: r for r in rows(collector.data, "SELECT board, contract, declarer, tricks, score_ns "
                                                       "FROM results WHERE unit = 'T01'")}
    assert got == expected  # the host's contract (replayed), declarer and Law 77 score
    alerts = rows(collector.data, "SELECT kind, detail, board, data FROM alerts")
    assert [a for a in alerts if a["kind"] != "lead_restriction"] == []  # the validator agrees with the unit
    # Law 26 for the director: one alert for each lead restriction the unit reports whose offender defends
    ends = [e for e in collector.events("T01") if e["type"] == "auction_end" and e["declarer"]]
    defending = {(e["board"], x["seat"], x["suit"]) for e in ends for x in e["lead_restrictions"]
                 if (x["offender"] in "NS") != (e["declarer"] in "NS")}
    told = {(a["board"], json.loads(a["data"])["seat"], json.loads(a["data"])["suit"]) for a in alerts
            if a["kind"] == "lead_restriction"}
    assert told == defending and told
    kinds = {r["kind"] for r in rows(collector.data, "SELECT kind FROM irregularities")}
    assert kinds >= {"out_of_rotation", "insufficient_bid", "change_of_call", "after_close"}
    assert {r["ruling"] for r in rows(collector.data, "SELECT ruling FROM rulings")} == {"reject", "25a"}


# ---- three tables, each told what to play ---------------------------------------------------------------------
def test_three_units_play_the_boards_they_are_assigned(tmp_path, collector):
    tables = {1: ("T01", [1, 2]), 2: ("T02", [3, 4]), 3: ("T03", [5, 6])}
    assigns = {}
    for table, (unit, boards) in tables.items():
        assigns[unit] = collector.command(unit, {"type": "assign", "section": "A", "table": table, "round": 1,
                                                 "boards": boards, "ns": table, "ew": table,
                                                 "move": f"EW to table {table % 3 + 1}"})

    def run(unit, boards, tricks, errors):
        try:
            i = int(unit[1:])
            u = VUnit(unit_config(tmp_path, collector, unit, i))
            u.write("sync 10000")  # the hello goes out; the reply brings the assign, which starts its first board
            for board in boards:
                play(u, board_lines(board, tricks))
            u.write("sync 10000")
            assert u.finish() == 0
        except Exception as e:  # reported by the main thread
            errors.append((unit, e))

    errors = []
    threads = [threading.Thread(target=run, args=(unit, boards, 6 + table, errors))
               for table, (unit, boards) in tables.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    for table, (unit, boards) in tables.items():
        a = assigns[unit]
        starts = rows(collector.data, "SELECT board, section, table_no, round, ns, ew FROM boards WHERE unit = ? "
                                      "ORDER BY start_seq", unit)
        assert starts == [{"board": b, "section": "A", "table_no": table, "round": 1, "ns": str(table),
                           "ew": str(table)} for b in a["boards"]]
        results = rows(collector.data, "SELECT board, contract, declarer, tricks, score_ns FROM results "
                                       "WHERE unit = ? ORDER BY seq", unit)
        assert results == [{"board": b, "contract": "1NT", "declarer": SEATS[(b - 1) % 4], "tricks": 6 + table,
                            "score_ns": endplay_score_ns("1NT", SEATS[(b - 1) % 4], b, 6 + table)} for b in boards]
        [status] = [u for u in collector.api.get("/api/v1/units").json()["units"] if u["unit"] == unit]
        assert status["cmd_ack"] == a["seq"] and status["commands_pending"] == 0
    assert rows(collector.data, "SELECT kind FROM alerts") == []


# ---- SIGKILL while units are sending ----------------------------------------------------------------------------
UNITS = int(os.environ.get("BIDWIRE_DURABILITY_UNITS", "20"))
BOARDS = 4


def test_a_collector_killed_mid_sync_loses_nothing_acknowledged(tmp_path, collector):
    units = [f"T{i:02d}" for i in range(1, UNITS + 1)]
    errors, done, cut_off = [], [], []

    def run(i, unit):
        try:
            u = VUnit(unit_config(tmp_path, collector, unit, i))
            play(u, ["N PASS"])  # set-up: boards from 1, no assignment
            for board in range(1, BOARDS + 1):
                play(u, board_lines(board, 7 + (i + board) % 4))
            u.write("sync 60000")  # the unit retries with backoff until the collector is back
            assert u.finish(timeout=90) == 0
            done.append(unit)
            if any(row.startswith("|x") for row in u.out):  # the status line: collector unreachable
                cut_off.append(unit)
        except Exception as e:
            errors.append((unit, e))

    threads = [threading.Thread(target=run, args=(i, unit)) for i, unit in enumerate(units, 1)]
    for t in threads:
        t.start()
    total = UNITS * (2 + BOARDS * 11)  # roughly: hello, boards x (start, 5 calls, auction_end, lead, result)
    wait_until(lambda: rows(collector.data, "SELECT count(*) AS n FROM events")[0]["n"] >= total // 3, 60, 0.05,
               "a third of the events stored")
    stored_before = rows(collector.data, "SELECT count(*) AS n FROM events")[0]["n"]
    collector.kill()
    time.sleep(1.0)  # units find the collector gone and back off
    restarted = Collector(collector.data, collector.keyring, collector.port)
    try:
        for t in threads:
            t.join(120)
        assert not errors, errors
        assert sorted(done) == units
        assert cut_off, "no unit noticed the collector was gone: the kill missed the traffic"
        assert 0 < stored_before < rows(restarted.data, "SELECT count(*) AS n FROM events")[0]["n"]
    finally:
        restarted.stop()
    for i, unit in enumerate(units, 1):
        seqs = [r["seq"] for r in rows(collector.data, "SELECT seq FROM events WHERE unit = ? ORDER BY seq", unit)]
        assert seqs == list(range(1, len(seqs) + 1)), f"{unit}: seqs not contiguous"
        # booted again without a collector: the unit holds nothing the collector has not stored
        offline = write_config(tmp_path / f"{unit}-offline.json", tmp_path / f"{unit}-state", "", unit=unit,
                               secret=secret(i))
        check = VUnit(offline)
        check.kill()
        seq, acked = (int(re.search(rf"{k}=(\d+)", check.boot).group(1)) for k in ("seq", "acked"))
        assert acked == seq - 2 == seqs[-1], f"{unit}: {check.boot}, collector holds up to {seqs[-1]}"
        boards = [r["board"] for r in rows(collector.data, "SELECT board FROM results WHERE unit = ? ORDER BY seq",
                                           unit)]
        assert boards == list(range(1, BOARDS + 1)), f"{unit}: results {boards}"
    assert rows(collector.data, "SELECT kind, detail FROM alerts") == []
