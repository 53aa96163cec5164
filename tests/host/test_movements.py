"""Movements (issue 4, part 4): hand-checked cases and the invariants every movement keeps — above all Law 15,
a pair never plays a board twice (docs/movements.md)."""
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bidwire_host.event.movecards import COLS, MOVE_LINES, move_text
from bidwire_host.event.movements import MovementError, PairId, build, howell, mitchell, team_match


def NS(n):
    return PairId(n, "NS")


def EW(n):
    return PairId(n, "EW")


def P(n):
    return PairId(n)


def grid(plan, round_no):
    """{table: (ns, ew, boards)} of one round."""
    return {p.table: (p.ns, p.ew, p.boards) for p in plan.in_round(round_no)}


# --- hand-checked cases -------------------------------------------------------------------------------------

def test_3_table_mitchell_worked_by_hand():
    # NS stay; EW move up one table (3 -> 1), boards move down one table (1 -> 3); 2 boards a round.
    plan = mitchell(3, 2)
    assert (plan.title, plan.rounds, plan.sets) == ("3-table Mitchell", 3, 3)
    assert grid(plan, 1) == {1: (NS(1), EW(1), (1, 2)), 2: (NS(2), EW(2), (3, 4)), 3: (NS(3), EW(3), (5, 6))}
    assert grid(plan, 2) == {1: (NS(1), EW(3), (3, 4)), 2: (NS(2), EW(1), (5, 6)), 3: (NS(3), EW(2), (1, 2))}
    assert grid(plan, 3) == {1: (NS(1), EW(2), (5, 6)), 2: (NS(2), EW(3), (1, 2)), 3: (NS(3), EW(1), (3, 4))}


def test_5_table_mitchell_ew_1_plays_every_set_once():
    # EW 1 at table r in round r; the set there is 2r - 1 (mod 5): sets 1, 3, 5, 2, 4.
    plan = mitchell(5, 3)
    assert [plan.sitting(EW(1), r).table for r in range(1, 6)] == [1, 2, 3, 4, 5]
    assert [plan.sitting(EW(1), r).set for r in range(1, 6)] == [1, 3, 5, 2, 4]


def test_4_table_skip_mitchell_skips_after_round_2():
    # Without the skip EW 1 would reach table 3 in round 3 and meet set 1 (boards 1-2) again. With it EW 1
    # goes T1, T2, T4 and never meets NS 3; a 4th round would be the "revenge round" against NS 1.
    plan = mitchell(4, 2)
    assert (plan.title, plan.rounds, plan.sets) == ("4-table skip Mitchell", 3, 4)
    assert [plan.sitting(EW(1), r).table for r in (1, 2, 3)] == [1, 2, 4]
    assert [plan.sitting(EW(1), r).boards for r in (1, 2, 3)] == [(1, 2), (5, 6), (3, 4)]
    assert grid(plan, 3) == {1: (NS(1), EW(2), (5, 6)), 2: (NS(2), EW(3), (7, 8)), 3: (NS(3), EW(4), (1, 2)),
                             4: (NS(4), EW(1), (3, 4))}
    with pytest.raises(MovementError, match="rounds of a 4-table skip Mitchell must be a whole number 1-3"):
        mitchell(4, 2, rounds=4)


@pytest.mark.parametrize("tables, skip_round", [(6, 4), (8, 5), (14, 8)])
def test_skip_comes_at_the_start_of_the_round_after_half_way(tables, skip_round):
    # Published rule (EBU/ACBL director guides): with 6 tables EW skip at the start of round 4, with 8 at the
    # start of round 5, with 14 after round 7.
    plan = mitchell(tables, 2)
    moves = [plan.sitting(EW(1), r + 1).table - plan.sitting(EW(1), r).table for r in range(1, plan.rounds)]
    assert moves == [1] * (skip_round - 2) + [2] + [1] * (plan.rounds - skip_round)


