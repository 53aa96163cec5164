"""The individuals (issue 37) against their published cards, typed here from the sources: the ACBL's two-table
one-winner individual (its guidance for small games, as bridgescoreplus.com/movements/recommended.html gives it:
starting seats and the cycle players move on), the Admatis 12-player, 11-round individual (admatis.com/bridzs,
"12players-11rounds-22boards.pdf", as github.com/thebridsk/bridgescorer keeps it: every table's seats and boards
of every round), and Ted Muller's 16-player, 12-round movement as the Bridge_pal project keeps it
(github.com/MarcinRubin/Bridge_pal, backend/bridge_movements/Individual_16_1.txt, each line N S E W and the board
set), with its cards for 13 and 14 players at 3 tables (Individual_13_1.txt, Individual_14_1.txt: the players no
table seats sit out). Every player meets the partners and opponents the card says, partners no one twice, and
never plays a board twice (Law 15)."""
from collections import Counter
from itertools import combinations

import pytest

from bidwire_host.event.individual import build, partnership, players_of, seat_text, seated_at, seats, sitting_out
from bidwire_host.event.movecards import move_text
from bidwire_host.event.movements import MovementError

CARD = """16 1 2 7 1 | 15 6 9 11 2 | 14 8 4 5 6 | 13 10 12 3 7
16 2 3 8 2 | 15 7 10 12 3 | 14 9 5 6 7 | 13 11 1 4 8
16 3 4 9 3 | 15 8 11 1 4 | 14 10 6 7 8 | 13 12 2 5 9
16 4 5 10 4 | 15 9 12 2 5 | 14 11 7 8 9 | 13 1 3 6 10
16 5 6 11 5 | 15 10 1 3 6 | 14 12 8 9 10 | 13 2 4 7 11
16 6 7 12 6 | 15 11 2 4 7 | 14 1 9 10 11 | 13 3 5 8 12
16 7 8 1 7 | 15 12 3 5 8 | 14 2 10 11 12 | 13 4 6 9 1
16 8 9 2 8 | 15 1 4 6 9 | 14 3 11 12 1 | 13 5 7 10 2
16 9 10 3 9 | 15 2 5 7 10 | 14 4 12 1 2 | 13 6 8 11 3
16 10 11 4 10 | 15 3 6 8 11 | 14 5 1 2 3 | 13 7 9 12 4
16 11 12 5 11 | 15 4 7 9 12 | 14 6 2 3 4 | 13 8 10 1 5
16 12 1 6 12 | 15 5 8 10 1 | 14 7 3 4 5 | 13 9 11 2 6"""


# The ACBL's: "NSEW at tables 1 and 2 are number 8, 1, 6, 2; and 5, 7, 3, 4. Player 8 is stationary at 1 NS, the
# rest move each round on this cycle: 1S>2S>1E>2N>2W>2E>1W>1S." Seven rounds, the boards shared by both tables.
ACBL_TWO = ((8, 1, 6, 2), (5, 7, 3, 4))
ACBL_CYCLE = ((1, "S"), (2, "S"), (1, "E"), (2, "N"), (2, "W"), (2, "E"), (1, "W"))

# Admatis's 12-player individual: round: table 1 | table 2 | table 3, each N S E W and its boards.
ADMATIS = """12 1 5 10 1-2 | 7 11 8 9 11-12 | 2 4 3 6 13-14
12 2 6 11 3-4 | 8 1 9 10 13-14 | 3 5 4 7 15-16
12 3 7 1 5-6 | 9 2 10 11 15-16 | 4 6 5 8 17-18
12 4 8 2 7-8 | 10 3 11 1 17-18 | 5 7 6 9 19-20
12 5 9 3 9-10 | 11 4 1 2 19-20 | 6 8 7 10 21-22
12 6 10 4 11-12 | 1 5 2 3 21-22 | 7 9 8 11 1-2
12 7 11 5 13-14 | 2 6 3 4 1-2 | 8 10 9 1 3-4
12 8 1 6 15-16 | 3 7 4 5 3-4 | 9 11 10 2 5-6
12 9 2 7 17-18 | 4 8 5 6 5-6 | 10 1 11 3 7-8
12 10 3 8 19-20 | 5 9 6 7 7-8 | 11 2 1 4 9-10
12 11 4 9 21-22 | 6 10 7 8 9-10 | 1 3 2 5 11-12"""


