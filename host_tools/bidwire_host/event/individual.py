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
# round 1 of each card: (N, S, E, W, board set) at tables 1 to n; the players who move are 1 to m (m rounds)
_CARDS = {
    2: (7, ((8, 1, 6, 2, 1), (5, 7, 3, 4, 1))),
    3: (11, ((12, 1, 5, 10, 1), (7, 11, 8, 9, 6), (2, 4, 3, 6, 7))),
    4: (12, ((16, 1, 2, 7, 1), (15, 6, 9, 11, 2), (14, 8, 4, 5, 6), (13, 10, 12, 3, 7))),
}
RAINBOW = (5, 7)  # the table counts the Rainbow individual is for here (prime; 11 and more: too big a club night)
TABLES = (*_CARDS, *RAINBOW)


def _up(player, k, m):
    return player if player > m else (player - 1 + k) % m + 1


def seats(table, round_no, tables=4):
    """(N, S, E, W) players at `table` in `round_no` of the `tables`-table individual."""
    if tables in RAINBOW:
        k = round_no - 1

        def started(at, seat):
            return (table - 1 - at * k) % tables + 1 + seat * tables
        return started(1, 0), started(2, 2), started(-1, 1), started(-2, 3)
    m, card = _CARDS[tables]
    return tuple(_up(p, round_no - 1, m) for p in card[table - 1][:4])


def board_set(table, round_no, tables=4):
    """The board set `table` plays in `round_no`."""
    if tables in RAINBOW:
        return table
    m, card = _CARDS[tables]
    return _up(card[table - 1][4], round_no - 1, m)


def rounds_of(tables):
    return tables if tables in RAINBOW else _CARDS[tables][0]


def code(a, b):
    return 1000 * a + b


def partnership(pair):
    """The text a partnership (a PairId of the movement) is named by: "16+1"."""
    return f"{pair.number // 1000}+{pair.number % 1000}"


def players_of(text):
    """The two players of a partnership's text ("16+1" -> (16, 1)), or None for another text."""
    a, sep, b = str(text).partition("+")
    return (int(a), int(b)) if sep and a.isdecimal() and b.isdecimal() else None


def build(tables, boards_per_round, rounds=None, first_board=1):
    """The individual movement for `tables` tables (a published card for 2, 3 or 4; the Rainbow for 5 or 7),
    curtailed to `rounds`."""
    if tables not in TABLES:
        raise MovementError(f"tables: an individual here is for {', '.join(map(str, TABLES))} tables (the published "
                            f"cards, the Rainbow for a prime number); none is held for {tables}")
    full = rounds_of(tables)
    layout = [[(t, PairId(code(*seats(t, r, tables)[:2])), PairId(code(*seats(t, r, tables)[2:])),
                board_set(t, r, tables)) for t in range(1, tables + 1)] for r in range(1, full + 1)]
    return laid_out(KIND, tables, rounds, full, full, boards_per_round, first_board, layout)


def seat_text(table, round_no, tables=4):
    """What a table is told as a round starts: each seat's player ("N 16, S 1, E 2, W 7")."""
    return ", ".join(f"{seat} {p}" for seat, p in zip("NSEW", seats(table, round_no, tables), strict=True))
