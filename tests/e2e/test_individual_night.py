"""A 4-table individual end to end (issue 37): the published 16-player card (event/individual.py), a real `bidwire
serve`, four real virtual units, twelve rounds of one board. Each table is told its players' seats as a round
starts; each player is ranked on his partnerships' matchpoints, which the test works again from the raw results:
each board played four times (top 6: 2 a result beaten, 1 a tie), each player's matchpoints over his twelve
boards. Board b is 1NT by the dealer; table t takes 7 + (t + b) mod 3 tricks.
"""
import json
import subprocess
from collections import defaultdict

from collector_proc import BIDWIRE, Collector, keyring, rows
from table_play import play_rounds
from table_threads import run_tables
from test_collector_units import secret

UNITS = {t: f"T{t:02d}" for t in range(1, 5)}


def test_a_four_table_individual_ranks_each_player(tmp_path):
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Individual", "--movement",
                    "individual", "--tables", "4", "--boards-per-round", "1"], check=True, capture_output=True)
    ring = keyring(tmp_path / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3,T04=4"))

    def play_table(table, finished):
        play_rounds(tmp_path, collector, UNITS[table], table, 12, lambda a, board: 7 + (table + board) % 3, finished)

    try:
        run_tables(list(UNITS), play_table)
        told = [json.loads(r["body"])["text"] for r in rows(tmp_path, "SELECT body FROM commands WHERE unit = 'T01' "
                                                                       "AND type = 'message' ORDER BY seq")]
        assert told[:2] == ["N 16, S 1, E 2, W 7", "N 16, S 2, E 3, W 8"]  # the card's table 1, rounds 1 and 2
        raw = rows(tmp_path, "SELECT board, ns, ew, score_ns FROM results")
        assert len(raw) == 48
        by_board = defaultdict(list)
        for r in raw:
            by_board[r["board"]].append(r)
        mp, top = defaultdict(int), defaultdict(int)
        for results in by_board.values():
            assert len(results) == 4
            for r in results:
                ns = sum(2 * (r["score_ns"] > o["score_ns"]) + (r["score_ns"] == o["score_ns"])
                         for o in results if o is not r)
                for side, got in ((r["ns"], ns), (r["ew"], 6 - ns)):
                    for player in map(int, side.split("+")):
                        mp[player] += got
                        top[player] += 6
        ranked = collector.api.get("/api/v1/individuals").json()["sections"][0]["players"]
        assert len(ranked) == 16
        for p in ranked:
            assert (p["mp"], p["top"], p["pct"]) == (mp[p["player"]], 72, f"{100 * mp[p['player']] / 72:.2f}")
        assert [p["player"] for p in ranked] == sorted(mp, key=lambda p: (-mp[p], p))
    finally:
        collector.stop()