# Ted Muller's 13- and 14-player cards as Bridge_pal keeps them: a block of lines per table, a line per round
# (N S E W and the board set); here a line per round: table 1 | table 2 | table 3.
TED_13 = """4 9 12 11 1 | 5 7 10 6 5 | 8 2 13 3 9
5 10 13 12 2 | 6 8 11 7 6 | 9 3 1 4 10
6 11 1 13 3 | 7 9 12 8 7 | 10 4 2 5 11
7 12 2 1 4 | 8 10 13 9 8 | 11 5 3 6 12
8 13 3 2 5 | 9 11 1 10 9 | 12 6 4 7 13
9 1 4 3 6 | 10 12 2 11 10 | 13 7 5 8 1
10 2 5 4 7 | 11 13 3 12 11 | 1 8 6 9 2
11 3 6 5 8 | 12 1 4 13 12 | 2 9 7 10 3
12 4 7 6 9 | 13 2 5 1 13 | 3 10 8 11 4
13 5 8 7 10 | 1 3 6 2 1 | 4 11 9 12 5
1 6 9 8 11 | 2 4 7 3 2 | 5 12 10 13 6
2 7 10 9 12 | 3 5 8 4 3 | 6 13 11 1 7
3 8 11 10 13 | 4 6 9 5 4 | 7 1 12 2 8"""
TED_14 = """10 8 6 12 1 | 14 3 4 5 2 | 9 13 7 2 3
11 9 7 13 2 | 1 4 5 6 3 | 10 14 8 3 4
12 10 8 14 3 | 2 5 6 7 4 | 11 1 9 4 5
13 11 9 1 4 | 3 6 7 8 5 | 12 2 10 5 6
14 12 10 2 5 | 4 7 8 9 6 | 13 3 11 6 7
1 13 11 3 6 | 5 8 9 10 7 | 14 4 12 7 8
2 14 12 4 7 | 6 9 10 11 8 | 1 5 13 8 9
3 1 13 5 8 | 7 10 11 12 9 | 2 6 14 9 10
4 2 14 6 9 | 8 11 12 13 10 | 3 7 1 10 11
5 3 1 7 10 | 9 12 13 14 11 | 4 8 2 11 12
6 4 2 8 11 | 10 13 14 1 12 | 5 9 3 12 13
7 5 3 9 12 | 11 14 1 2 13 | 6 10 4 13 14
8 6 4 10 13 | 12 1 2 3 14 | 7 11 5 14 1
9 7 5 11 14 | 13 2 3 4 1 | 8 12 6 1 2"""


@pytest.mark.parametrize("players,card,out_each_round", [(13, TED_13, 1), (14, TED_14, 2)])
def test_the_three_table_individuals_with_sit_outs_are_teds_cards(players, card, out_each_round):
    """13 or 14 players at 3 tables: the card's seats and boards round by round; the players no table seats sit
    the round out (each the same number of rounds), are told so with the seats, and play every other round."""
    plan = build(3, 1, players=players)
    assert (plan.tables, plan.rounds, plan.sets) == (3, players, players)
    out = Counter()
    for r, line in enumerate(card.splitlines(), 1):
        for t, table in enumerate(line.split(" | "), 1):
            n, s, e, w, board_set = map(int, table.split())
            assert seated_at(plan.at(t, r)) == (n, s, e, w) and plan.at(t, r).set == board_set
        seated = {int(p) for table in line.split(" | ") for p in table.split()[:4]}
        missing = sorted(set(range(1, players + 1)) - seated)
        assert sitting_out(plan, r) == missing and len(missing) == out_each_round
        assert seat_text(plan, 1, r).endswith("; out " + " ".join(map(str, missing)))
        out.update(missing)
    assert set(out.values()) == {out_each_round} and len(out) == players  # each sits out as often as the others
    _partners_once_and_no_board_twice(plan, players, sitting=out_each_round)


@pytest.mark.parametrize("players,card,tables", [(13, TED_13, 3), (16, CARD, 4)])
def test_each_tables_move_card_sends_its_players_where_the_card_seats_them_next(players, card, tables):
    """After each round a table's card says where each of its players sits next ("4>T2W"), or "out" for one the
    card seats nowhere next round: worked from the card's text."""
    rounds = [[table.split()[:4] for table in line.split(" | ")] for line in card.splitlines()]
    plan = build(tables, 1, players=players)
    for r in range(1, len(rounds)):
        where = {p: f"T{t}{seat}" for t, row in enumerate(rounds[r], 1) for seat, p in zip("NSEW", row, strict=True)}
        for t, row in enumerate(rounds[r - 1], 1):
            want = " ".join(f"{p}>{where.get(p, 'out')}" for p in row)
            assert move_text(plan, t, r).split() == want.split()  # (16-column lines on the unit)
    assert any(">out" in move_text(plan, t, r) for r in range(1, len(rounds)) for t in (1, 2, 3)) == (players == 13)


def test_a_card_for_the_players_given_or_a_clear_refusal():
    assert seat_text(build(4, 1), 1, 1) == "N 16, S 1, E 2, W 7"  # no one out: the seats alone
    for tables, players in ((3, 15), (4, 13), (2, 9), (5, 21)):
        with pytest.raises(MovementError, match=f"players: the {tables}-table individual here is for"):
            build(tables, 2, players=players)


