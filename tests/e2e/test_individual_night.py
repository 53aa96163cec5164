"""Individuals end to end (issue 37): a real `bidwire serve` and real virtual units. The published 16-player card
(event/individual.py) on four units, twelve rounds of one board; the ACBL's two-table individual on two, seven
rounds of two boards that both tables play (shared). Each table is told its players' seats as a round starts; each
player is ranked on his partnerships' matchpoints, which the test works again from the raw results: each board
played once at every table (a result beaten scores 2, a tie 1, top 2 per opponent), each player's matchpoints
over his boards. Board b is 1NT by the dealer; table t takes 7 + (t + b) mod 3 tricks.
"""
import json
import subprocess
from collections import defaultdict

from collector_proc import BIDWIRE, Collector, keyring, rows
from table_play import play_rounds
from table_threads import run_tables
from test_collector_units import secret

UNITS = {t: f"T{t:02d}" for t in range(1, 5)}


def _ranked_as_worked_by_hand(tmp_path, collector, players, tables, boards, played=None):
    """The collector's ranking of the players against the matchpoints worked here from its raw results: `boards`
    boards each played at every table, each player on `played` of them (all: no one sits out)."""
    raw = rows(tmp_path, "SELECT board, ns, ew, score_ns FROM results")
    assert len(raw) == tables * boards
    by_board = defaultdict(list)
    for r in raw:
        by_board[r["board"]].append(r)
    mp, top = defaultdict(int), defaultdict(int)
    for results in by_board.values():
        assert len(results) == tables
        for r in results:
            ns = sum(2 * (r["score_ns"] > o["score_ns"]) + (r["score_ns"] == o["score_ns"])
                     for o in results if o is not r)
            for side, got in ((r["ns"], ns), (r["ew"], 2 * (tables - 1) - ns)):
                for player in map(int, side.split("+")):
                    mp[player] += got
                    top[player] += 2 * (tables - 1)
    ranked = collector.api.get("/api/v1/individuals").json()["sections"][0]["players"]
    assert len(ranked) == players and set(top.values()) == {2 * (tables - 1) * (played or boards)}
    for p in ranked:
        whole = top[p["player"]]
        assert (p["mp"], p["top"], p["pct"]) == (mp[p["player"]], whole, f"{100 * mp[p['player']] / whole:.2f}")
    assert [p["player"] for p in ranked] == sorted(mp, key=lambda p: (-mp[p], p))


def _play_night(tmp_path, tables, rounds, *create):
    """An individual of `tables` tables (`bidwire event create ... *create`) played on as many real virtual units
    for `rounds` rounds against a real collector: (the collector, still running, {(table, round): its assign},
    {table: the messages its unit was sent, in order})."""
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Individual", "--movement",
                    "individual", "--tables", str(tables), *create], check=True, capture_output=True)
    units = {t: UNITS[t] for t in range(1, tables + 1)}
    ring = keyring(tmp_path / "keyring.json", {units[t]: secret(t) for t in units})
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables",
                                                 ",".join(f"{u}={t}" for t, u in units.items())))
    assigns = {}

    def play_table(table, finished):
        def seen(assign):
            assigns[table, assign["round"]] = assign
        play_rounds(tmp_path, collector, units[table], table, rounds, lambda a, board: 7 + (table + board) % 3,
                    finished, on_assign=seen)

    try:
        run_tables(list(units), play_table)
    except BaseException:
        collector.stop()
        raise
    told = {t: [json.loads(r["body"])["text"] for r in rows(tmp_path, "SELECT body FROM commands WHERE unit = ? AND "
                                                                      "type = 'message' ORDER BY seq", u)]
            for t, u in units.items()}
    return collector, assigns, told


def test_a_two_table_individual_shares_its_boards_and_ranks_each_player(tmp_path):
    collector, assigns, told = _play_night(tmp_path, 2, 7, "--boards-per-round", "2")
    try:
        for r in range(1, 8):  # both tables on the round's two boards, table 2 starting at the other
            assert assigns[1, r]["boards"] == [2 * r - 1, 2 * r] and assigns[2, r]["boards"] == [2 * r, 2 * r - 1]
        assert told[2][:2] == ["N 5, S 7, E 3, W 4", "N 6, S 1, E 4, W 5"]  # the ACBL's table 2, rounds 1 and 2
        _ranked_as_worked_by_hand(tmp_path, collector, players=8, tables=2, boards=14)
    finally:
        collector.stop()


def test_a_four_table_individual_ranks_each_player(tmp_path):
    collector, _, told = _play_night(tmp_path, 4, 12, "--boards-per-round", "1")
    try:
        assert told[1][:2] == ["N 16, S 1, E 2, W 7", "N 16, S 2, E 3, W 8"]  # the card's table 1, rounds 1 and 2
        _ranked_as_worked_by_hand(tmp_path, collector, players=16, tables=4, boards=12)
    finally:
        collector.stop()


def test_thirteen_players_at_three_tables_sit_out_in_turn(tmp_path):
    """Ted Muller's 13-player card: each round one player sits out (told with the seats at every table, and on the
    move card of the table he leaves), and each player is scored on the 12 boards he played: his matchpoints over
    12 tops, as the EBU and the ACBL score a sit-out in a matchpoint event."""
    collector, assigns, told = _play_night(tmp_path, 3, 13, "--players", "13", "--boards-per-round", "1")
    try:
        # the card's table 1 in rounds 1 and 2, and who sits out: 1, then 2 (no table of the card seats them)
        assert told[1][:2] == ["N 4, S 9, E 12, W 11; out 1", "N 5, S 10, E 13, W 12; out 2"]
        assert assigns[1, 1]["move"].split() == ["4>T3W", "9>T3N", "12>T1W", "11>T2E"]
        assert "2>out" in assigns[3, 1]["move"].split()  # player 2 leaves table 3 after round 1, sits round 2 out
        _ranked_as_worked_by_hand(tmp_path, collector, players=13, tables=3, boards=13, played=12)
    finally:
        collector.stop()
