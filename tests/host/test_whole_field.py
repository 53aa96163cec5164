"""Law 78 A has one implementation (scoring.law78a), and the whole field scored at once (scoring.whole_field)
gives what the club's scorer gives board by board as results arrive (scoring.Session).

The units are held to laws.md §8.1's definition written out pair by pair: 2 for each result beaten, 1 for
each tie."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bidwire_host.scoring import Result, ScoringError, Session, law78a, score_field

BOARDS = st.lists(st.tuples(st.integers(1, 5), st.integers(-30, 30)), max_size=60)


@settings(max_examples=200, deadline=None)
@given(results=BOARDS)
def test_units_are_laws_definition_pair_by_pair(results):
    units, sizes = law78a.units_and_sizes([b for b, _ in results], [s * 10 for _, s in results])
    assert (law78a.units([b for b, _ in results], [s * 10 for _, s in results]) == units).all()
    for i, (board, score) in enumerate(results):
        others = [s for k, (b, s) in enumerate(results) if b == board and k != i]
        assert units[i] == sum(2 if score > s else 1 if score == s else 0 for s in others)
        assert sizes[i] == len(others) + 1


def _pair(n):
    return None if n == 0 else str(n)


RESULT = st.builds(lambda board, ns, ew, s: Result(board, _pair(ns), _pair(ew), s * 10),
                   st.integers(1, 4), st.integers(0, 7), st.integers(0, 7), st.integers(-40, 40))


@pytest.mark.parametrize("method", ["mp", "neuberg"])
@pytest.mark.parametrize("two_fields", [True, False])
@settings(max_examples=60, deadline=None)
@given(results=st.lists(RESULT, min_size=1, max_size=40))
def test_whole_field_is_the_session_board_by_board(method, two_fields, results):
    session = Session(method, two_fields=two_fields)
    session.extend(results)
    rows, totals, standings, _ = score_field(results, method, two_fields=two_fields)
    assert {b: [(r.result, r.mp_ns, r.mp_ew, r.top) for r in t.rows] for b, t in session.travellers.items()} == \
        {b: [(r.result, r.mp_ns, r.mp_ew, r.top) for r in rows[b]] for b in rows}
    assert {w: (t.mp, t.top, t.boards, t.pct) for w, t in session.totals.items()} == \
        {w: (totals[w].mp, totals[w].top, totals[w].boards, totals[w].pct) for w in totals}
    assert [(s.rank, s.tied, s.contestant, s.value) for s in session.ranking()] == \
        [(s.rank, s.tied, s.contestant, s.value) for s in standings]


def test_a_board_bigger_than_neubergs_size_is_refused():
    results = [Result(1, str(t), str(t), 100 * t) for t in range(1, 4)]
    with pytest.raises(ScoringError, match="board 1: 3 results on a board expected to have 2"):
        score_field(results, "neuberg", expected=2, two_fields=True)


def test_equal_percentages_tie_and_unequal_ones_do_not():
    # NS 1 and NS 2 score the same on each board (a tie); NS 3 is below both.
    results = [Result(1, "1", "1", 420), Result(1, "2", "2", 420), Result(1, "3", "3", 170),
               Result(2, "1", "2", 100), Result(2, "2", "3", 100), Result(2, "3", "1", -50)]
    _, _, standings, _ = score_field(results, "mp", two_fields=True)
    ns = [(s.display, s.contestant, s.value) for s in standings if s.contestant[0] == "NS"]
    assert ns == [("1=", ("NS", "1"), 75), ("1=", ("NS", "2"), 75), ("3", ("NS", "3"), 0)]
