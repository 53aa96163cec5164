"""Law 78 B IMPs (laws.md §8.2), team matches and Law 86 B (§9.3), Butler and cross-IMPs."""
from bisect import bisect_right
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bidwire.core.score import parse_contract, score
from bidwire_host.scoring import Artificial, Assigned, Result
from bidwire_host.scoring.imps import (
    IMP_SCALE,
    butler_board,
    butler_datum,
    butler_trim,
    cross_imps_board,
    imps,
    match_pairs,
    round_to_10,
    team_board,
    team_imps,
)

# An independent copy of the scale: the lower bounds of each band from giove91/bridge-scoring,
# tournament/score_to_imps.py (commit 1f218b5876093246ccc9d1525d3315e8b631efb0). endplay has no IMP table.
OTHER_COPY = (20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500, 1750, 2000,
              2250, 2500, 3000, 3500, 4000)


def other_imps(diff):
    value = bisect_right(OTHER_COPY, abs(diff))  # how many lower bounds |d| has reached
    return -value if diff < 0 else value


def test_imp_table_typed_from_laws_md_has_24_bands():
    assert len(IMP_SCALE) == 24 and IMP_SCALE[0] == (10, 0) and IMP_SCALE[-1] == (3990, 23)


def test_imp_scale_agrees_with_an_independent_copy_for_every_difference():
    bad = [d for d in range(-8000, 8010, 10) if imps(d) != other_imps(d)]
    assert not bad, bad[:10]


@pytest.mark.parametrize("diff,want", [(0, 0), (10, 0), (20, 1), (40, 1), (50, 2), (420, 9), (430, 10),
                                       (3990, 23), (4000, 24), (7600, 24), (-4000, -24), (-30, -1)])
def test_imp_band_edges(diff, want):
    assert imps(diff) == want


@given(st.integers(-800, 800).map(lambda x: x * 10))
def test_imps_are_antisymmetric_and_bounded(d):
    assert imps(-d) == -imps(d) and abs(imps(d)) <= 24


# laws.md §8.2 team examples: each table from the team's point of view, with the contract that made it.
# id, table 1 (team NS): (contract, vulnerable, tricks, sign), table 2 (team EW): same, net, IMPs.
TEAM_VECTORS = [
    ("T1", ("4S", False, 10, +1), ("4S", False, 11, -1), -30, -1),  # +420 / −450 (4S+1 by opponents)
    ("T2", ("4S", True, 10, +1), ("3S", False, 10, -1), 450, 10),  # +620 / −170
    ("T3", ("6H", True, 12, +1), ("4H", True, 12, -1), 750, 13),  # +1430 / −680
    ("T4", ("3H", True, 8, +1), ("3S", False, 9, +1), 40, 1),  # −100 (3H−1 V) / +140 (3S= by us)
    ("T5", ("4SX", True, 6, +1), ("4H", True, 10, -1), -1720, -17),  # −1100 our sacrifice / −620
    ("T6", ("7NT", True, 13, +1), ("6NT", True, 12, -1), 780, 13),  # +2220 / −1440
    ("T7", ("4HX", True, 10, +1), ("5SX", True, 8, +1), -10, 0),  # +790 / −800 (our sacrifice)
]


def team_view(contract, vul, tricks, sign):
    level, strain, dbl = parse_contract(contract)
    return sign * score(level, strain, dbl, vul, tricks)


@pytest.mark.parametrize("vid,t1,t2,net,want", TEAM_VECTORS, ids=[v[0] for v in TEAM_VECTORS])
def test_82_team_vectors(vid, t1, t2, net, want):
    ours1, ours2 = team_view(*t1), team_view(*t2)
    assert ours1 + ours2 == net, vid
    # Table 1: our team NS (NS score = our score); table 2: our team EW (NS score = −our score).
    r1 = Result(1, "us", "them", ours1)
    r2 = Result(1, "them", "us", -ours2)
    assert team_imps(r1, r2) == (want, -want)
    rows = team_board([r2, r1])
    assert (rows[1].imp_ns, rows[0].imp_ns) == (want, -want)  # each team's IMPs on the row where it sat NS


def test_93_86B_knockout_non_balancing_worked_example():
    # Team A (NS, non-offending) assigned +140; team B (EW, offending) assigned −620 (4S= for NS).
    # At the other table B sat NS and scored +170. A: +140 − 170 = −30 → −1; B: −620 + 170 = −450 → −10,
    # i.e. +10 to A. Both get the average: A +4.5, B −4.5.
    r1 = Result(5, "A", "B", adjusted=Assigned(140, 620))
    r2 = Result(5, "B", "A", 170)
    assert team_imps(r1, r2) == (F(9, 2), F(-9, 2))


def test_93_teams_artificial_is_three_imps():
    r1 = Result(5, "A", "B", adjusted=Artificial("A+", "A-"))
    r2 = Result(5, "B", "A", 420)
    assert team_imps(r1, r2) == (3, -3)
    assert team_imps(Result(5, "A", "B", adjusted=Artificial("A", "A")), r2) == (0, 0)


