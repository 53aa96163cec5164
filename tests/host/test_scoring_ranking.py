"""Totals and rankings with ties (laws.md §8.3), penalties and the correction period (§10.1-10.2)."""
from datetime import datetime, timedelta
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bidwire_host.scoring import Result, score_field
from bidwire_host.scoring.ledger import CorrectionPeriod, Ledger, LedgerError, Penalty
from bidwire_host.scoring.ranking import rank, ranking, two_field_movement


def test_equal_totals_share_the_rank_and_the_next_rank_skips():
    standings = rank({"1": 60, "2": 55, "3": 55, "4": 50, "5": 55})
    assert [(s.contestant, s.display) for s in standings] == [("1", "1"), ("2", "2="), ("3", "2="), ("5", "2="),
                                                              ("4", "5")]


def test_ties_are_exact_not_float_accidents():
    # 1/3 + 1/3 + 1/3 is exactly 1; 0.1 + 0.2 style float drift must not split a tie.
    standings = rank({"a": F(1, 3) + F(1, 3) + F(1, 3), "b": F(1), "c": F(999999999, 1000000000)})
    assert [s.display for s in standings] == ["1=", "1=", "3"]


def test_lower_is_better_ranking():
    assert [s.contestant for s in rank({"x": 3, "y": 1}, higher_is_better=False)] == ["y", "x"]


@given(st.dictionaries(st.integers(1, 60).map(str), st.integers(-5, 5), min_size=1))
def test_rank_is_one_plus_the_number_of_better_contestants(values):
    for s in rank(values):
        assert s.rank == 1 + sum(v > s.value for v in values.values())
        assert s.tied == (list(values.values()).count(s.value) > 1)


def mitchell():
    # Two tables, two boards: NS pairs 1-2, EW pairs 1-2 (NS 1 and EW 1 are different pairs).
    return [Result(1, "1", "1", 420), Result(1, "2", "2", 170), Result(2, "1", "2", -50), Result(2, "2", "1", -50)]


def test_mitchell_is_detected_and_ranked_in_two_fields():
    assert two_field_movement(mitchell())
    assert not two_field_movement([Result(1, "1", "2", 420), Result(1, "3", "4", 170), Result(2, "1", "3", 0)])
    _, totals, standings, two = score_field(mitchell(), "mp")
    assert two
    shown = [(s.contestant, s.display) for s in standings]
    # Board 1: NS 1 beats NS 2 (2 units to 0), so EW 2 beats EW 1; board 2: both tables −50, a tie (1 each).
    assert shown == [(("NS", "1"), "1"), (("NS", "2"), "2"), (("EW", "2"), "1"), (("EW", "1"), "2")]
    assert totals[("NS", "1")].mp == 3 and totals[("NS", "1")].top == 4 and totals[("NS", "1")].pct == 75


def test_howell_pairs_are_one_field():
    results = [Result(1, "1", "2", 420), Result(1, "3", "4", 170), Result(2, "4", "1", 0), Result(2, "2", "3", 50)]
    _, totals, standings, two = score_field(results, "mp")
    assert not two
    # Pair 1: 2 + 2, pair 2: 0 + 2, pair 3: 0 + 0, pair 4: 2 + 0 units.
    assert [s.contestant for s in standings] == ["1", "2", "4", "3"]
    assert [s.display for s in standings] == ["1", "2=", "2=", "4"]


def test_procedural_penalty_is_deducted_before_ranking_and_not_from_opponents():
    _, totals, _, _ = score_field(mitchell(), "mp")
    ledger = Ledger()
    ledger.add(Penalty(("NS", "1"), "S1", 2, "mp", "Law 90 B2: unduly slow play", board=1, by="TD"))
    deductions = ledger.deductions("S1", "mp")
    assert deductions == {("NS", "1"): 2}
    standings = ranking(totals, by="mp", penalties=deductions)
    ns = {s.contestant: s.value for s in standings}
    assert ns[("NS", "1")] == 1 and ns[("NS", "2")] == 1  # 3 − 2 ties with 1
    assert ns[("EW", "1")] == 1 and ns[("EW", "2")] == 3  # opponents untouched (laws.md §10.2)


def test_penalty_in_fractions_of_a_top():
    ledger = Ledger([Penalty("7", "S1", F(1, 4), "top", "Law 90 B3: comparing scores")])
    assert ledger.deductions("S1", "mp", top=24) == {"7": 6}
    with pytest.raises(LedgerError, match="board's top"):
        ledger.deductions("S1", "mp")


def test_penalty_validation():
    with pytest.raises(LedgerError, match="unit"):
        Penalty("7", "S1", 1, "points", "x")
    with pytest.raises(LedgerError, match="Law 91"):
        Penalty("7", "S1", 1, "mp", "x", kind="fine")
    with pytest.raises(LedgerError, match="reason"):
        Penalty("7", "S1", 1, "mp", "")
    assert Penalty("7", "S1", 3, "imps", "Law 91: disorderly", kind="disciplinary").law == 91


def test_79C_correction_period_defaults_to_30_minutes_after_publication():
    period = CorrectionPeriod()
    t0 = datetime(2024, 5, 1, 22, 0)
    assert period.is_open(t0)  # not yet published: always correctable
    period.publish(t0)
    assert period.ends_at == t0 + timedelta(minutes=30)
    entry = period.correct(("b1", 0), 420, 450, by="scorer", at=t0 + timedelta(minutes=29), reason="card misread")
    assert not entry.post_period
    with pytest.raises(LedgerError, match="Law 79 C"):
        period.correct(("b1", 0), 450, 420, by="scorer", at=t0 + timedelta(minutes=31), reason="again")
    late = period.correct(("b1", 0), 450, 420, by="TD", at=t0 + timedelta(hours=2), reason="TD certain",
                          director_override=True)
    assert late.post_period and len(period.log) == 2


def test_79C_later_period_set_by_the_sponsoring_organisation():
    period = CorrectionPeriod(minutes=60)
    period.publish(datetime(2024, 5, 1, 22, 0))
    assert period.is_open(datetime(2024, 5, 1, 22, 59))
