"""An individual (issue 37, docs/movements.md "Individual"): each player has a new partner every round, and is
scored on his own. The cards are published ones:

    2 tables, 8 players, 7 rounds: the ACBL's two-table, one-winner individual, as the ACBL's guidance for small
    games gives it (bridgescoreplus.com/movements/recommended.html): "NSEW at tables 1 and 2 are number 8, 1, 6,
    2; and 5, 7, 3, 4. Player 8 is stationary at 1 NS, the rest move each round on this cycle: 1S>2S>1E>2N>2W>
    2E>1W>1S", both tables on the round's boards (shared). Moving each player on one seat of that cycle is each
    seat taking the player numbered one more (7 to 1).

    3 tables, 12 players, 11 rounds: the 12-player individual of 11 rounds and 22 boards published by the
    Hungarian club Admatis (admatis.com/bridzs, "12players-11rounds-22boards.pdf", as github.com/thebridsk/
    bridgescorer keeps it in IndividualMovement.Individual3Tables.yaml). Player 12 stays at table 1 North.

    4 tables, 16 players, 12 rounds: Ted Muller's ("Ted's bridge world"), as the Bridge_pal project keeps it
    (github.com/MarcinRubin/Bridge_pal, backend/bridge_movements/Individual_16_1.txt: "4 tables, 12 rounds, 16
    player movement"). Players 16, 15, 14 and 13 stay at tables 1-4.

    3 tables and a sit-out, 13 players, 13 rounds, and 3 tables with two sitting out, 14 players, 14 rounds: Ted
    Muller's too (Bridge_pal's Individual_13_1.txt and Individual_14_1.txt). Every player moves; the players no
    table seats sit out the round (one each round of 13, two of 14), and are scored on the boards they played.

    Each card is its round 1; each later round moves the players who move (1 to m) up one (m to 1) and every
    table's board set up one (m to 1): m rounds, m board sets.

    5 or 7 tables (a prime number), as many rounds: the Rainbow individual (posted to rec.games.bridge, kept at
    elsid.co.za/bridge/templates/prime_ind.html): the boards stay at their tables; North players (1 to n at
    tables 1 to n) move up one table a round, East (n + 1 to 2n) down one, South (2n + 1 to 3n) up two, West
    (3n + 1 to 4n) down two, so no two players partner twice.

A round's partnership sits as a "pair" of the movement, PairId(code): code 1601 is players 16 and 1; the assign
names it "16+1" (`partnership`), and a result's pairs are those texts, so each player's score is his
partnerships' (collector/individual_ranking.py).
"""
from __future__ import annotations

from bidwire_host.event.movements import MovementError, PairId, laid_out

KIND = "individual"
# round 1 of each card, by (tables, players): (N, S, E, W, board set) at tables 1 to n; the players who move are 1
# to m (m rounds)
_CARDS = {
    (2, 8): (7, ((8, 1, 6, 2, 1), (5, 7, 3, 4, 1))),
    (3, 12): (11, ((12, 1, 5, 10, 1), (7, 11, 8, 9, 6), (2, 4, 3, 6, 7))),
    (3, 13): (13, ((4, 9, 12, 11, 1), (5, 7, 10, 6, 5), (8, 2, 13, 3, 9))),
    (3, 14): (14, ((10, 8, 6, 12, 1), (14, 3, 4, 5, 2), (9, 13, 7, 2, 3))),
    (4, 16): (12, ((16, 1, 2, 7, 1), (15, 6, 9, 11, 2), (14, 8, 4, 5, 6), (13, 10, 12, 3, 7))),
}
RAINBOW = (5, 7)  # the table counts the Rainbow individual is for here (prime; 11 and more: too big a club night)
SIZES = (*_CARDS, *((n, 4 * n) for n in RAINBOW))  # (tables, players) of every card held
TABLES = tuple(sorted({t for t, _ in SIZES}))


def _up(player, k, m):
    return player if player > m else (player - 1 + k) % m + 1


