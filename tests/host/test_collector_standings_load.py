"""The collector's start-up scoring (Standings.load: every stored result at once, each board scored once) gives
what feeding the same results one by one as they arrived gives: travellers, ranking and problems — replaced
results (a second result of one table and board) and results without a table included."""
import shutil
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from bidwire_host.collector.standings import Standings
from bidwire_host.collector.store import Store
from bidwire_host.scoring.model import law77_score

OUTCOMES = [("4S", "N", 10), ("4S", "N", 9), ("3NT", "S", 9), ("2H", "E", 8), ("5DX", "W", 9), ("1NT", "N", 7)]


@st.composite
def result_rows(draw):
    rows = []
    for seq in range(1, draw(st.integers(1, 40)) + 1):
        board = draw(st.integers(1, 4))
        table = draw(st.one_of(st.none(), st.integers(1, 5)))
        contract, declarer, tricks = draw(st.sampled_from(OUTCOMES))
        pair = table or draw(st.integers(6, 9))
        rows.append({"unit": f"T{pair:02d}", "seq": seq, "section": draw(st.sampled_from(["A", "A", "B"])),
                     "table_no": table, "board": board, "round": 1, "ns": str(pair), "ew": str(pair + 10),
                     "contract": contract, "declarer": declarer, "tricks": tricks,
                     "score_ns": law77_score(board, contract, declarer, tricks)})
    return rows


def stored(rows):
    """A real store (SQLite, the collector's schema) whose results table holds the rows, in arrival order."""
    tmp = tempfile.mkdtemp()
    store = Store(tmp)
    try:
        def put(conn):
            for i, r in enumerate(rows):
                conn.execute("INSERT INTO results (unit, seq, board_id, board, section, table_no, round, ns, ew, "
                             "contract, declarer, tricks, score_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (r["unit"], r["seq"], i, r["board"], r["section"], r["table_no"], r["round"], r["ns"],
                              r["ew"], r["contract"], r["declarer"], r["tricks"], r["score_ns"]))
        store.write(put)
        standings = Standings()
        standings.load(store.reader())
        return standings
    finally:
        store.close()
        shutil.rmtree(tmp, ignore_errors=True)


@settings(max_examples=150, deadline=None)
@given(result_rows())
def test_loading_at_start_equals_the_results_added_one_by_one(rows):
    at_once = stored(rows)
    one_by_one = stored([])
    for r in rows:
        one_by_one.add([r])
    for board in range(1, 5):
        assert at_once.traveller(board) == one_by_one.traveller(board)
    assert at_once.ranking() == one_by_one.ranking()
    def tabled(index):  # where each table's result is on its traveller (a result without a table has no key)
        return {k: v for k, v in index.items() if k[1] is not None}
    assert tabled(at_once.index) == tabled(one_by_one.index)
    # a correction after the start lands on the same traveller row either way
    last = dict(rows[-1], tricks=13, score_ns=law77_score(rows[-1]["board"], rows[-1]["contract"],
                                                          rows[-1]["declarer"], 13))
    at_once.add([last])
    one_by_one.add([last])
    assert at_once.traveller(last["board"]) == one_by_one.traveller(last["board"])
