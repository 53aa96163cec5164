"""Totals over boards and rankings with ties (laws.md §8.3 total points; §10.2 penalties deducted after).

A contestant is a pair (or team) id; in a two-winner movement (Mitchell) the NS and EW fields are ranked
apart and a contestant is ("NS", id) or ("EW", id). Equal totals share a rank, shown as "3=", and the next
rank skips (1, 2=, 2=, 4). Totals are exact (int or Fraction), so a tie is a real tie, never a float accident.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


class Total:
    """One contestant's running total: matchpoints and the tops they were scored on, IMPs, boards played.

    Sums are exact: an int part plus, for Fractions, integer numerators per denominator (cheap to add and
    take away as a board is re-scored), combined only when read.
    """

    __slots__ = ("contestant", "_mp", "_mp_parts", "top", "_imps", "_imp_parts", "boards", "scored_mp")

    def __init__(self, contestant):
        self.contestant = contestant
        self._mp = self.top = self._imps = self.boards = 0
        self._mp_parts = {}
        self._imp_parts = {}
        self.scored_mp = False

    @classmethod
    def summed(cls, contestant, mp, mp_parts, top, boards):
        """A matchpoint total already summed: `mp` whole units, {denominator: numerator} parts, tops, boards."""
        t = cls(contestant)
        t._mp, t._mp_parts, t.top, t.boards, t.scored_mp = mp, mp_parts, top, boards, True
        return t

    def add(self, mp, top, imp, sign=1):
        if mp is not None:
            if type(mp) is int:
                self._mp += sign * mp
            else:
                _acc(self._mp_parts, mp, sign)
            self.top += sign * top
            self.scored_mp = True
        if imp is not None:
            if type(imp) is int:
                self._imps += sign * imp
            else:
                _acc(self._imp_parts, imp, sign)
        self.boards += sign

    @property
    def mp(self):
        return _sum(self._mp, self._mp_parts)

    @property
    def imps(self):
        return _sum(self._imps, self._imp_parts)

    @property
    def pct(self):
        """Matchpoint percentage over the boards played (sum of matchpoints over sum of tops)."""
        if not self.scored_mp:
            return None
        if not self.top:
            return Fraction(50)
        mp = self.mp
        return Fraction(100 * mp, self.top) if type(mp) is int else mp * 100 / self.top


def _acc(parts, x, sign):
    d = x.denominator
    parts[d] = parts.get(d, 0) + sign * x.numerator


def _sum(whole, parts):
    if not parts:
        return whole
    total = whole + sum(Fraction(n, d) for d, n in parts.items() if n)
    return total.numerator if isinstance(total, Fraction) and total.denominator == 1 else total


@dataclass(frozen=True, slots=True)
class Standing:
    """A contestant's place: rank 1 is best; `tied` when another contestant has the same value."""

    rank: int
    tied: bool
    contestant: object
    value: int | Fraction

    @property
    def display(self):
        return f"{self.rank}=" if self.tied else str(self.rank)


def rank(values, *, higher_is_better=True):
    """Standings for {contestant: value}: equal values share the best rank among them ("=")."""
    sign = -1 if higher_is_better else 1
    # Sorting on floats is fast (each value's float worked once); values whose floats are equal are then ordered
    # exactly (Fractions), and only exactly equal values tie.
    ordered = sorted(((sign * float(v), c, v) for c, v in values.items()), key=lambda x: x[0])
    i, n = 0, len(ordered)
    while i < n:
        j = i + 1
        while j < n and ordered[j][0] == ordered[i][0]:
            j += 1
        if j - i > 1:
            ordered[i:j] = sorted(ordered[i:j], key=lambda x: (sign * x[2], tie_key(x[1])))
        i = j
    out = []
    i = 0
    while i < n:
        j = i + 1
        while j < n and ordered[j][0] == ordered[i][0] and ordered[j][2] == ordered[i][2]:  # unequal floats: unequal
            j += 1
        tied = j - i > 1
        for _, contestant, value in ordered[i:j]:
            out.append(Standing(i + 1, tied, contestant, value))
        i = j
    return out


