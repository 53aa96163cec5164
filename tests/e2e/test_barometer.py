"""An 8-table barometer end to end (issue 37): `bidwire event create --movement barometer` (Howell seating, 3 rounds
of one board), a real `bidwire serve`, eight real virtual units. Every table plays the same board each round; once
every table has finished a round the public page shows that round's board and the standings so far while the
next round's board stays hidden, and each table is told its two pairs' running percentages.

Board r is 1NT by the dealer at every table; the tricks at tables 1-8 are 7, 8, 9, 7, 8, 9, 7, 8 (90, 120 or 150
to NS, any vulnerability). Eight results, top 14 (2 a result beaten, 1 a tie): the two 150s 13 each (92.86 %), the
three 120s 8 (57.14 %), the three 90s 2 (14.29 %); EW the rest. After round 1 (table 1: 16 NS v 1, table 2: 2 v 15)
pair 16 has 14.29 %, pair 2 57.14 %: in round 2 they meet at table 1, which is told so.
"""
import json
import re
import subprocess

import httpx2 as httpx
from collector_proc import BIDWIRE, Collector, keyring, rows
from table_play import play_rounds
from table_threads import run_tables
from test_collector_units import secret
from waiting import wait_until

TRICKS = {1: 7, 2: 8, 3: 9, 4: 7, 5: 8, 6: 9, 7: 7, 8: 8}
UNITS = {t: f"T{t:02d}" for t in range(1, 9)}


def test_an_eight_table_barometer_shows_each_round_as_it_ends(tmp_path):
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Barometer", "--movement",
                    "barometer", "--tables", "8", "--rounds", "3", "--boards-per-round", "1"],
                   check=True, capture_output=True)
    ring = keyring(tmp_path / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
    tables = ",".join(f"{u}={t}" for t, u in UNITS.items())
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", tables))
    shown = {}

    def public_page(round_no):
        """The public page once round `round_no` is over everywhere (the next one's board still in play)."""
        def over():
            page = httpx.get(collector.url + "/results", timeout=30).text
            return page if f"/results/boards/{round_no}\"" in page else None
        shown[round_no] = wait_until(over, 30, 0.2, f"round {round_no}'s board on the public page")

    done = {"round": 0}

    def between():
        done["round"] += 1
        public_page(done["round"])

    def on_assign(a):
        assert a["boards"] == [a["round"]]  # every table on the round's board

    def play_table(table, finished):
        play_rounds(tmp_path, collector, UNITS[table], table, 3, lambda a, board: TRICKS[table], finished,
                    on_assign=on_assign)

    try:
        run_tables(list(UNITS), play_table, after_round=between)
        # after round 1, board 1's traveller and the standings, not board 2 (in play) nor board 3
        first = shown[1]
        assert "Provisional" in first and "/results/boards/2\"" not in first and "/results/boards/3\"" not in first
        assert re.search(r"Not shown yet: .*board 2 \(still to be played\)", first)
        board1 = httpx.get(collector.url + "/results/boards/1", timeout=30)
        assert board1.status_code == 200 and "92.86" in board1.text
        assert "/results/boards/3\"" not in shown[2] and "/results/boards/3\"" in shown[3]  # shown once played
        told = [json.loads(r["body"])["text"] for r in rows(tmp_path, "SELECT body FROM commands WHERE unit = 'T01' "
                                                                       "AND type = 'message' ORDER BY seq")]
        assert told[0] == "After round 1: pair 16 14.29%, pair 2 57.14%"
        assert len(told) == 3 and told[2].startswith("After round 3: pair 16 ")
        ranking = collector.api.get("/api/v1/ranking").json()["ranking"]
        assert len(ranking) == 16 and {r["direction"] for r in ranking} == {None}  # one field, Howell seating
    finally:
        collector.stop()
