"""A teams event's schedule (issue 38): the round robin against the published Berger tables, and the movement of
the matches against what a teams director expects of it: each match at two tables with the teams in the other
directions, the two tables playing the same boards (one set each, swapped at half time), every team meeting every
other once in a round robin, no pair playing a board twice (Law 15)."""
from collections import Counter
from itertools import combinations

import pytest

from bidwire_host.event.movements import MovementError
from bidwire_host.event.team_schedule import berger, match_movement, match_of

# FIDE Handbook C.05, Annex 1 (Berger tables), as Chris Fox's "Berger Tables" page prints them
# (http://c.w.fox.tripod.com/chess/berger.html): round by round, first named at home; an odd number of teams
# plays the next even table with the highest number as the bye.
PRINTED = {
    4: "1-4 2-3 / 4-3 1-2 / 2-4 3-1",
    6: "1-6 2-5 3-4 / 6-4 5-3 1-2 / 2-6 3-1 4-5 / 6-5 1-4 2-3 / 3-6 4-2 5-1",
    8: "1-8 2-7 3-6 4-5 / 8-5 6-4 7-3 1-2 / 2-8 3-1 4-7 5-6 / 8-6 7-5 1-4 2-3 / 3-8 4-2 5-1 6-7 / "
       "8-7 1-6 2-5 3-4 / 4-8 5-3 6-2 7-1",
    10: "1-10 2-9 3-8 4-7 5-6 / 10-6 7-5 8-4 9-3 1-2 / 2-10 3-1 4-9 5-8 6-7 / 10-7 8-6 9-5 1-4 2-3 / "
        "3-10 4-2 5-1 6-9 7-8 / 10-8 9-7 1-6 2-5 3-4 / 4-10 5-3 6-2 7-1 8-9 / 10-9 1-8 2-7 3-6 4-5 / "
        "5-10 6-4 7-3 8-2 9-1",
}


def printed(n):
    return [[tuple(int(x) for x in match.split("-")) for match in row.split()] for row in PRINTED[n].split(" / ")]


@pytest.mark.parametrize("n", sorted(PRINTED))
def test_the_round_robin_is_the_printed_berger_table(n):
    assert berger(n) == printed(n)


def test_an_odd_number_of_teams_plays_the_next_table_with_a_bye():
    five = [[m for m in row if 6 not in m] for row in printed(6)]
    assert berger(5) == five
    assert all(len({t for m in row for t in m}) == 4 for row in berger(5))  # one team out each round
    assert Counter(t for row in printed(6) for m in row if 6 in m for t in m if t != 6) == Counter(range(1, 6))


@pytest.mark.parametrize("n", range(2, 17))
def test_every_team_meets_every_other_once(n):
    rounds = berger(n)
    met = Counter(frozenset(m) for row in rounds for m in row)
    assert set(met) == {frozenset(p) for p in combinations(range(1, n + 1), 2)}
    assert set(met.values()) == {1}
    for row in rounds:
        seated = [t for m in row for t in m]
        assert len(seated) == len(set(seated))


def test_a_match_is_two_tables_with_the_boards_swapped_at_half_time():
    plan = match_movement("round-robin", berger(4), 4, boards_per_round=3)
    assert (plan.tables, plan.rounds, plan.sets) == (4, 6, 6)
    first = {p.table: (p.ns.number, p.ew.number, p.boards) for p in plan.in_round(1)}
    second = {p.table: (p.ns.number, p.ew.number, p.boards) for p in plan.in_round(2)}
    assert {p.ns.line + p.ew.line for p in plan.plays} == {"NSEW"}
    # match 1 of round 1: 1 (home) v 4; match 2: 2 v 3; all matches play boards 1-6 in this match round
    assert first == {1: (1, 4, (1, 2, 3)), 2: (4, 1, (4, 5, 6)), 3: (2, 3, (1, 2, 3)), 4: (3, 2, (4, 5, 6))}
    assert second == {1: (1, 4, (4, 5, 6)), 2: (4, 1, (1, 2, 3)), 3: (2, 3, (4, 5, 6)), 4: (3, 2, (1, 2, 3))}
    assert match_of(3, 2) == (1, 2, 2) and match_of(2, 5) == (3, 1, 1)


@pytest.mark.parametrize("n", range(2, 13))
def test_no_pair_plays_a_board_twice_and_each_match_plays_its_boards_at_both_tables(n):
    plan = match_movement("round-robin", berger(n), n, boards_per_round=2)
    seen = Counter((pair, b) for p in plan.plays for pair in p.pairs() for b in p.boards)
    assert set(seen.values()) == {1}
    for m in range(1, plan.rounds // 2 + 1):
        for table in range(1, plan.tables + 1, 2):
            halves = [plan.at(t, r) for r in (2 * m - 1, 2 * m) for t in (table, table + 1)]
            if halves[0] is None:
                continue
            home, away = halves[0].ns.number, halves[0].ew.number
            boards = {t: set() for t in (table, table + 1)}
            for p in halves:
                assert {p.ns.number, p.ew.number} == {home, away}
                boards[p.table] |= set(p.boards)
            assert boards[table] == boards[table + 1] and len(boards[table]) == 4


def test_a_draw_that_seats_a_team_twice_is_refused():
    with pytest.raises(MovementError, match="at most once"):
        match_movement("swiss-teams", [[(1, 2), (2, 3)]], 4, 2)
    with pytest.raises(MovementError, match="teams of a round robin"):
        berger(1)
