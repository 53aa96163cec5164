"""An arrow-switched 7-table Mitchell end to end (issue 37): `bidwire event create --arrow-switch last`, a real
`bidwire serve`, seven real virtual units. In the last round each table's EW pair sits NS and its NS pair EW (the
move card says so, and the unit is told as the round starts); the auction engine keeps its physical seats, and
each result is credited to the pairs' real directions: NS and EW are one field, one winner.

Worked by hand: one board a round, 1NT by the dealer at every table, table t taking 7 + t mod 3 tricks (8, 9, 7,
8, 9, 7, 8 at tables 1-7: 120, 150, 90 to whoever sits NS). Board 1 goes round tables 1, 7, 6, 5, 4, 3, 2 in
rounds 1-7 (a Mitchell's boards move down a table): 120, 120, 90, 150, 120, 90 and, in the switched round at table
2, 150 to the pair sitting NS there, EW 3 (EW pairs move up: EW 3 is at table 2 in round 7), against NS 2 sitting
EW. Seven results, top 12 (2 a result beaten, 1 a tie): the 150s 11, the 120s 6, the 90s 1. So EW 3 scores 11 of
12 on board 1 as NS, NS 2 scores 1.
"""
import json
import subprocess

from collector_proc import BIDWIRE, Collector, keyring, rows
from table_play import play_rounds
from table_threads import run_tables
from test_collector_units import secret

UNITS = {t: f"T{t:02d}" for t in range(1, 8)}


def test_an_arrow_switched_mitchell_has_one_winner(tmp_path):
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "One winner", "--movement",
                    "mitchell", "--tables", "7", "--boards-per-round", "1", "--arrow-switch", "last"],
                   check=True, capture_output=True)
    assert json.loads(event_file.read_text())["sessions"][0]["sections"][0]["movement"]["arrow_switch"] == [7]
    ring = keyring(tmp_path / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
    tables = ",".join(f"{u}={t}" for t, u in UNITS.items())
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", tables))

    def play_table(table, finished):
        play_rounds(tmp_path, collector, UNITS[table], table, 7, lambda a, board: 7 + table % 3, finished)

    try:
        run_tables(list(UNITS), play_table)
        # table 2's last round: EW 3 at the NS seats, NS 2 at the EW seats, told as the round starts
        assigns = [json.loads(r["body"]) for r in rows(tmp_path, "SELECT body FROM commands WHERE unit = 'T02' "
                                                                 "AND type = 'assign'")]
        [last] = [a for a in assigns if a["round"] == 7]
        assert (last["ns"], last["ew"], last["boards"]) == (3, 2, [1])
        told = [json.loads(r["body"])["text"] for r in rows(tmp_path, "SELECT body FROM commands WHERE unit = 'T02' "
                                                                       "AND type = 'message' ORDER BY seq")]
        assert told == ["Arrow switch: NS pair sits EW, EW pair sits NS"]
        trav = collector.api.get("/api/v1/travellers/1").json()["rows"]
        # board 1 at table t in round r with t + r = 2 (mod 7), the EW pair there (t - r) mod 7 + 1
        assert [(r["table"], r["ns"], r["ew"], r["score_ns"], r["mp_ns"], r["mp_ew"]) for r in trav] == [
            (1, "1NS", "1EW", 120, 6, 6), (2, "3EW", "2NS", 150, 11, 1), (3, "3NS", "5EW", 90, 1, 11),
            (4, "4NS", "7EW", 120, 6, 6), (5, "5NS", "2EW", 150, 11, 1), (6, "6NS", "4EW", 90, 1, 11),
            (7, "7NS", "6EW", 120, 6, 6)]
        ranking = collector.api.get("/api/v1/ranking").json()["ranking"]
        assert len(ranking) == 14 and {r["direction"] for r in ranking} == {None}  # one field
        assert {r["pair"] for r in ranking} == {f"{n}{line}" for n in range(1, 8) for line in ("NS", "EW")}
        assert sum(float(r["mp"]) for r in ranking) == 7 * 7 * 12  # every result shares its board's top
    finally:
        collector.stop()