def _partners_once_and_no_board_twice(plan, players, sitting=0):
    """The card's partnerships, each met once, no one playing a board twice, and every player seated at one seat in
    every round but `sitting` players a round (who sit out)."""
    partners = Counter(frozenset(players_of(partnership(p))) for t in plan.plays for p in (t.ns, t.ew))
    assert set(partners.values()) == {1}
    played = Counter((p, b) for t in plan.plays for pair in (t.ns, t.ew) for p in players_of(partnership(pair))
                     for b in t.boards)
    assert set(played.values()) == {1} and {p for p, _ in played} == set(range(1, players + 1))
    for r in range(1, plan.rounds + 1):
        seated = [p for t in range(1, plan.tables + 1) for p in seated_at(plan.at(t, r))]
        assert len(seated) == len(set(seated)) == players - sitting
    return partners


def test_the_two_table_individual_is_the_acbls():
    plan = build(2, 3)
    assert (plan.tables, plan.rounds, plan.sets) == (2, 7, 7)
    at = {(t, seat): p for t, row in enumerate(ACBL_TWO, 1) for seat, p in zip("NSEW", row, strict=True)}
    for r in range(1, 8):
        assert seats(1, r, 2)[0] == 8  # player 8 stays at 1 North
        here = {(t, seat): p for t in (1, 2) for seat, p in zip("NSEW", seats(t, r, 2), strict=True)}
        assert here == at
        one, two = plan.at(1, r), plan.at(2, r)
        assert one.set == two.set == r and sorted(one.boards) == sorted(two.boards)  # the boards shared
        assert (one.shared_with, two.shared_with) == ((2,), (1,)) and one.boards[0] != two.boards[0]
        # after the round, each player moves on one seat of the cycle; player 8 stays
        at = {ACBL_CYCLE[(i + 1) % 7]: at[where] for i, where in enumerate(ACBL_CYCLE)} | {(1, "N"): 8}
    partners = _partners_once_and_no_board_twice(plan, 8)
    assert len(partners) == 28  # all 28 partnerships of 8 players: one winner


def test_the_three_table_individual_is_admatiss_card():
    plan = build(3, 2)
    assert (plan.tables, plan.rounds, plan.sets) == (3, 11, 11)
    for r, line in enumerate(ADMATIS.splitlines(), 1):
        for t, table in enumerate(line.split(" | "), 1):
            *players, boards = table.split()
            first, last = map(int, boards.split("-"))
            here = plan.at(t, r)
            assert seats(t, r, 3) == tuple(map(int, players))
            assert sorted(here.boards) == [first, last] and here.shared_with == ()
    partners = _partners_once_and_no_board_twice(plan, 12)
    assert len(partners) == 66  # each of the 12 partners every other once


def test_the_movement_is_the_published_card():
    plan = build(4, 2)
    for r, line in enumerate(CARD.splitlines(), 1):
        for t, table in enumerate(line.split(" | "), 1):
            n, s, e, w, board_set = map(int, table.split())
            here = plan.at(t, r)
            assert seats(t, r) == (n, s, e, w)
            assert (partnership(here.ns), partnership(here.ew), here.set) == (f"{n}+{s}", f"{e}+{w}", board_set)
            assert here.boards == (2 * board_set - 1, 2 * board_set)


def test_no_one_partners_anyone_twice_or_plays_a_board_twice():
    plan = build(4, 1)
    partners = _partners_once_and_no_board_twice(plan, 16)
    assert len(partners) == 96 and partners.keys() <= {frozenset(x) for x in combinations(range(1, 17), 2)}


@pytest.mark.parametrize("tables", [5, 7])
def test_the_rainbow_individual_moves_as_published(tables):
    """The Rainbow individual for a prime number of tables, as its posting describes it (rec.games.bridge, kept at
    elsid.co.za/bridge/templates/prime_ind.html): the boards stay; North players (1 to n) move up one table a
    round, East (n + 1 to 2n) down one, South (2n + 1 to 3n) up two, West (3n + 1 to 4n) down two. So no two
    players partner twice and no one plays a board twice."""
    n = tables
    plan = build(n, 2)
    assert (plan.rounds, plan.tables) == (n, n)
    for r in range(1, n + 1):
        for t in range(1, n + 1):
            here = plan.at(t, r)
            assert here.set == t  # the boards stay at their table
            north, south, east, west = seats(t, r, n)
            assert north == (t - 1 - (r - 1)) % n + 1  # moved up one table a round
            assert east == n + (t - 1 + (r - 1)) % n + 1  # down one
            assert south == 2 * n + (t - 1 - 2 * (r - 1)) % n + 1  # up two
            assert west == 3 * n + (t - 1 + 2 * (r - 1)) % n + 1  # down two
            assert (partnership(here.ns), partnership(here.ew)) == (f"{north}+{south}", f"{east}+{west}")
    assert len(_partners_once_and_no_board_twice(plan, 4 * n)) == 2 * n * n


def test_an_individual_of_a_size_no_card_is_held_for_is_refused():
    for tables in (1, 6, 8, 9, 10):
        with pytest.raises(MovementError, match="2, 3, 4, 5, 7 tables"):
            build(tables, 2)
