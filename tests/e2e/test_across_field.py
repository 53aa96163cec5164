"""Two 5-table sections scored across the field (issue 37): a real `bidwire serve` with an event of sections A and
B playing the same boards (the session's `across_field`), ten real virtual units. Each board's ten results are
matchpointed together, by the combined field's implementation (the hub's); the test works every figure again from
the raw results in the store: 2 a result beaten and 1 a tie, top 18 (every board played ten times), each pair's
total and percentage, and its place in its own section.

Board b is 1NT by the dealer everywhere; section A's table t takes 7 + t mod 3 tricks, section B's 7 + (t + 1)
mod 3 (90, 120 or 150 to NS whatever the vulnerability), so the two sections' travellers differ and only the field
compares them.
"""
import json
import subprocess
from collections import defaultdict

import httpx2 as httpx
from collector_proc import BIDWIRE, Collector, keyring, rows
from table_play import play_rounds
from table_threads import run_tables
from test_collector_units import secret

SEATS = {i: (("A", i) if i <= 5 else ("B", i - 5)) for i in range(1, 11)}  # unit number -> (section, table)
UNITS = {i: f"T{i:02d}" for i in SEATS}


def tricks(section, table):
    return 7 + (table + (section == "B")) % 3


def test_two_sections_are_matchpointed_as_one_field(tmp_path):
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Two sections", "--movement",
                    "mitchell", "--tables", "5", "--boards-per-round", "2"], check=True, capture_output=True)
    event = json.loads(event_file.read_text())
    session = event["sessions"][0]
    session["sections"].append(dict(session["sections"][0], name="B"))
    session["across_field"] = True
    event_file.write_text(json.dumps(event))
    ring = keyring(tmp_path / "keyring.json", {UNITS[i]: secret(i) for i in UNITS})
    tables = ",".join(f"{UNITS[i]}={sec}:{t}" for i, (sec, t) in SEATS.items())
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", tables))

    def play_table(i, finished):
        play_rounds(tmp_path, collector, UNITS[i], i, 5, lambda a, board: tricks(*SEATS[i]), finished)

    try:
        run_tables(list(UNITS), play_table)
        field = collector.api.get("/api/v1/field").json()
        assert field["across_field"] is True
        raw = rows(tmp_path, "SELECT section, board, ns, ew, score_ns FROM results")
        assert len(raw) == 10 * 10  # ten boards, each at ten tables
        by_board = defaultdict(list)
        for r in raw:
            by_board[r["board"]].append(r)
        mp = defaultdict(int)  # (section, direction, pair) -> matchpoints over the session
        for board, results in by_board.items():
            expected = {}
            for r in results:
                ns = sum(2 * (r["score_ns"] > o["score_ns"]) + (r["score_ns"] == o["score_ns"])
                         for o in results if o is not r)
                expected[r["section"], str(r["ns"]), str(r["ew"])] = (ns, 18 - ns)
                mp[r["section"], "NS", str(r["ns"])] += ns
                mp[r["section"], "EW", str(r["ew"])] += 18 - ns
            got = {(x["section"], x["ns"], x["ew"]): (x["mp_ns"], x["mp_ew"]) for x in field["boards"][str(board)]}
            assert got == expected, board
        ranking = {(e["section"], e["direction"], e["pair"]): e for e in field["ranking"]}
        assert len(ranking) == 20  # five NS and five EW pairs in each section, NS and EW ranked apart
        for key, total in mp.items():
            assert (ranking[key]["mp"], ranking[key]["pct"]) == (total, f"{100 * total / (10 * 18):.2f}"), key
        for section in "AB":  # the place in its own section: by its field percentage, within the section
            for direction in ("NS", "EW"):
                mine = sorted((e for e in field["ranking"] if (e["section"], e["direction"]) == (section, direction)),
                              key=lambda e: -float(e["pct"]))
                assert mine[0]["section_rank"].rstrip("=") == "1"
        # the public page, once published, shows the field's ranking and travellers, not each section's apart
        assert collector.api.post("/api/v1/publish", json={}).status_code == 201
        page = httpx.get(collector.url + "/results", timeout=30).text
        assert "Ranking across the field" in page and page.count("<h3>Board ") == 10
    finally:
        collector.stop()
