"""Law 78 A matchpoints, Neuberg factoring and adjusted scores (laws.md §8.1, §9.3)."""
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bidwire_host.scoring import Artificial, Assigned, Result, ScoringError, Weighted
from bidwire_host.scoring.matchpoints import acbl, neuberg, score_board, units, weighted_units

SCORES = st.integers(-80, 80).map(lambda x: x * 10)


def board(*scores, n=1):
    return [Result(n, str(i), str(i), s) for i, s in enumerate(scores, 1)]


def naive_units(scores):
    """Law 78 A taken literally: compare with every other result, one at a time (the oracle)."""
    return [sum(2 if s > t else 1 if s == t else 0 for j, t in enumerate(scores) if j != i)
            for i, s in enumerate(scores)]


# laws.md §8.1 worked example (id 78A-1): 5 NS results on one board, top 8.
def test_78A_1_worked_example_units_and_ew_complement():
    rows = score_board(board(420, 420, 450, 170, -100))
    assert [r.mp_ns for r in rows] == [5, 5, 8, 2, 0]
    assert [r.mp_ew for r in rows] == [3, 3, 0, 6, 8]
    assert {r.top for r in rows} == {8}


def test_78A_1_acbl_half_matchpoint_display():
    rows = score_board(board(420, 420, 450, 170, -100))
    assert [acbl(r.mp_ns) for r in rows] == [F(5, 2), F(5, 2), 4, 1, 0]  # "2.5, 2.5, 4, 1, 0 on a top of 4"


def test_78A_percentages_of_the_top():
    rows = score_board(board(420, 420, 450, 170, -100))
    assert [r.pct_ns for r in rows] == [F(125, 2), F(125, 2), 100, 25, 0]
    assert all(r.pct_ns + r.pct_ew == 100 for r in rows)


def test_78A_lone_result_is_an_average():
    [row] = score_board(board(420), factor=False)
    assert row.mp_ns == 0 and row.top == 0 and row.pct_ns == 50


# Neuberg, 2/1 units: F = (M + 1)·E/n − 1, top 2(E − 1).
def test_neuberg_five_results_factored_to_six():
    # The §8.1 board played 5 times where the movement plays it 6 times; by hand, (M+1)·6/5 − 1:
    #   M=5 -> 6·6/5 − 1 = 31/5 = 6.2;  M=8 -> 9·6/5 − 1 = 49/5 = 9.8;  M=2 -> 3·6/5 − 1 = 13/5 = 2.6;
    #   M=0 -> 6/5 − 1 = 1/5 = 0.2.  Top 2·(6 − 1) = 10.  Sum 25 = 5 results × half of 10.
    rows = score_board(board(420, 420, 450, 170, -100), expected=6)
    assert [r.mp_ns for r in rows] == [F(31, 5), F(31, 5), F(49, 5), F(13, 5), F(1, 5)]
    assert {r.top for r in rows} == {10}
    assert sum(r.mp_ns for r in rows) == 25


def test_neuberg_formula_by_hand():
    assert neuberg(3, 4, 5) == 4  # (3+1)·5/4 − 1 = 5 − 1
    assert neuberg(6, 4, 5) == F(31, 4)  # 7·5/4 − 1 = 35/4 − 4/4
    assert neuberg(0, 1, 13) == 12  # a lone result gets half of the top 24
    assert neuberg(7, 9, 9) == 7  # equal sizes: the identity


def test_expected_smaller_than_traveller_is_an_error():
    with pytest.raises(ScoringError, match="expected to have 3"):
        score_board(board(1, 2, 3, 4), expected=3)


# laws.md §9.3: A+ = 60 %, A = 50 %, A− = 40 % of the top; "with a top of 8: 4.8 / 4.0 / 3.2".
def test_93_artificial_scores_on_a_top_of_8_with_neuberg():
    results = board(420, 420, 450, 170) + [Result(1, "5", "5", adjusted=Artificial("A+", "A-"))]
    rows = score_board(results)
    # The four played results are compared among themselves (n = 4) and factored to E = 5:
    #   420: M = 3 -> 4·5/4 − 1 = 4;  450: M = 6 -> 7·5/4 − 1 = 31/4;  170: M = 0 -> 5/4 − 1 = 1/4.
    assert [r.mp_ns for r in rows[:4]] == [4, 4, F(31, 4), F(1, 4)]
    assert rows[4].mp_ns == F(24, 5) and rows[4].mp_ew == F(16, 5)  # 4.8 and 3.2
    assert rows[4].pct_ns == 60 and rows[4].pct_ew == 40
    average = score_board(board(1, 2, 3, 4) + [Result(1, "x", "y", adjusted=Artificial("A", "A"))])[4]
    assert average.mp_ns == average.mp_ew == 4


