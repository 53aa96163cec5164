"""The hub scores a board with no adjusted result by distinct score, in integers (scoring/combined_field.py), for
speed. Its figures must be the club's scoring core's (scoring.session.score_field, itself checked against laws.md's
vectors and hand-worked boards): the same matchpoints on every row and the same totals, percentages and ranks, on random
fields with unequal boards (Neuberg), ties and adjusted scores."""
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from bidwire_host.scoring import combined_field as field
from bidwire_host.scoring.ranking import ranking
from bidwire_host.scoring.session import score_field

SCORES = [-200, -100, -50, 90, 110, 120, 140, 400, 420, 430, 450, 620]


@st.composite
def fields(draw):
    clubs = draw(st.integers(1, 3))
    rows = []
    for b in range(1, draw(st.integers(1, 4)) + 1):
        for c in range(1, clubs + 1):
            for t in range(1, draw(st.integers(0, 4)) + 1):
                adjusted = None
                if draw(st.integers(0, 9)) == 0:
                    adjusted = draw(st.sampled_from([{"ns": 60, "ew": 40}, {"ns": 50, "ew": 50},
                                                     {"ns_score": 420, "ew_score": -50}]))
                score = None if adjusted else draw(st.sampled_from(SCORES))
                rows.append({"club_id": f"C{c}", "session": "", "section": "A", "board": b, "ns": str(t), "ew": str(t),
                             "ns_names": f"N{c}{t}", "ew_names": f"E{c}{t}", "contract": None if adjusted else "1NT",
                             "declarer": None if adjusted else "N", "tricks": None if adjusted else 7,
                             "score_ns": score, "adjusted": adjusted, "version": 1})
    return rows


def _core(sim, rows):
    results, _ = field.results_of(rows)
    by_board, totals, _, _ = score_field(results, sim["scoring"], two_fields=True)
    return by_board, totals


@settings(max_examples=150, deadline=None)
@given(fields(), st.sampled_from(["mp", "neuberg"]), st.sampled_from(["one", "two"]))
def test_the_fast_field_agrees_with_the_scoring_core(rows, method, winners):
    sim = {"scoring": method, "winners": winners}
    f = field.score(sim, rows)
    if not rows:
        assert f.results == 0 and f.ranking == []
        return
    by_board, totals = _core(sim, rows)
    for b, core_rows in by_board.items():
        mine = f.boards[b]
        assert [(r["mp_ns"], r["mp_ew"], r["top"], r["pct_ns"], r["pct_ew"]) for r in mine] == \
               [(x.mp_ns, x.mp_ew, x.top, x.pct_ns, x.pct_ew) for x in core_rows]
        assert f.frequencies[b] == field.frequencies(mine)  # the board page's table, without the rows
    got = {(e["pair"].direction, field.pair_id(e["pair"].club, e["pair"].section, e["pair"].number)):
           (e["mp"], e["top"], e["boards"], e["pct"]) for e in f.ranking}
    want = {who: (t.mp, t.top, t.boards, t.pct) for who, t in totals.items()}
    assert got == want
    # The ranks: the core's ranking of the same totals, one list or NS and EW apart.
    if winners == "one":
        merged = {("ALL", who): t for who, t in totals.items()}
        core_ranks = {who[1]: s.display for s in ranking(merged) for who in [s.contestant]}
    else:
        core_ranks = {s.contestant: s.display for s in ranking(totals)}
    mine_ranks = {(e["pair"].direction, field.pair_id(e["pair"].club, e["pair"].section, e["pair"].number)):
                  e["rank"] for e in f.ranking}
    assert mine_ranks == core_ranks
    assert all(isinstance(e["pct"], (int, Fraction)) for e in f.ranking)  # exact, never a float
