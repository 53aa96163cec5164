"""End to end: a 3-table Mitchell run by the collector from an event file, played by three real virtual units.

`bidwire event create` writes the event (3 tables, 2 boards a round, 3 rounds: boards 1-6); `bidwire serve
--event ... --tables T01=1,T02=2,T03=3` queues round 1's assigns; each unit plays the boards of its assign
(dealer opens 1NT, three passes; the tricks below), and when every table has finished a round the collector
sends the next round's assigns by itself. The ranking the collector publishes is then checked against
matchpoints worked by hand, and the Law 15 checks (movement, board played twice by a pair) raise nothing:
in a Mitchell NS 2 and EW 2 are different pairs.
"""
import subprocess

from collector_proc import BIDWIRE, Collector, keyring, rows
from table_threads import await_assign, run_tables
from test_collector_units import board_lines, play, secret, unit_config
from vunit import VUnit

# Who plays what (the 3-table Mitchell: NS stay, EW up one table, boards down one table each round):
#   boards 1-2: table 1 NS1-EW1 (round 1), table 3 NS3-EW2 (round 2), table 2 NS2-EW3 (round 3)
#   boards 3-4: table 2 NS2-EW2 (round 1), table 1 NS1-EW3 (round 2), table 3 NS3-EW1 (round 3)
#   boards 5-6: table 3 NS3-EW3 (round 1), table 2 NS2-EW1 (round 2), table 1 NS1-EW2 (round 3)
# Every contract is 1NT by the dealer (N E S W for boards 1-4, N E for 5-6). TRICKS[board][table]:
TRICKS = {
    1: {1: 7, 2: 8, 3: 8},  # N, none vul:  T1 +90  T2 +120 T3 +120  -> NS mp T1 0, T2 2+1=3, T3 3 (a tie)
    2: {1: 7, 2: 8, 3: 6},  # E, NS vul:    T1 -90  T2 -120 T3 +50   -> NS mp T1 2, T2 0, T3 4
    3: {1: 9, 2: 7, 3: 8},  # S, EW vul:    T1 +150 T2 +90  T3 +120  -> NS mp T1 4, T2 0, T3 2
    4: {1: 8, 2: 7, 3: 7},  # W, both vul:  T1 -120 T2 -90  T3 -90   -> NS mp T1 0, T2 3, T3 3
    5: {1: 7, 2: 6, 3: 8},  # N, NS vul:    T1 +90  T2 -100 T3 +120  -> NS mp T1 2, T2 0, T3 4
    6: {1: 8, 2: 7, 3: 9},  # E, EW vul:    T1 -120 T2 -90  T3 -150  -> NS mp T1 2, T2 4, T3 0
}
# Top 4 (3 results: 2 per result beaten, 1 per tie); EW get 4 - NS at the same table. 6 boards: top 24.
#   NS1 (table 1 throughout): 0+2+4+0+2+2 = 10 -> 41.67 %
#   NS2 (table 2):            3+0+0+3+0+4 = 10 -> 41.67 %  (tied with NS1: 2=)
#   NS3 (table 3):            3+4+2+3+4+0 = 16 -> 66.67 %
#   EW1: b1 T1 4, b2 T1 2, b3 T3 2, b4 T3 1, b5 T2 4, b6 T2 0 = 13 -> 54.17 %
#   EW2: b1 T3 1, b2 T3 0, b3 T2 4, b4 T2 1, b5 T1 2, b6 T1 2 = 10 -> 41.67 %
#   EW3: b1 T2 1, b2 T2 4, b3 T1 0, b4 T1 4, b5 T3 0, b6 T3 4 = 13 -> 54.17 %  (tied with EW1: 1=)
#   (all six sum to 72 = 6 boards x 3 tables x top 4)
EXPECTED = [
    ("NS", "3", 1, False, 16), ("NS", "1", 2, True, 10), ("NS", "2", 2, True, 10),
    ("EW", "1", 1, True, 13), ("EW", "3", 1, True, 13), ("EW", "2", 3, False, 10),
]
# The boards each table plays round by round (seating.assignments, checked against the collector's commands).
PLAN = {1: [[1, 2], [3, 4], [5, 6]], 2: [[3, 4], [5, 6], [1, 2]], 3: [[5, 6], [1, 2], [3, 4]]}
UNITS = {1: "T01", 2: "T02", 3: "T03"}