def test_93_artificial_without_factoring_uses_the_smaller_top():
    results = board(420, 420, 450, 170) + [Result(1, "5", "5", adjusted=Artificial("A+", "A+"))]
    rows = score_board(results, factor=False)
    assert [r.mp_ns for r in rows[:4]] == [3, 3, 6, 0] and rows[0].top == 6
    assert rows[4].mp_ns == rows[4].mp_ew == F(18, 5)  # 60 % of 6, non-balancing A+/A+


def test_93_artificial_percentages_set_by_the_director():
    a = Artificial(65, "35%")
    assert a.pct("NS") == 65 and a.pct("EW") == 35 and a.label() == "65%/35%"
    with pytest.raises(ScoringError, match="A\\+, A, A-"):
        Artificial("B+", "A")
    with pytest.raises(ScoringError, match="0-100"):
        Artificial(120, 40)


def test_93_assigned_non_balancing_matchpointed_per_direction():
    # NS at table 3 are assigned +140, EW there are assigned the score of +620 for NS (not balancing).
    # NS direction compares 420, 170, 140: units 4, 2, 0.  EW direction, EW's view −420, −170, −620: 2, 4, 0.
    results = board(420, 170) + [Result(1, "3", "3", adjusted=Assigned(140, 620))]
    rows = score_board(results)
    assert [(r.mp_ns, r.mp_ew) for r in rows] == [(4, 2), (2, 4), (0, 0)]


def test_weighted_score_is_the_weighted_sum_of_its_outcomes():
    # 2017 Law 12 C1(c): 1/3 of +420 and 2/3 of +170 against results 450, 420, 170.
    w = Result(1, "4", "4", adjusted=Weighted(((F(1, 3), 420), (F(2, 3), 170))))
    rows = score_board(board(450, 420, 170) + [w])
    # The weighted result: 1/3·(420 vs 450, 420, 170 = 0+1+2) + 2/3·(170 vs them = 0+0+1) = 1 + 2/3.
    assert rows[3].mp_ns == F(5, 3)
    # 420 gets from the weighted result 1/3·1 + 2/3·2 = 5/3, plus 0 + 2 from 450 and 170.
    assert rows[1].mp_ns == 2 + F(5, 3)
    assert sum(r.mp_ns for r in rows) == 4 * 3  # a balancing mixture keeps the board's total n(n−1)


def test_weighted_weights_must_sum_to_one():
    with pytest.raises(ScoringError, match="sum to 1"):
        Weighted(((F(1, 2), 420), (F(1, 3), 170)))


@given(st.lists(SCORES, min_size=1, max_size=40))
def test_units_match_the_literal_pairwise_comparison(scores):
    assert units(scores) == naive_units(scores)


@given(st.lists(SCORES, min_size=1, max_size=40))
def test_units_on_a_board_sum_to_n_times_n_minus_1(scores):
    n = len(scores)
    assert sum(units(scores)) == n * (n - 1)


@given(st.lists(SCORES, min_size=1, max_size=30))
def test_neuberg_with_equal_sizes_is_the_identity(scores):
    rows = score_board(board(*scores), expected=len(scores))
    assert [r.mp_ns for r in rows] == units(scores)


@given(st.lists(SCORES, min_size=1, max_size=20), st.integers(0, 10))
def test_neuberg_keeps_the_average_at_half_the_top(scores, missing):
    n, e = len(scores), len(scores) + missing
    rows = score_board(board(*scores), expected=e)
    assert sum(r.mp_ns for r in rows) == n * (e - 1)  # mean (E − 1) = half of the top 2(E − 1)
    assert all(0 <= r.mp_ns <= r.top for r in rows)


@given(st.lists(SCORES, min_size=2, max_size=20))
def test_balancing_scores_ns_and_ew_sum_to_the_top(scores):
    assert all(r.mp_ns + r.mp_ew == r.top for r in score_board(board(*scores), factor=False))


@given(st.lists(SCORES, min_size=1, max_size=20))
def test_plain_results_as_weighted_ones_give_the_same_units(scores):
    assert weighted_units([((1, s),) for s in scores]) == units(scores)