def test_4_table_relay_mitchell_worked_by_hand():
    # Tables 1 and 4 share a set; the relay sits between tables 2 and 3. Boards move down one place along
    # [T1&T4, T2, relay, T3]: round 1 sets 1, 2, 4 (relay), 3; round 2 the set on the relay (4) comes to T2,
    # T3's set (3) goes onto the relay, the shared set (1) goes to T3 and T2's set (2) is shared.
    plan = mitchell(4, 2, even="relay")
    assert (plan.title, plan.rounds, plan.sets) == ("4-table relay Mitchell", 4, 4)
    assert [(p.table, p.set, p.shared_with) for p in plan.in_round(1)] == [(1, 1, (4,)), (2, 2, ()), (3, 3, ()),
                                                                          (4, 1, (1,))]
    assert plan.relay(1) == (4,) and plan.relay(2) == (3,)
    assert [p.set for p in plan.in_round(2)] == [2, 4, 1, 2]
    # The shared tables start the set at different boards, so both can play at once.
    assert plan.at(1, 1).boards == (1, 2) and plan.at(4, 1).boards == (2, 1)
    # EW 1 plays T1 (set 1), T2 (set 4), T3 (set 2), T4 (set 3): every set once.
    assert [plan.sitting(EW(1), r).set for r in (1, 2, 3, 4)] == [1, 4, 2, 3]


def test_6_pair_howell():
    # The circle method: pair 6 stays NS at table 1 and meets pair r in round r; at table 2 pair r+1 meets
    # r-1, at table 3 r+2 meets r-2 (pairs 1-5 counted round a circle). Sets worked by hand: with 5 sets every
    # pair plays every set once only if all three tables share one set in some round (round 5 here).
    plan = howell(3, 3)
    assert (plan.title, plan.rounds, plan.sets) == ("3-table Howell", 5, 5)
    pairings = [[(p.ns.number, p.ew.number) for p in plan.in_round(r)] for r in range(1, 6)]
    assert pairings == [[(6, 1), (2, 5), (3, 4)], [(6, 2), (3, 1), (4, 5)], [(6, 3), (4, 2), (5, 1)],
                        [(6, 4), (5, 3), (1, 2)], [(6, 5), (1, 4), (2, 3)]]
    sets = [[p.set for p in plan.in_round(r)] for r in range(1, 6)]
    assert sets == [[1, 4, 2], [2, 4, 3], [3, 1, 2], [4, 1, 3], [5, 5, 5]]
    # pair 1: set 1 (R1 v 6), 4 (R2 v 3), 2 (R3 v 5), 3 (R4 v 2), 5 (R5 v 4)
    assert [plan.sitting(P(1), r).set for r in range(1, 6)] == [1, 4, 2, 3, 5]
    assert plan.at(1, 5).boards == (13, 14, 15) and plan.at(2, 5).boards == (14, 15, 13)
    assert plan.at(3, 5).boards == (15, 13, 14)


def test_4_pair_howell_both_tables_share_the_round_set():
    plan = howell(2, 4)
    assert [[(p.ns.number, p.ew.number, p.set) for p in plan.in_round(r)] for r in (1, 2, 3)] == [
        [(4, 1, 1), (2, 3, 1)], [(4, 2, 2), (3, 1, 2)], [(4, 3, 3), (1, 2, 3)]]
    assert plan.at(2, 1).boards == (3, 4, 1, 2)


def test_8_pair_howell_pairings_are_the_published_ones():
    # bridgecentral.com "4 Table Howell": round 1 8-1 2-7 3-6 5-4 (we seat 4 NS against 5).
    plan = howell(4, 2)
    assert [{p.ns.number, p.ew.number} for p in plan.in_round(1)] == [{8, 1}, {2, 7}, {3, 6}, {4, 5}]
    # every pair moves to where the next lower pair sat (pair 1 to pair 7's place)
    for r in range(1, 7):
        for p in plan.in_round(r):
            nxt = plan.at(p.table, r + 1)
            assert [q.number % 7 for q in (p.ns, p.ew) if q.number != 8] == \
                   [(q.number - 1) % 7 for q in (nxt.ns, nxt.ew) if q.number != 8]


def test_two_table_team_match():
    plan = team_match(4)
    home_ns, home_ew, away_ns, away_ew = NS(1), EW(1), NS(2), EW(2)
    assert grid(plan, 1) == {1: (home_ns, away_ew, (1, 2, 3, 4)), 2: (away_ns, home_ew, (5, 6, 7, 8))}
    assert grid(plan, 2) == {1: (home_ns, away_ew, (5, 6, 7, 8)), 2: (away_ns, home_ew, (1, 2, 3, 4))}
    assert team_match(2, rounds=4).at(2, 3).boards == (7, 8)


