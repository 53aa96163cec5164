"""Who meets whom in a teams event (issue 38), and the movement that seats the matches.

A teams event of N teams plays matches, each at two tables: the home team's NS pair meets the away team's EW pair
at the match's first table, the away team's NS pair the home team's EW pair at its second. A match is played in
two halves (two rounds of the movement): each table plays one board set in the first half, and the two tables
swap sets for the second, as a two-table match does (movements.team_match). Every match of one match round plays
the same two sets (the boards duplicated), so no set is shared between tables.

    berger(n)                                  a round robin's matches: FIDE's Berger tables
    match_movement(kind, matches, teams, ...)  the movement of the matches drawn so far

A team with no opponent in a match round (an odd number of teams: the bye) has no table that round; what it
scores is the event's (docs/teams.md).
"""
from __future__ import annotations

from bidwire_host.event import knockout
from bidwire_host.event.movements import MAX_BOARD, Movement, MovementError, PairId, TableRound

MAX_TEAMS = 100


def berger(n):
    """The matches of a round robin of `n` teams (2 to MAX_TEAMS), round by round: [[(home, away), ...], ...],
    as FIDE's Berger tables give them (Handbook C.05, Annex 1): with an even n, team n meets team a of round r,
    a = 1 + (r - 1) n/2 (mod n - 1), home in the even rounds, and the others meet in pairs (a + k, a - k),
    k = 1 ... n/2 - 1, the first at home. An odd n plays as n + 1, the highest number the bye (left out)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= MAX_TEAMS:
        raise MovementError(f"teams of a round robin: a whole number 2-{MAX_TEAMS}, not {n!r}")
    m = n + n % 2  # with the bye
    rounds = []
    for r in range(1, m):
        a = (1 + (r - 1) * (m // 2) - 1) % (m - 1) + 1
        row = [(m, a) if r % 2 == 0 else (a, m)]
        row += [((a + k - 1) % (m - 1) + 1, (a - k - 1) % (m - 1) + 1) for k in range(1, m // 2)]
        rounds.append([match for match in row if m == n or m not in match])
    return rounds


def match_movement(kind, matches, teams, boards_per_round, first_board=1, match_rounds_in_all=None):
    """The movement of a teams event whose match rounds so far are `matches` ([[(home, away), ...], ...], a team
    at most once a round), for `teams` teams: match round m is movement rounds 2m - 1 and 2m, match k of it at
    tables 2k - 1 (home NS v away EW) and 2k (away NS v home EW), playing sets 2m - 1 and 2m, swapped between the
    halves. Tables: twice the matches of the fullest round; a team not drawn in a round (the bye) has none.
    `match_rounds_in_all`: the match rounds the event will play (a Swiss draws them one by one: the movement's
    `full_rounds` counts them all, its `rounds` those drawn)."""
    if not matches or not any(matches):
        raise MovementError("no match drawn yet")
    tables = 2 * max(len(row) for row in matches)
    sets = 2 * max(len(matches), match_rounds_in_all or 0)  # a Swiss's undrawn rounds' boards counted too
    check_boards(first_board, sets, boards_per_round)
    plays = []
    for m, row in enumerate(matches, 1):
        check_round(m, row, teams, "teams")
        for half in (1, 2):
            r = 2 * (m - 1) + half
            first, second = (2 * m - 1, 2 * m) if half == 1 else (2 * m, 2 * m - 1)
            for k, (home, away) in enumerate(row, 1):
                plays.append(_play(r, 2 * k - 1, PairId(home, "NS"), PairId(away, "EW"), first, boards_per_round,
                                   first_board))
                plays.append(_play(r, 2 * k, PairId(away, "NS"), PairId(home, "EW"), second, boards_per_round,
                                   first_board))
    return Movement(kind, tables, 2 * len(matches), sets, sets, boards_per_round, first_board, tuple(plays))


def check_boards(first_board, sets, boards_per_round):
    """MovementError unless the event's last board is a board number bidwire takes."""
    if first_board + sets * boards_per_round - 1 > MAX_BOARD:
        raise MovementError(f"boards: the last board would be {first_board + sets * boards_per_round - 1}, "
                            f"more than {MAX_BOARD}")


