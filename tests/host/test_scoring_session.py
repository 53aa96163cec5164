"""Scores update as each result arrives: a Traveller re-scores its board, a Session keeps exact totals."""
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bidwire_host.scoring import METHODS, Result, ScoringError, Session, Traveller, score_board, score_field

RESULT = st.builds(
    lambda board, ns, ew, s: Result(board, str(ns), str(ew + 10), s * 10),
    st.integers(1, 4), st.integers(1, 6), st.integers(1, 6), st.integers(-80, 80),
)


def snapshot(totals):
    return {who: (t.mp if t.scored_mp else None, t.top, t.imps, t.boards) for who, t in totals.items()}


def test_traveller_rescores_its_board_on_each_add():
    t = Traveller(1, "mp")
    t.add(Result(1, "1", "1", 420))
    assert [r.mp_ns for r in t.rows] == [0]
    t.add(Result(1, "2", "2", 450))
    assert [r.mp_ns for r in t.rows] == [0, 2]
    t.replace(0, Result(1, "1", "1", 460))
    assert [r.mp_ns for r in t.rows] == [2, 0]
    t.remove(1)
    assert len(t) == 1
    with pytest.raises(ScoringError, match="board 2"):
        t.add(Result(2, "3", "3", 0))


def test_unknown_method_is_refused():
    with pytest.raises(ScoringError, match="unknown scoring method"):
        Session("swiss")
    with pytest.raises(ScoringError, match="unknown scoring method"):
        score_board([], "swiss")


@pytest.mark.parametrize("method", [m for m in METHODS if m != "teams"])
@settings(max_examples=40, deadline=None)
@given(results=st.lists(RESULT, min_size=1, max_size=30))
def test_incremental_equals_full_rescoring(method, results):
    # Neuberg to a size every board fits (a board of more results than the size is refused, rightly)
    size = max(12, max(Counter(r.board for r in results).values())) if method == "neuberg" else None
    session = Session(method, two_fields=True, expected=size)
    for r in results:
        session.add(r)
    _, totals, standings, _ = score_field(results, method, two_fields=True, expected=size)
    assert snapshot(session.totals) == snapshot(totals)
    assert [(s.contestant, s.rank) for s in session.ranking()] == [(s.contestant, s.rank) for s in standings]


@settings(max_examples=30, deadline=None)
@given(results=st.lists(RESULT, min_size=2, max_size=25), data=st.data())
def test_corrections_and_removals_keep_totals_exact(results, data):
    session = Session("neuberg", two_fields=True)
    session.extend(results)
    board = data.draw(st.sampled_from(sorted(session.travellers)))
    t = session.travellers[board]
    i = data.draw(st.integers(0, len(t) - 1))
    new = Result(board, t.results[i].ns, t.results[i].ew, data.draw(st.integers(-80, 80)) * 10)
    session.replace(board, i, new)
    expected = [r for r in results]
    expected[[k for k, r in enumerate(results) if r.board == board][i]] = new
    assert snapshot(session.totals) == snapshot(score_field(expected, "neuberg", two_fields=True)[1])
    session.remove(board, 0)
    del expected[[k for k, r in enumerate(expected) if r.board == board][0]]
    assert snapshot(session.totals) == snapshot(score_field(expected, "neuberg", two_fields=True)[1])


def test_neuberg_session_rescales_every_board_when_the_biggest_traveller_grows():
    session = Session("neuberg", two_fields=True)
    session.add(Result(1, "1", "1", 420))
    session.add(Result(1, "2", "2", 170))
    session.add(Result(2, "1", "2", 100))
    assert session.travellers[2].rows[0].mp_ns == 1  # a lone result factored to 2: half of the top 2
    session.add(Result(1, "3", "3", 50))  # board 1 now has 3 results: board 2 is factored to 3
    assert session.travellers[2].rows[0].mp_ns == 2 and session.travellers[2].rows[0].top == 4


def test_extend_scores_each_board_once_and_matches_adds():
    results = [Result(b, str(t), str(t), (t * 37 % 11) * 10) for b in (1, 2, 3) for t in range(1, 8)]
    bulk = Session("mp", two_fields=True)
    bulk.extend(results)
    one_by_one = Session("mp", two_fields=True)
    for r in results:
        one_by_one.add(r)
    assert snapshot(bulk.totals) == snapshot(one_by_one.totals)
    assert [r.mp_ns for r in bulk.rows()] == [r.mp_ns for r in one_by_one.rows()]


def test_team_session_totals():
    session = Session("teams")
    session.extend([Result(1, "A", "B", 620), Result(1, "B", "A", 170), Result(2, "A", "B", -100),
                    Result(2, "B", "A", 140)])
    # Board 1: A +620 at one table, −170 at the other: +450 → 10. Board 2: A −100 and −140: −240 → −6.
    assert session.totals["A"].imps == 4 and session.totals["B"].imps == -4
    assert session.totals["A"].boards == 2
    assert [s.contestant for s in session.ranking()] == ["A", "B"]


def test_a_result_that_cannot_be_scored_changes_nothing():
    session = Session("neuberg", two_fields=True, expected=2)  # the movement plays each board twice
    session.add(Result(1, "1", "1", 420))
    session.add(Result(1, "2", "2", 170))
    before = snapshot(session.totals)
    with pytest.raises(ScoringError, match="3 results on a board expected to have 2"):
        session.add(Result(1, "3", "3", 50))
    assert snapshot(session.totals) == before and len(session.travellers[1]) == 2
    t = Traveller(1, "mp")
    with pytest.raises(IndexError):
        t.replace(4, Result(1, "1", "1", 0))
    assert t.results == [] and t.rows == []