def test_phantom_pair_makes_a_sit_out_table():
    plan = mitchell(5, 2).with_phantom(NS(5))
    assert [p.table for p in plan.in_round(1) if p.sit_out] == [5]
    assert [plan.at(5, r).ew for r in range(1, 6)] == [EW(5), EW(4), EW(3), EW(2), EW(1)]
    assert plan.sitting(EW(4), 2).sit_out and plan.sitting(NS(5), 1) is None
    with pytest.raises(MovementError, match="NS 6 is not a pair of the 5-table Mitchell"):
        mitchell(5, 2).with_phantom(NS(6))


# --- bad input ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: mitchell(1, 2), "a Mitchell needs 3 tables or more, not 1"),
    (lambda: mitchell(2, 2), "for 2 tables play a Howell"),
    (lambda: mitchell(5, 2, even="skip"), "only for an even number of tables"),
    (lambda: mitchell(6, 2, even="arrow"), 'even must be "skip" or "relay"'),
    (lambda: mitchell(5, 0), "boards per round must be a whole number 1-36, not 0"),
    (lambda: mitchell(5, 2, rounds=6), "rounds of a 5-table Mitchell must be a whole number 1-5, not 6"),
    (lambda: howell(9, 2), "tables of a Howell must be a whole number 2-8, not 9"),
    (lambda: howell(1, 2), "tables of a Howell must be a whole number 2-8, not 1"),
    (lambda: team_match(4, rounds=3), "rounds come in twos: 3 rounds is odd"),
    (lambda: build({"type": "swiss"}, 2), "unknown movement 'swiss': one of mitchell, howell, teams"),
    (lambda: build({"type": "howell", "tables": 4, "even": "skip"}, 2), "only for a Mitchell"),
    (lambda: build({"type": "teams", "tables": 4}, 2), "a team match here is two tables"),
    (lambda: build({"type": "mitchell", "tables": "7"}, 2), "tables of a Mitchell must be a whole number"),
])
def test_bad_movements_say_what_to_change(call, message):
    with pytest.raises(MovementError, match=re.escape(message)):
        call()


# --- invariants -------------------------------------------------------------------------------------------------

@st.composite
def movements(draw, phantom=False):
    kind = draw(st.sampled_from(["odd", "skip", "relay", "howell", "teams"]))
    bpr = draw(st.integers(1, 5))
    first = draw(st.sampled_from([1, 1, 25]))
    if kind == "howell":
        plan = howell(draw(st.integers(2, 8)), bpr, first_board=first)
    elif kind == "teams":
        plan = team_match(bpr, rounds=2 * draw(st.integers(1, 6)), first_board=first)
    elif kind == "odd":
        plan = mitchell(draw(st.integers(1, 15)) * 2 + 1, bpr, first_board=first)
    else:
        plan = mitchell(draw(st.integers(2, 16)) * 2, bpr, even=kind, first_board=first)
    rounds = draw(st.integers(1, plan.full_rounds)) if kind != "teams" and draw(st.booleans()) else None
    if rounds is not None:  # a curtailed movement
        plan = build({"type": plan.kind.split()[-1], "tables": plan.tables, "rounds": rounds,
                      "even": kind if kind in ("skip", "relay") else None}, bpr, first)
    if phantom and kind != "teams" and draw(st.booleans()):
        plan = plan.with_phantom(draw(st.sampled_from(plan.pairs())))
    return plan


def plays_of(plan, pair):
    return [there for r in range(1, plan.rounds + 1) if (there := plan.sitting(pair, r)) and not there.sit_out]


@settings(max_examples=200, deadline=None)
@given(movements())
def test_law_15_no_pair_plays_a_board_twice(plan):
    for pair in plan.pairs():
        boards = [b for p in plays_of(plan, pair) for b in p.boards]
        assert len(boards) == len(set(boards)), f"{pair} plays a board twice in the {plan.title}"