def test_teams_unmatched_result_is_flagged_not_scored():
    rows = team_board([Result(1, "A", "B", 420), Result(1, "B", "A", -50), Result(1, "C", "D", 100)])
    assert rows[0].imp_ns == 10 and rows[1].imp_ns == -10
    assert rows[2].imp_ns is None and "no result from the other table" in rows[2].problem


def test_teams_without_names_pair_the_two_results():
    pairs, left = match_pairs([Result(1, None, None, 420), Result(1, None, None, 170)])
    assert len(pairs) == 1 and not left


# Butler: datum = mean after dropping ⌊n/10⌋ (at least 1 from n = 5) at each end, rounded to 10.
@pytest.mark.parametrize("n,trim", [(1, 0), (4, 0), (5, 1), (19, 1), (20, 2), (29, 2), (30, 3), (1000, 100)])
def test_butler_trim_rule(n, trim):
    assert butler_trim(n) == trim


def test_butler_datum_stevenson_example():
    # blakjak.org/butlr1.htm: 620 × 4 tables, 170 × 3; "Average (Removing Top/Bottom) = 440".
    # Dropping one 620 and one 170 leaves 620, 620, 620, 170, 170: 2200 / 5 = 440.
    assert butler_datum([620] * 4 + [170] * 3) == 440


def test_butler_datum_untrimmed_and_trimmed_22_tables():
    # 3 × 980, 11 × 480, 7 × 450, 1 × −50 (22 tables): untrimmed 11320 / 22 = 514.55 → 510.
    scores = [980] * 3 + [480] * 11 + [450] * 7 + [-50]
    assert butler_datum(scores, trim=0) == 510
    # Default trim for 22 is 2 each end: drop −50, 450 and 980, 980; (980 + 11·480 + 6·450) / 18 = 8960 / 18
    # = 497.8 → 500.
    assert butler_datum(scores) == 500


def test_butler_imps_against_the_datum():
    scores = [980] * 3 + [480] * 11 + [450] * 7 + [-50]
    rows = butler_board([Result(1, str(i), str(i), s) for i, s in enumerate(scores)], trim=0)
    # datum 510: 980 − 510 = 470 → 10; 480 → −30 → −1; 450 → −60 → −2; −50 → −560 → −11.
    assert [rows[i].imp_ns for i in (0, 3, 14, 21)] == [10, -1, -2, -11]
    assert all(r.imp_ew == -r.imp_ns for r in rows)


def test_round_to_10_halves_away_from_zero():
    assert [round_to_10(x) for x in (F(15, 2), 5, -5, F(-29, 2), 15, F(1499, 100))] == [10, 10, -10, -10, 20, 10]


def test_butler_keeps_one_score_however_much_is_trimmed():
    assert butler_datum([100, 200, 300], trim=5) == 200


def test_butler_artificial_is_left_out_of_the_datum():
    rows = butler_board([Result(1, "1", "1", 420), Result(1, "2", "2", 420),
                         Result(1, "3", "3", adjusted=Artificial("A-", "A+"))])
    assert [r.imp_ns for r in rows] == [0, 0, -3] and rows[2].imp_ew == 3


# Cross-IMPs: sum against every other result, divided by n − 1.
def test_cross_imps_by_hand():
    # 420: vs 420 0, vs 450 −1, vs 170 +6 (250), vs −50 +10 (470) = 15/4.
    # 450: +1 +1 +7 (280) +11 (500) = 20/4.  170: −6 −6 −7 +6 (220) = −13/4.  −50: −10 −10 −11 −6 = −37/4.
    rows = cross_imps_board([Result(1, str(i), str(i), s) for i, s in enumerate((420, 420, 450, 170, -50))])
    assert [r.imp_ns for r in rows] == [F(15, 4), F(15, 4), 5, F(-13, 4), F(-37, 4)]
    assert all(r.imp_ew == -r.imp_ns for r in rows)


def test_cross_imps_artificial_and_lone_result():
    rows = cross_imps_board([Result(1, "1", "1", 420), Result(1, "2", "2", adjusted=Artificial("A+", "A-"))])
    assert rows[0].imp_ns == 0 and rows[1].imp_ns == 3 and rows[1].imp_ew == -3


@given(st.lists(st.integers(-300, 300).map(lambda x: x * 10), min_size=2, max_size=25))
def test_cross_imps_match_the_literal_definition_and_sum_to_zero(scores):
    rows = cross_imps_board([Result(1, str(i), str(i), s) for i, s in enumerate(scores)])
    n = len(scores)
    for i, row in enumerate(rows):
        assert row.imp_ns == F(sum(imps(scores[i] - t) for j, t in enumerate(scores) if j != i), n - 1)
    assert sum(r.imp_ns for r in rows) == 0


@given(st.lists(st.integers(-300, 300).map(lambda x: x * 10), min_size=1, max_size=25))
def test_butler_datum_lies_within_the_scores(scores):
    d = butler_datum(scores)
    assert min(scores) - 5 <= d <= max(scores) + 5 and d % 10 == 0