def play_mitchell(tmp_path, collector, tricks=TRICKS, units=UNITS):
    """Three virtual units play the 3-table Mitchell round by round, as the collector assigns it (`tricks`:
    {board: {table: tricks}}, units {table: unit id} with the secrets of `secret(table)`)."""
    def play_table(table, finished):
        unit = units[table]
        u = VUnit(unit_config(tmp_path, collector, unit, table))
        for round_no, boards in enumerate(PLAN[table], 1):
            a = await_assign(u, collector, unit, round_no, timeout=20)  # synced until the round's assign is on it
            assert a["boards"] == boards
            for board in boards:
                play(u, board_lines(board, tricks[board][table]))
            u.write("sync 10000")  # the round's results out; the unit shows the move screen
            finished.wait()
        u.write("sync 10000")
        assert u.finish() == 0
        assert any("over" in line for line in u.out if line.startswith("|")), "no move screen shown"

    run_tables(list(units), play_table, timeout=60, join_s=90)


def test_a_three_table_mitchell_is_run_and_ranked(tmp_path):
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Club pairs", "--movement",
                    "mitchell", "--tables", "3", "--boards-per-round", "2"], check=True, capture_output=True)
    ring = keyring(tmp_path / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3"))
    try:
        setup = collector.api.get("/api/v1/event").json()
        assert setup["rounds"] == {"A": 1} and setup["tables"]["T02"] == ["A", 2]
        play_mitchell(tmp_path, collector)

        # What was played is what the movement says, and nothing raised an alert (no false Law 15).
        assert rows(tmp_path, "SELECT kind, detail FROM alerts") == []
        played = rows(tmp_path, "SELECT table_no, round, board, ns, ew, score_ns FROM results ORDER BY board, round")
        assert len(played) == 18
        assert {(r["round"], r["table_no"], r["board"]) for r in played} == {
            (rd, t, b) for t in PLAN for rd, boards in enumerate(PLAN[t], 1) for b in boards}

        ranking = collector.api.get("/api/v1/ranking").json()
        assert ranking["method"] == "neuberg" and ranking["problems"] == []  # the default; every board complete
        got = [(r["direction"], r["pair"], r["rank"], r["tied"], r["mp"]) for r in ranking["ranking"]]
        assert got == EXPECTED
        assert all(r["top"] == 24 and r["boards"] == 6 for r in ranking["ranking"])
        pct = {(r["direction"], r["pair"]): r["pct"] for r in ranking["ranking"]}
        assert pct[("NS", "3")] == 66.67 and pct[("NS", "1")] == 41.67 and pct[("EW", "1")] == 54.17

        trav = collector.api.get("/api/v1/travellers/1").json()["rows"]
        assert [(r["table"], r["ns"], r["ew"], r["contract"], r["declarer"], r["tricks"], r["score_ns"], r["mp_ns"])
                for r in trav] == [(1, "1", "1", "1NT", "N", 7, 90, 0), (2, "2", "3", "1NT", "N", 8, 120, 3),
                                   (3, "3", "2", "1NT", "N", 8, 120, 3)]
        assert trav[0]["pct_ns"] == 0 and trav[1]["pct_ns"] == 75
    finally:
        collector.stop()

    # The derived tables rebuild from the raw events to the same results, still without an alert; the scores
    # are recomputed from the stored results when the collector starts again.
    subprocess.run([str(BIDWIRE), "rebuild", "--data", str(tmp_path)], check=True, capture_output=True)
    assert rows(tmp_path, "SELECT kind FROM alerts") == []
    again = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3"))
    try:
        ranking = again.api.get("/api/v1/ranking").json()["ranking"]
        assert [(r["direction"], r["pair"], r["rank"], r["tied"], r["mp"]) for r in ranking] == EXPECTED
        assigns = rows(tmp_path, "SELECT count(*) AS n FROM commands WHERE type = 'assign'")[0]["n"]
        assert assigns == 9  # loading the event again queued no round twice
    finally:
        again.stop()
