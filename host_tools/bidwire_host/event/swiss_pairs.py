"""A Swiss pairs (issue 38, docs/teams.md "Swiss pairs"): N pairs, each match round a match of two pairs at one
table, drawn from the standings as a Swiss teams is (swiss_draw). Every table of a round plays the same boards (the
boards duplicated: set r in round r), so each board is scored across the whole field, and a match is the two pairs'
scores on its boards compared. The higher placed pair sits NS. A pair not drawn in a round (the bye) has no table.

    build(pairs, rounds, draws, boards_per_round, first_board=1)   the movement of the rounds drawn so far
    schedule(plan)                                                  [(round, NS pair, EW pair, boards)]
"""
from __future__ import annotations

from bidwire_host.event.movements import Movement, MovementError, PairId, TableRound
from bidwire_host.event.team_schedule import check_boards, check_round, first_draw

KIND = "swiss-pairs"
MAX_PAIRS = 200


def rounds_of(pairs, rounds):
    full = pairs - 1 + pairs % 2
    if rounds is None:
        raise MovementError(f"rounds: say how many matches the Swiss pairs plays (1-{full} for {pairs} pairs)")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= full:
        raise MovementError(f"rounds of a Swiss pairs of {pairs} pairs: 1-{full} matches (no two pairs meet twice), "
                            f"not {rounds!r}")
    return rounds


def build(pairs, rounds, draws, boards_per_round, first_board=1):
    """The movement of the match rounds drawn so far (`draws`; the first, before any, pairs 1 v 2, 3 v 4, ...):
    round r's match k at table k, playing set r."""
    if isinstance(pairs, bool) or not isinstance(pairs, int) or not 2 <= pairs <= MAX_PAIRS:
        raise MovementError(f"pairs: a Swiss pairs has 2-{MAX_PAIRS} pairs, not {pairs!r}")
    total = rounds_of(pairs, rounds)
    if len(draws) > total:
        raise MovementError(f"draws: {len(draws)} match rounds drawn, and the Swiss pairs plays {total}")
    matches = [list(map(tuple, row)) for row in draws] or [list(first_draw(pairs))]
    check_boards(first_board, total, boards_per_round)
    plays = []
    for r, row in enumerate(matches, 1):
        check_round(r, row, pairs, "pairs")
        start = first_board + (r - 1) * boards_per_round
        boards = tuple(range(start, start + boards_per_round))
        for k, (ns, ew) in enumerate(row, 1):
            plays.append(TableRound(r, k, PairId(ns), PairId(ew), r, boards))
    tables = max(len(row) for row in matches)
    return Movement(KIND, tables, len(matches), total, total, boards_per_round, first_board, tuple(plays))


def schedule(plan):
    """[(match round, NS pair, EW pair, boards)] of the rounds drawn."""
    return [(p.round, p.ns.number, p.ew.number, p.boards) for r in range(1, plan.rounds + 1)
            for p in plan.in_round(r) if p.ns is not None and p.ew is not None]