def players_for(tables, players=None):
    """The card's players: `players` if a card of `tables` tables seats that many, else a MovementError naming
    what is held; None: the card of `tables` tables with no one sitting out (4 a table)."""
    if tables not in TABLES:
        raise MovementError(f"tables: an individual here is for {', '.join(map(str, TABLES))} tables (the published "
                            f"cards, the Rainbow for a prime number); none is held for {tables}")
    held = [p for t, p in SIZES if t == tables]
    players = 4 * tables if players is None else players
    if players not in held:
        raise MovementError(f"players: the {tables}-table individual here is for {' or '.join(map(str, held))} "
                            f"players, not {players}")
    return players


def seats(table, round_no, tables=4, players=None):
    """(N, S, E, W) players at `table` in `round_no` of the individual of `tables` tables and `players` players."""
    if tables in RAINBOW:
        k = round_no - 1

        def started(at, seat):
            return (table - 1 - at * k) % tables + 1 + seat * tables
        return started(1, 0), started(2, 2), started(-1, 1), started(-2, 3)
    m, card = _CARDS[tables, players or 4 * tables]
    return tuple(_up(p, round_no - 1, m) for p in card[table - 1][:4])


def board_set(table, round_no, tables=4, players=None):
    """The board set `table` plays in `round_no`."""
    if tables in RAINBOW:
        return table
    m, card = _CARDS[tables, players or 4 * tables]
    return _up(card[table - 1][4], round_no - 1, m)


def rounds_of(tables, players=None):
    return tables if tables in RAINBOW else _CARDS[tables, players or 4 * tables][0]


def players_in(plan):
    """How many players an individual's movement (its Movement) seats: its card's, found by its tables and its
    complete movement's rounds (each card held has rounds of its own)."""
    return next(p for t, p in SIZES if t == plan.tables and rounds_of(t, p) == plan.full_rounds)


def sitting_out(plan, round_no):
    """The players no table seats in `round_no`, in order."""
    seated = {p for here in plan.in_round(round_no) for p in seated_at(here)}
    return [p for p in range(1, players_in(plan) + 1) if p not in seated]


def seated_at(here):
    """(N, S, E, W) players of an individual's TableRound: its two partnerships'."""
    return (*players_of(partnership(here.ns)), *players_of(partnership(here.ew)))


def code(a, b):
    return 1000 * a + b


def partnership(pair):
    """The text a partnership (a PairId of the movement) is named by: "16+1"."""
    return f"{pair.number // 1000}+{pair.number % 1000}"


def players_of(text):
    """The two players of a partnership's text ("16+1" -> (16, 1)), or None for another text."""
    a, sep, b = str(text).partition("+")
    return (int(a), int(b)) if sep and a.isdecimal() and b.isdecimal() else None


def build(tables, boards_per_round, rounds=None, first_board=1, players=None):
    """The individual movement for `tables` tables and `players` players (a published card for 2, 3 or 4 tables,
    at 3 with one or two sitting out too; the Rainbow for 5 or 7), curtailed to `rounds`."""
    players = players_for(tables, players)
    full = rounds_of(tables, players)
    layout = [[(t, PairId(code(*seats(t, r, tables, players)[:2])), PairId(code(*seats(t, r, tables, players)[2:])),
                board_set(t, r, tables, players)) for t in range(1, tables + 1)] for r in range(1, full + 1)]
    return laid_out(KIND, tables, rounds, full, full, boards_per_round, first_board, layout)


def seat_text(plan, table, round_no):
    """What a table is told as a round starts: each seat's player, and who sits the round out ("N 16, S 1, E 2,
    W 7"; "N 4, S 9, E 12, W 11; out 1")."""
    text = ", ".join(f"{seat} {p}" for seat, p in zip("NSEW", seated_at(plan.at(table, round_no)), strict=True))
    out = sitting_out(plan, round_no)
    return text + (f"; out {' '.join(map(str, out))}" if out else "")