NEAR = 1e-9  # percentage points: floats this close are compared exactly (a float sum is off by ~1e-13)


def near_runs(desc):
    """(lo, hi) of each run of neighbours in `desc` (a numpy array of floats, best first) closer than NEAR: the only
    places where a float step may not be a real step, to be ordered again on exact values (the club's whole field,
    scoring/whole_field.py, and the hub's tally)."""
    close = (desc[:-1] - desc[1:] <= NEAR).nonzero()[0].tolist()
    i = 0
    while i < len(close):
        j = i
        while j + 1 < len(close) and close[j + 1] == close[j] + 1:
            j += 1
        yield close[i], close[j] + 2
        i = j + 1


def tie_key(contestant):
    """Sort key for contestants that tie: numeric ids in numeric order ('2' before '10'), then text."""
    parts = contestant if isinstance(contestant, tuple) else (contestant,)
    return tuple((0, int(p), "") if isinstance(p, str) and p.isdecimal() else (1, 0, str(p)) for p in parts)


def contestants(result, two_fields):
    """The (NS, EW) contestants of a result; None for a side with no id."""
    if two_fields:
        return (None if result.ns is None else ("NS", result.ns), None if result.ew is None else ("EW", result.ew))
    return result.ns, result.ew


def two_field_movement(results):
    """Guess a two-winner movement (Mitchell): some pair id sits both NS and EW on one board.

    In a Mitchell NS pair 1 and EW pair 1 are different pairs and often meet on the same board; in a Howell a
    pair id is unique and never plays a board twice.
    """
    seen = {}
    for r in results:
        if r.ns is not None and r.ns == r.ew:
            return True
        for direction, pair in (("NS", r.ns), ("EW", r.ew)):
            if pair is None:
                continue
            other = seen.get((r.board, pair))
            if other is not None and other != direction:
                return True
            seen[(r.board, pair)] = direction
    return False


def add_rows(all_totals, rows, two_fields=False, sign=1):
    """Add (sign 1) or take away (sign -1) scored rows in {contestant: Total}; rows with a problem are left out.

    A contestant whose boards fall to 0 is dropped, so a removed result leaves no empty total behind.
    """
    for row in rows:
        if row.problem:
            continue
        ns, ew = contestants(row.result, two_fields)
        for who, mp, imp in ((ns, row.mp_ns, row.imp_ns), (ew, row.mp_ew, row.imp_ew)):
            if who is None or (mp is None and imp is None):
                continue
            t = all_totals.get(who)
            if t is None:
                t = all_totals[who] = Total(who)
            t.add(mp, row.top if mp is not None else None, imp, sign)
            if not t.boards:
                del all_totals[who]
    return all_totals


def totals(rows, two_fields=False):
    """{contestant: Total} summed over scored rows."""
    return add_rows({}, rows, two_fields)


def field_of(contestant):
    return contestant[0] if isinstance(contestant, tuple) else None


def ranking(all_totals, *, by="pct", penalties=None):
    """Standings per field (NS and EW apart in a two-winner movement), best first.

    `by`: "pct" (matchpoint percentage), "mp" (matchpoint total) or "imps". `penalties` maps a contestant to
    an amount already in that unit, deducted before ranking (Law 90 procedural penalties, §10.2).
    """
    penalties = penalties or {}
    fields = {}
    for who, t in all_totals.items():
        value = {"pct": t.pct, "mp": t.mp, "imps": t.imps}[by]
        if value is None:
            continue
        penalty = penalties.get(who)
        fields.setdefault(field_of(who), {})[who] = value if not penalty else value - penalty
    out = []
    for field in sorted(fields, key=lambda f: (None, "NS", "EW").index(f) if f in (None, "NS", "EW") else 3):
        out.extend(rank(fields[field]))
    return out