def check_round(number, row, entrants, what):
    """MovementError unless match round `number`'s matches seat each of the `entrants` teams (or pairs) at most
    once."""
    seated = [t for match in row for t in match]
    if len(set(seated)) != len(seated) or not all(1 <= t <= entrants for t in seated):
        raise MovementError(f"match round {number}: each of {what} 1-{entrants} at most once, not {row}")


def _play(round_no, table, ns, ew, board_set, boards_per_round, first_board):
    start = first_board + (board_set - 1) * boards_per_round
    return TableRound(round_no, table, ns, ew, board_set, tuple(range(start, start + boards_per_round)))


def match_of(table, round_no):
    """(match round, match number, half) of `table` in movement round `round_no` of a teams event."""
    return (round_no + 1) // 2, (table + 1) // 2, 2 - round_no % 2


KINDS = ("round-robin", "swiss-teams", "knockout")  # the teams events of N teams (two teams: movements.team_match)


def match_rounds(kind, teams, rounds):
    """The match rounds a teams event plays: a round robin's every team meeting every other (curtailed to `rounds`),
    a Swiss's `rounds`."""
    full = teams - 1 + teams % 2
    if kind == "knockout":
        depth = knockout.stages(teams)
        if rounds not in (None, depth):
            raise MovementError(f"rounds: a knock-out of {teams} teams has {depth} stages, not {rounds!r}")
        return depth
    if kind == "round-robin":
        if rounds is None:
            return full
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= full:
            raise MovementError(f"rounds of a round robin of {teams} teams: 1-{full} matches, not {rounds!r}")
        return rounds
    if rounds is None:
        raise MovementError(f"rounds: say how many matches the Swiss plays (1-{full} for {teams} teams)")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= full:
        raise MovementError(f"rounds of a Swiss of {teams} teams: 1-{full} matches (no two teams meet twice), "
                            f"not {rounds!r}")
    return rounds


def build(kind, teams, rounds, draws, boards_per_round, first_board=1):
    """The movement of a teams event of `teams` teams: a round robin's from the Berger tables; a Swiss's from its
    `draws` so far (the first, when none is made yet, pairs the teams in number order: 1 v 2, 3 v 4, ...)."""
    if isinstance(teams, bool) or not isinstance(teams, int) or not 2 <= teams <= MAX_TEAMS:
        raise MovementError(f"teams: a teams event has 2-{MAX_TEAMS} teams, not {teams!r}")
    total = match_rounds(kind, teams, rounds)
    if kind == "round-robin":
        if draws:
            raise MovementError("draws: a round robin's matches are the Berger tables'; only a Swiss is drawn")
        matches = berger(teams)[:total]
    else:
        if len(draws) > total:
            raise MovementError(f"draws: {len(draws)} match rounds drawn, and the event plays {total}")
        matches = [list(map(tuple, row)) for row in draws] or [list(first_round(kind, teams))]
    return match_movement(kind, matches, teams, boards_per_round, first_board, total)


def first_round(kind, teams):
    """The first match round of a drawn event, before any result: a knock-out's seeded bracket, a Swiss's
    `first_draw`."""
    return knockout.first_stage(teams) if kind == "knockout" else first_draw(teams)


def first_draw(teams):
    """A Swiss's first match round, before any standings: the teams in number order, 1 v 2, 3 v 4, ... (the
    highest number the bye if odd)."""
    return tuple((t, t + 1) for t in range(1, teams - teams % 2, 2))


def schedule(plan):
    """[(match round, home, away, boards)] of a teams event's movement: each match, its boards over both halves."""
    out = []
    for m in range(1, plan.rounds // 2 + 1):
        for p in plan.in_round(2 * m - 1):
            if p.table % 2 and p.ns is not None and p.ew is not None:
                other = plan.at(p.table, 2 * m)
                out.append((m, p.ns.number, p.ew.number, tuple(sorted(set(p.boards) | set(other.boards)))))
    return out
