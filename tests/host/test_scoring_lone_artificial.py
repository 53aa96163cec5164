"""A lone artificial adjusted score (docs/scoring.md, "A lone artificial result under `mp`"): without factoring
the board's top is 0, so A+ weighs nothing in the ranking; with Neuberg factoring (the expected traveller) the
top is 2(E - 1) and A+ counts 60 % in the ranking as on the traveller."""
from fractions import Fraction

from bidwire_host.scoring.matchpoints import score_board
from bidwire_host.scoring.model import Artificial, Result
from bidwire_host.scoring.ranking import totals


def lone(factor, expected=None):
    rows = score_board([Result(1, "2", "3", adjusted=Artificial("A+", "A-"), table="2")], expected=expected,
                       factor=factor)
    return rows, totals(rows, two_fields=True)


def test_a_lone_artificial_score_under_mp_has_no_top_and_no_weight():
    rows, tot = lone(False)
    assert rows[0].top == 0 and rows[0].pct_ns == 60  # the traveller shows the award
    assert all(t.top == 0 and t.pct == 50 for t in tot.values())  # no weight: the empty ranking's 50 %


def test_a_lone_artificial_score_under_neuberg_counts_60_and_40_percent():
    rows, tot = lone(True, expected=3)
    assert rows[0].top == 4 and rows[0].mp_ns == Fraction(12, 5)
    assert sorted(t.pct for t in tot.values()) == [40, 60]
