"""Movements: which pairs meet at which table, in which round, on which boards (issue 4, part 4).

A movement is a tuple of TableRound rows, one per table per round. Pairs are PairId(number, line): in a
Mitchell and in a team match a pair keeps its line all session, so NS 3 and EW 3 are different pairs; in a
Howell pairs change direction and the line is "". Board sets are numbered from 1; set s holds
`boards_per_round` consecutive boards from first_board + (s - 1) * boards_per_round.

    mitchell(tables, boards_per_round, rounds=None, even=None)   odd tables; even: "skip" or "relay"
    howell(tables, boards_per_round, rounds=None)                2-8 tables, every pair meets every other
    team_match(boards_per_round, rounds=2)                       two tables, boards swapped between them
    barometer(tables, boards_per_round, rounds=None, seating="howell")  every table on the same boards each round
    build(spec, boards_per_round)                                from an event file's movement object

A missing pair is the phantom (`Movement.with_phantom`): its opponents sit out that round. Table guides
and the checks a director expects of a movement (Law 15: no pair plays a board twice) are in docs/movements.md
and tests/host/test_movements.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache

MAX_BOARDS_PER_ROUND = 36  # an assign command carries 36 boards at most (collector/commands.py)
MAX_HOWELL_TABLES = 8
# bounds a real event never reaches, so that no event file makes the collector build a huge movement (a 1,001-table
# Mitchell took 89 s and 3.4 GB: issue 24.8): tables of a section, rounds, the highest board number
MAX_TABLES = 200
MAX_ROUNDS = 100
MAX_BOARD = 9999
KINDS = ("mitchell", "howell", "teams", "barometer")
SEATINGS = ("howell", "mitchell")  # a barometer's


class MovementError(ValueError):
    """A movement that cannot be built: the message says what to change."""


@dataclass(frozen=True, order=True)
class PairId:
    """A pair's place in the movement: NS 3 and EW 3 in a Mitchell, pair 5 in a Howell, team 1's NS pair."""

    number: int
    line: str = ""  # "NS" or "EW": the pair keeps that line all session; "": it changes (Howell)

    def __str__(self):
        return f"{self.line} {self.number}" if self.line else f"pair {self.number}"


@dataclass(frozen=True)
class TableRound:
    """One table in one round: the pairs (None is the phantom: the other pair sits out) and the boards."""

    round: int
    table: int
    ns: PairId | None
    ew: PairId | None
    set: int
    boards: tuple[int, ...]  # in the order this table plays them: tables sharing a set start apart
    shared_with: tuple[int, ...] = ()  # the other tables playing the same set this round
    switched: bool = False  # an arrow-switched round: the EW pair sits NS (`ns` is it) and the NS pair EW

    @property
    def sit_out(self):
        return self.ns is None or self.ew is None

    def pairs(self):
        return tuple(p for p in (self.ns, self.ew) if p is not None)


@dataclass(frozen=True)
class Movement:
    kind: str  # "mitchell", "skip mitchell", "relay mitchell", "howell" or "teams"
    tables: int
    rounds: int
    full_rounds: int  # the rounds of the complete movement; fewer is a curtailed movement
    sets: int
    boards_per_round: int
    first_board: int
    plays: tuple[TableRound, ...]  # round by round, table by table
    _at: dict = field(init=False, repr=False, compare=False)
    _seat: dict = field(init=False, repr=False, compare=False)
    _rounds: dict = field(init=False, repr=False, compare=False)
    _pairs: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_at", {(p.table, p.round): p for p in self.plays})
        object.__setattr__(self, "_seat", {(q, p.round): p for p in self.plays for q in p.pairs()})
        rounds = {}
        for p in self.plays:
            rounds.setdefault(p.round, []).append(p)
        object.__setattr__(self, "_rounds", {r: tuple(row) for r, row in rounds.items()})
        # worked once: a section's plan is asked for its pairs for every round of every export (event.model)
        object.__setattr__(self, "_pairs", tuple(sorted({q for p in self.plays for q in p.pairs()},
                                                         key=lambda q: (q.line != "NS", q.line, q.number))))

    @property
    def title(self):
        return _title(self.kind, self.tables)

    def board_numbers(self, board_set):
        start = self.first_board + (board_set - 1) * self.boards_per_round
        return tuple(range(start, start + self.boards_per_round))

    def boards(self):
        return range(self.first_board, self.first_board + self.sets * self.boards_per_round)

    def in_round(self, round_no):
        return self._rounds.get(round_no, ())

    def at(self, table, round_no):
        """The TableRound of `table` in `round_no`, or None outside the movement."""
        return self._at.get((table, round_no))

    def sitting(self, pair, round_no):
        """Where `pair` sits in `round_no` (a TableRound with `sit_out` if its opponents are the phantom), or None
        (no such pair, or the round is outside the movement)."""
        return self._seat.get((pair, round_no))

    def pairs(self):
        """The pairs seated in the movement: NS by number, then EW (or all by number in a Howell)."""
        return list(self._pairs)

    def tables_playing(self, board_set, round_no):
        return tuple(p.table for p in self.in_round(round_no) if p.set == board_set)

    def relay(self, round_no):
        """The sets out of play in `round_no` (on the relay or bye stand)."""
        playing = {p.set for p in self.in_round(round_no)}
        return tuple(s for s in range(1, self.sets + 1) if s not in playing)

    def with_phantom(self, pair):
        """The movement with `pair` missing: its opponents sit out the rounds it would have played."""
        if pair not in self.pairs():
            raise MovementError(f"{pair} is not a pair of the {self.title} (pairs: "
                                f"{', '.join(str(p) for p in self.pairs())})")
        plays = tuple(replace(p, ns=None if p.ns == pair else p.ns, ew=None if p.ew == pair else p.ew)
                      for p in self.plays)
        return replace(self, plays=plays)

def _title(kind, tables):
    if kind == "teams":
        return "two-table team match"
    if kind.startswith("barometer"):  # "barometer howell", "barometer mitchell"
        return f"{tables}-table barometer ({kind.split()[1].capitalize()} seating)"
    if kind in ("round-robin", "swiss-teams", "knockout"):  # event.team_schedule.KINDS
        return f"{tables}-table teams " + {"round-robin": "round robin", "swiss-teams": "Swiss",
                                           "knockout": "knock-out"}[kind]
    if kind == "swiss-pairs":
        return f"{tables}-table Swiss pairs"
    return f"{tables}-table " + kind.replace("mitchell", "Mitchell").replace("howell", "Howell")


def _check(what, value, low, high=None):
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"from {low}" if high is None else f"{low}-{high}"
        raise MovementError(f"{what} must be a whole number {bound}, not {value!r}")


def laid_out(kind, tables, rounds, full, sets, boards_per_round, first_board, layout):
    """TableRounds from layout[round - 1] = [(table, ns, ew, set)], boards rotated where tables share a set."""
    _check("boards per round", boards_per_round, 1, MAX_BOARDS_PER_ROUND)
    _check("first board", first_board, 1, MAX_BOARD)
    if first_board + sets * boards_per_round - 1 > MAX_BOARD:
        raise MovementError(f"boards: the last board would be {first_board + sets * boards_per_round - 1}, "
                            f"more than {MAX_BOARD}")
    if rounds is None:
        rounds = full
    _check(f"rounds of a {_title(kind, tables)}", rounds, 1, full)
    plays = []
    for r, row in enumerate(layout[:rounds], 1):
        tables_of = {}
        for table, _, _, board_set in row:
            tables_of.setdefault(board_set, []).append(table)
        for table, ns, ew, board_set in row:
            sharing = sorted(tables_of[board_set])
            start = first_board + (board_set - 1) * boards_per_round
            boards = list(range(start, start + boards_per_round))
            k = sharing.index(table) * boards_per_round // len(sharing)
            plays.append(TableRound(r, table, ns, ew, board_set, tuple(boards[k:] + boards[:k]),
                                    tuple(t for t in sharing if t != table)))
    return Movement(kind, tables, rounds, full, sets, boards_per_round, first_board, tuple(plays))


def mitchell(tables, boards_per_round, rounds=None, even=None, first_board=1, arrow_switch=()):
    """NS pairs stay at their table, EW pairs move up one table and boards down one table each round.

    Odd tables: the standard Mitchell, `tables` rounds. Even tables: `even="skip"` (the default) — EW pairs
    move up two tables after half the rounds, at most tables - 1 rounds (a last round would meet the first
    opponents again); or `even="relay"` — tables 1 and `tables` share a set each round and a relay (bye stand)
    between tables tables/2 and tables/2 + 1 holds the set out of play, `tables` rounds.
    """
    if isinstance(tables, int) and not isinstance(tables, bool) and 0 < tables < 3:
        raise MovementError(f"a Mitchell needs 3 tables or more, not {tables}: for 2 tables play a Howell")
    _check("tables of a Mitchell", tables, 3, MAX_TABLES)
    n = tables
    if n % 2:
        if even is not None:
            raise MovementError(f'even: "{even}" is only for an even number of tables; a {n}-table Mitchell '
                                'needs neither a skip nor a relay')
        kind, full = "mitchell", n
        ew = [[(t - r) % n + 1 for t in range(1, n + 1)] for r in range(1, n + 1)]
        board_set = [[(t + r - 2) % n + 1 for t in range(1, n + 1)] for r in range(1, n + 1)]
    elif even in (None, "skip"):
        kind, full = "skip mitchell", n - 1
        ew = [[(t - r - (r > n // 2)) % n + 1 for t in range(1, n + 1)] for r in range(1, n)]
        board_set = [[(t + r - 2) % n + 1 for t in range(1, n + 1)] for r in range(1, n)]
    elif even == "relay":
        kind, full = "relay mitchell", n
        ew = [[(t - r) % n + 1 for t in range(1, n + 1)] for r in range(1, n + 1)]
        board_set = _relay_sets(n)
    else:
        raise MovementError(f'even must be "skip" or "relay" (how a Mitchell with an even number of tables '
                            f'avoids boards the EW pairs have played), not {even!r}')
    layout = [[(t, PairId(t, "NS"), PairId(ew[r][t - 1], "EW"), board_set[r][t - 1]) for t in range(1, n + 1)]
              for r in range(full)]
    plan = laid_out(kind, n, rounds, full, n, boards_per_round, first_board, layout)
    return _arrow_switched(plan, arrow_switch) if arrow_switch else plan


def _arrow_switched(plan, rounds):
    """The Mitchell with its `rounds` arrow-switched: at those rounds each table's EW pair sits NS and its NS pair
    EW (the boards turned: the EW pairs play the NS cards), so that NS and EW are one field, one winner."""
    bad = [r for r in rounds if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= plan.rounds]
    if bad or len(set(rounds)) != len(rounds):
        raise MovementError(f"arrow_switch: rounds of the {plan.title}, 1-{plan.rounds}, each once; not {list(rounds)}")
    plays = tuple(replace(p, ns=p.ew, ew=p.ns, switched=True) if p.round in rounds else p for p in plan.plays)
    return replace(plan, plays=plays)


def _relay_sets(n):
    """Set at each table, each round, of the relay Mitchell: boards move down one place a round along
    [shared table 1 & n, 2, ..., n/2, relay, n/2 + 1, ..., n - 1]; round 1 has set t at table t (t < n) and
    set n on the relay."""
    places = [1, *range(2, n // 2 + 1), 0, *range(n // 2 + 1, n)]  # 0: the relay
    first = {place: place or n for place in places}
    out = []
    for r in range(n):
        now = {place: first[places[(i + r) % n]] for i, place in enumerate(places)}
        out.append([now[1] if t == n else now[t] for t in range(1, n + 1)])
    return out


# The 3-table (6-pair) Howell: the circle method's pairings (pair 6 stationary NS at table 1) with the board
# sets worked by hand in docs/movements.md. There is no 6-pair schedule with five sets in which every pair plays
# every set once and no more than two tables share a set (an exhaustive search says so; a Room square of side 5
# does not exist), so in the last round all three tables share set 5, as in the usual 3-table Howell card.
_HOWELL_3 = (  # round by round, (NS, EW, set) at tables 1-3
    ((6, 1, 1), (2, 5, 4), (3, 4, 2)),
    ((6, 2, 2), (3, 1, 4), (4, 5, 3)),
    ((6, 3, 3), (4, 2, 1), (5, 1, 2)),
    ((6, 4, 4), (5, 3, 1), (1, 2, 3)),
    ((6, 5, 5), (1, 4, 5), (2, 3, 5)),
)


def howell(tables, boards_per_round, rounds=None, first_board=1):
    """A complete Howell for 2 * tables pairs: 2 * tables - 1 rounds, each pair meets every other pair once and
    plays every set once. Pair 2n stays NS at table 1; the others each move to where the next lower pair sat.

    2 tables: both tables share the round's set. 3 tables: _HOWELL_3. 4-8 tables: a cyclic Room square found
    by `_room_starter`: no two tables ever share a set, and each set is played `tables` times.
    """
    _check("tables of a Howell", tables, 2, MAX_HOWELL_TABLES)
    n, m = tables, 2 * tables - 1
    if n == 3:
        layout = [[(t, PairId(ns), PairId(ew), s) for t, (ns, ew, s) in enumerate(row, 1)] for row in _HOWELL_3]
    else:
        starter, adder = ([(1, 2)], (0, 0)) if n == 2 else _room_starter(m)
        layout = []
        for r in range(m):
            row = [(1, PairId(2 * n), PairId(r + 1), (r + adder[0]) % m + 1)]
            row += [(i, PairId((x + r) % m + 1), PairId((y + r) % m + 1), (r + adder[i - 1]) % m + 1)
                    for i, (x, y) in enumerate(starter, 2)]
            layout.append(row)
    return laid_out("howell", n, rounds, m, m, boards_per_round, first_board, layout)


@cache
def _room_starter(m):
    """A starter and adder for a cyclic Room square of odd side m (Dinitz & Stinson, "Room squares and related
    designs", 1992): pairs {x_i, y_i} splitting 1..m-1 whose differences ±(y_i - x_i) are all the non-zero
    residues (round r pairs x_i + r with y_i + r: a round robin, with residue r meeting the stationary pair),
    and distinct adders a_0.. (round r, table i plays set r + a_i) such that {a_0} and all {a_i - x_i, a_i - y_i}
    are every residue once (so each pair plays each set once). A depth-first search, milliseconds for m <= 15,
    trying the circle method's starter {k, -k} first: it has an adder for m = 7, 11, 13 and 15, not for 9.
    """
    def search(left, pairs, diffs, adders, offsets, circle):
        if not left:
            return pairs
        x = min(left)
        for y in [m - x] if circle else sorted(left - {x}):
            d = (y - x) % m
            if d in diffs:
                continue
            for a in range(m):
                got = {(a - x) % m, (a - y) % m}
                if a in adders or got & offsets:
                    continue
                found = search(left - {x, y}, [*pairs, (x, y, a)], diffs | {d, m - d}, adders | {a}, offsets | got,
                               circle)
                if found:
                    return found
        return None

    start = (frozenset(range(1, m)), [], frozenset(), frozenset({0}), frozenset({0}))
    found = search(*start, True) or search(*start, False)
    if found is None:
        raise MovementError(f"no cyclic Howell with {m} rounds")  # m = 3 or 5: no Room square exists
    return [(x, y) for x, y, _ in found], (0, *(a for _, _, a in found))


def team_match(boards_per_round, rounds=2, first_board=1):
    """A two-table team match: team 1 (home) sits NS at table 1 and EW at table 2, team 2 (away) the other way.
    Rounds go in twos: table 1 plays set r while table 2 plays set r + 1, then the tables swap boards. Pairs
    are PairId(team, "NS") and PairId(team, "EW"): the team's two partnerships.
    """
    _check("rounds of a team match", rounds, 2, MAX_ROUNDS)
    if rounds % 2:
        raise MovementError(f"a team match swaps the boards between its two tables, so its rounds come in twos: "
                            f"{rounds} rounds is odd (try {rounds + 1})")
    home_ns, home_ew, away_ns, away_ew = PairId(1, "NS"), PairId(1, "EW"), PairId(2, "NS"), PairId(2, "EW")
    layout = []
    for r in range(1, rounds + 1):
        first, second = (r, r + 1) if r % 2 else (r, r - 1)
        layout.append([(1, home_ns, away_ew, first), (2, away_ns, home_ew, second)])
    return laid_out("teams", 2, rounds, rounds, rounds, boards_per_round, first_board, layout)


def barometer(tables, boards_per_round, rounds=None, seating="howell", first_board=1, even=None):
    """A barometer: the pairs meet as a Howell's (or a Mitchell's) do, and in round r every table plays the same
    boards, set r (the boards duplicated, a copy at each table, played in order), so that a round's boards are
    finished everywhere at once and can be scored and shown before the next round."""
    if seating not in SEATINGS:
        raise MovementError(f"seating: a barometer's pairs move as a Howell's or a Mitchell's: one of "
                            f"{', '.join(SEATINGS)}, not {seating!r}")
    base = howell(tables, 1, rounds) if seating == "howell" else mitchell(tables, 1, rounds, even)
    layout = [[(p.table, p.ns, p.ew, r) for p in base.in_round(r)] for r in range(1, base.rounds + 1)]
    plays = []
    for r, row in enumerate(layout, 1):
        start = first_board + (r - 1) * boards_per_round
        plays += [TableRound(r, table, ns, ew, r, tuple(range(start, start + boards_per_round)))
                  for table, ns, ew, _ in row]
    _check("boards per round", boards_per_round, 1, MAX_BOARDS_PER_ROUND)
    if first_board + base.rounds * boards_per_round - 1 > MAX_BOARD:
        raise MovementError(f"boards: the last board would be {first_board + base.rounds * boards_per_round - 1}, "
                            f"more than {MAX_BOARD}")
    return Movement(f"barometer {seating}", base.tables, base.rounds, base.full_rounds, base.rounds,
                    boards_per_round, first_board, tuple(plays))


def build(spec, boards_per_round, first_board=1):
    """The movement an event file names: {"type": "mitchell", "tables": 7, "rounds": 6, "even": "skip"}."""
    kind = spec.get("type")
    if kind == "mitchell":
        return mitchell(spec.get("tables"), boards_per_round, spec.get("rounds"), spec.get("even"), first_board,
                        tuple(spec.get("arrow_switch") or ()))
    if spec.get("arrow_switch"):
        raise MovementError(f"arrow_switch: a Mitchell's rounds are arrow-switched, not a {kind}'s")
    if spec.get("seating") is not None and kind != "barometer":
        raise MovementError(f"seating: only a barometer's pairs are seated as a Howell's or a Mitchell's, not a "
                            f"{kind}'s")
    if "even" in spec and spec["even"] is not None and not (kind == "barometer" and spec.get("seating") == "mitchell"):
        raise MovementError(f'even: a skip or a relay is only for a Mitchell, not a {kind} movement')
    if kind == "howell":
        return howell(spec.get("tables"), boards_per_round, spec.get("rounds"), first_board)
    if kind == "barometer":
        return barometer(spec.get("tables"), boards_per_round, spec.get("rounds"), spec.get("seating") or "howell",
                         first_board, spec.get("even"))
    if kind == "teams":
        if spec.get("tables") not in (None, 2):
            raise MovementError(f"tables: a team match here is two tables (home and away), not {spec['tables']}")
        rounds = spec.get("rounds")
        return team_match(boards_per_round, 2 if rounds is None else rounds, first_board)
    raise MovementError(f"unknown movement {kind!r}: one of {', '.join(KINDS)}")


def sets_of(spec):
    """The number of board sets the movement named by `spec` uses (to check a total number of boards)."""
    return build(spec, 1).sets
