"""An individual (issue 37, docs/movements.md "Individual"): each player has a new partner every round, and is
scored on his own. The card is a published one:

    4 tables, 16 players, 12 rounds: Ted Muller's ("Ted's bridge world"), as the Bridge_pal project keeps it
    (github.com/MarcinRubin/Bridge_pal, backend/bridge_movements/Individual_16_1.txt: "4 tables, 12 rounds, 16
    player movement"). Players 16, 15, 14 and 13 stay at tables 1-4; round 1 is below, and each later round
    moves players 1-12 up one (12 to 1) and every table's board set up one (12 to 1).

    5 or 7 tables (a prime number), as many rounds: the Rainbow individual (posted to rec.games.bridge, kept at
    elsid.co.za/bridge/templates/prime_ind.html): the boards stay at their tables; North players (1 to n at
    tables 1 to n) move up one table a round, East (n + 1 to 2n) down one, South (2n + 1 to 3n) up two, West
    (3n + 1 to 4n) down two, so no two players partner twice.

A round's partnership sits as a "pair" of the movement, PairId(code): code 1601 is players 16 and 1; the assign
names it "16+1" (`partnership`), and a result's pairs are those texts, so each player's score is his
partnerships' (collector/individual_ranking.py).
"""
from __future__ import annotations

from bidwire_host.event.movements import MAX_BOARD, Movement, MovementError, PairId, TableRound

KIND = "individual"
# round 1 of the 4-table card: (N, S, E, W, board set) at tables 1-4
_FOUR = ((16, 1, 2, 7, 1), (15, 6, 9, 11, 2), (14, 8, 4, 5, 6), (13, 10, 12, 3, 7))
_ROUNDS = 12
RAINBOW = (5, 7)  # the table counts the Rainbow individual is for here (prime; 11 and more: too big a club night)
TABLES = (4, *RAINBOW)


def _up(player, k):
    return player if player > 12 else (player - 1 + k) % 12 + 1


def seats(table, round_no, tables=4):
    """(N, S, E, W) players at `table` in `round_no` of the `tables`-table individual."""
    if tables in RAINBOW:
        k = round_no - 1

        def started(at, seat):
            return (table - 1 - at * k) % tables + 1 + seat * tables
        return started(1, 0), started(2, 2), started(-1, 1), started(-2, 3)
    n, s, e, w, _ = _FOUR[table - 1]
    return tuple(_up(p, round_no - 1) for p in (n, s, e, w))


def rounds_of(tables):
    return tables if tables in RAINBOW else _ROUNDS


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
    """The individual movement for `tables` tables (the 4-table card; the Rainbow for 5 or 7), curtailed to
    `rounds`."""
    if tables not in TABLES:
        raise MovementError(f"tables: an individual here is for {', '.join(map(str, TABLES))} tables (the published "
                            f"4-table card, the Rainbow for a prime number); none is held for {tables}")
    full = rounds_of(tables)
    if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= full):
        raise MovementError(f"rounds of the {tables}-table individual: 1-{full}, not {rounds!r}")
    rounds = rounds or full
    sets = full if tables == 4 else tables
    if first_board + sets * boards_per_round - 1 > MAX_BOARD:
        raise MovementError(f"boards: the last board would be {first_board + sets * boards_per_round - 1}, more "
                            f"than {MAX_BOARD}")
    plays = []
    for r in range(1, rounds + 1):
        for t in range(1, tables + 1):
            n, s, e, w = seats(t, r, tables)
            board_set = t if tables in RAINBOW else (_FOUR[t - 1][4] - 1 + r - 1) % _ROUNDS + 1
            start = first_board + (board_set - 1) * boards_per_round
            plays.append(TableRound(r, t, PairId(code(n, s)), PairId(code(e, w)), board_set,
                                    tuple(range(start, start + boards_per_round))))
    return Movement(KIND, tables, rounds, full, sets, boards_per_round, first_board, tuple(plays))


def seat_text(table, round_no, tables=4):
    """What a table is told as a round starts: each seat's player ("N 16, S 1, E 2, W 7")."""
    return ", ".join(f"{seat} {p}" for seat, p in zip("NSEW", seats(table, round_no, tables), strict=True))