@settings(max_examples=200, deadline=None)
@given(movements())
def test_each_round_seats_every_pair_once_at_every_table_once(plan):
    for r in range(1, plan.rounds + 1):
        row = plan.in_round(r)
        assert sorted(p.table for p in row) == list(range(1, plan.tables + 1))
        seated = [q for p in row for q in p.pairs()]
        assert len(seated) == len(set(seated)) == 2 * plan.tables  # no pair at two tables
    assert len(plan.plays) == plan.rounds * plan.tables


@settings(max_examples=200, deadline=None)
@given(movements())
def test_boards_per_round_consistent(plan):
    for p in plan.plays:
        assert len(p.boards) == plan.boards_per_round
        assert sorted(p.boards) == list(plan.board_numbers(p.set))
        assert set(p.shared_with) == {q.table for q in plan.in_round(p.round) if q.set == p.set} - {p.table}
        if plan.boards_per_round > len(p.shared_with):  # tables sharing a set start on different boards
            starts = [q.boards[0] for q in plan.in_round(p.round) if q.set == p.set]
            assert len(starts) == len(set(starts))


@settings(max_examples=200, deadline=None)
@given(movements())
def test_opponents_meet_at_most_once(plan):
    meetings = Counter(frozenset(p.pairs()) for p in plan.plays)
    if plan.kind == "teams":  # a team match is one match: the same two pairs meet at each table all along
        assert set(meetings) == {frozenset({NS(1), EW(2)}), frozenset({NS(2), EW(1)})}
        return
    assert max(meetings.values()) == 1
    if plan.kind.endswith("mitchell"):  # NS against EW only
        assert all({q.line for q in m} == {"NS", "EW"} for m in meetings)
    if plan.rounds == plan.full_rounds and plan.kind in ("mitchell", "relay mitchell", "howell"):
        n = len(plan.pairs())
        assert len(meetings) == (n // 2) ** 2 if "mitchell" in plan.kind else n * (n - 1) // 2


@settings(max_examples=200, deadline=None)
@given(movements())
def test_every_board_is_played_the_same_number_of_times(plan):
    times = Counter(b for p in plan.plays for b in p.boards)
    complete = plan.rounds == plan.full_rounds
    # The exception: a curtailed relay Mitchell or Howell, whose sets out of play (on the relay) vary by round.
    if complete or plan.kind in ("mitchell", "skip mitchell"):
        assert set(times) == set(plan.boards())
        assert len(set(times.values())) == 1, f"{plan.title}: {times}"
    if complete and plan.kind in ("mitchell", "relay mitchell", "howell"):  # every pair plays every board
        assert all(len(plays_of(plan, q)) * plan.boards_per_round == len(plan.boards()) for q in plan.pairs())
    if plan.kind == "howell" and plan.tables >= 4:  # a Room square: no two tables share a set
        assert all(not p.shared_with for p in plan.plays)


@settings(max_examples=100, deadline=None)
@given(movements())
def test_team_match_each_team_holds_each_board_once_each_way(plan):
    if plan.kind != "teams":
        return
    for b in plan.boards():
        at = [p for p in plan.plays if b in p.boards]
        assert sorted((p.ns, p.ew) for p in at) == [(NS(1), EW(2)), (NS(2), EW(1))]


@settings(max_examples=150, deadline=None)
@given(movements(), st.data())
def test_phantom_only_empties_its_own_seats(plan, data):
    pair = data.draw(st.sampled_from(plan.pairs()))
    ghost = plan.with_phantom(pair)
    for before, after in zip(plan.plays, ghost.plays, strict=True):
        assert after.sit_out == (pair in before.pairs())
        assert (after.set, after.boards) == (before.set, before.boards)
        assert set(after.pairs()) == set(before.pairs()) - {pair}


_PAIR = re.compile(r"(NS|EW) (?:(stay)(?:, as (NS|EW))?|to table (\d+)|to (\d+) as (NS|EW)|(sit out))$")


def follow(text):
    """Parse a move text back into {seat: (table or None for stay/sit out, new seat)} and the board phrase."""
    lines = [text[i:i + COLS].strip() for i in range(0, len(text), COLS)]
    assert 1 <= len(lines) <= MOVE_LINES and all(len(x) <= COLS for x in lines)
    moves, boards = {}, None
    for line in lines:
        m = _PAIR.match(line)
        if m:
            seat, stay, stay_as, to, to2, as2, out = m.groups()
            moves[seat] = ("out", None) if out else ("here", stay_as or seat) if stay else \
                (int(to), seat) if to else (int(to2), as2)
        else:
            boards = line
    return moves, boards


@settings(max_examples=150, deadline=None)
@given(movements(phantom=True))
def test_the_move_text_leads_every_pair_and_board_to_the_next_round(plan):
    for p in plan.plays:
        text = move_text(plan, p.table, p.round)
        if p.round == plan.rounds:
            assert text == "End of session  Thank you"
            continue
        moves, boards = follow(text)
        assert set(moves) == {seat for seat, pair in (("NS", p.ns), ("EW", p.ew)) if pair is not None}
        for seat, pair in (("NS", p.ns), ("EW", p.ew)):
            if pair is None:
                continue
            there = plan.sitting(pair, p.round + 1)
            where, new_seat = moves[seat]
            if there is None or there.sit_out:
                assert where == "out"
            else:
                assert (there.table if where == "here" else where) == there.table
                assert new_seat == ("NS" if there.ns == pair else "EW")
        nxt = plan.tables_playing(p.set, p.round + 1)
        later = [r for r in range(p.round + 2, plan.rounds + 1) if plan.tables_playing(p.set, r)]
        if not nxt:
            expected = "Boards: relay" if later else "Boards: finished"
        elif nxt == (p.table,):
            expected = "Boards stay"
        else:
            expected = f"Boards: table {nxt[0]}" if len(nxt) == 1 else "Boards: " + "+".join(f"T{t}" for t in nxt)
        assert boards == expected


@pytest.mark.parametrize("tables,seating", [(4, "howell"), (8, "howell"), (5, "mitchell"), (6, "mitchell")])
def test_a_barometer_puts_every_table_on_the_rounds_boards(tables, seating):
    """Issue 37: in round r every table plays set r, in order; the pairs meet as the Howell (or Mitchell) they are
    seated as, each pair meeting another at most once, and no pair plays a board twice (Law 15)."""
    plan = build({"type": "barometer", "tables": tables, "seating": seating}, 2)
    base = build({"type": seating, "tables": tables}, 2)
    assert (plan.rounds, plan.tables) == (base.rounds, base.tables)
    for r in range(1, plan.rounds + 1):
        assert {p.boards for p in plan.in_round(r)} == {(2 * r - 1, 2 * r)}
        assert [(p.table, p.ns, p.ew) for p in plan.in_round(r)] == [(p.table, p.ns, p.ew) for p in base.in_round(r)]
    played = Counter((q, b) for p in plan.plays for q in p.pairs() for b in p.boards)
    assert set(played.values()) == {1}
    met = Counter(frozenset(p.pairs()) for p in plan.plays)
    assert set(met.values()) == {1}


def test_a_barometer_seated_neither_way_is_refused():
    with pytest.raises(MovementError, match="seating"):
        build({"type": "barometer", "tables": 4, "seating": "swiss"}, 2)
    with pytest.raises(MovementError, match="only a barometer"):
        build({"type": "howell", "tables": 4, "seating": "mitchell"}, 2)


def test_an_arrow_switched_round_seats_each_ew_pair_ns():
    """Issue 37: at the switched rounds every table's EW pair sits NS (the boards turned), the pairs otherwise where
    the Mitchell puts them; the move card says who changes seats; no pair plays a board twice."""
    plain = build({"type": "mitchell", "tables": 7}, 2)
    switched = build({"type": "mitchell", "tables": 7, "arrow_switch": [6, 7]}, 2)
    for p, q in zip(plain.plays, switched.plays, strict=True):
        if p.round in (6, 7):
            assert (q.ns, q.ew, q.boards, q.switched) == (p.ew, p.ns, p.boards, True)
        else:
            assert q == p
    assert move_text(switched, 1, 5).startswith("NS stay, as EW  EW to 2 as NS")
    played = Counter((pair, b) for p in switched.plays for pair in p.pairs() for b in p.boards)
    assert set(played.values()) == {1}
    with pytest.raises(MovementError, match="arrow_switch"):
        build({"type": "mitchell", "tables": 7, "arrow_switch": [8]}, 2)
    with pytest.raises(MovementError, match="arrow_switch"):
        build({"type": "howell", "tables": 4, "arrow_switch": [1]}, 2)
