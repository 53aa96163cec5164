"""The live field of one sim in one worker: rescored board by board as results arrive (state.Hub keeps one).

Neuberg's factored score is linear in E, the size of the most-played board: a result with M units among n
results scores (M + 1)·E/n - 1 on a top of 2(E - 1), and an artificial p% of that top is (p/50)·E - p/50. So
every result gives its pair a·E + c matchpoints on a top of ta·E + tc, with a, c, ta and tc taken from its own
board alone. A pair's total is then A·E + C on a top of TA·E + TC, where A, C, TA and TC are sums kept per pair.
When a board's results change, its old terms come out of the sums and its new ones go in; E, which grows with
nearly every upload during play, is applied only when the ranking is read. With plain matchpoints nothing is
factored: a = ta = 0. Everything stays exact (integers over the least common multiple of the denominators), and
tests/hub/test_live_field.py holds the figures to field.score's, worked from all the rows at once.

Which boards changed comes from the database (records.board_changes, bumped in the transaction of each change),
so a worker reads again only those boards' results.
"""
from fractions import Fraction
from math import lcm

from bidwire_host.hub import field, records
from bidwire_host.scoring.matchpoints import units
from bidwire_host.scoring.session import score_board


def _terms(rows, method):
    """[(side, pair, a numerator, a denominator, c, ta, tc)] for one board's rows (side 0 NS, 1 EW)."""
    n = len(rows)
    out = []
    if all(r["adjusted"] is None for r in rows):
        for r, u in zip(rows, units([r["score_ns"] for r in rows]), strict=True):
            for side, number, m in ((0, r["ns"], u), (1, r["ew"], 2 * (n - 1) - u)):
                key = (r["club_id"], r["section"], number)
                if method == "neuberg":
                    out.append((side, key, m + 1, n, -1, 2, -2))
                else:
                    out.append((side, key, 0, 1, m, 0, 2 * (n - 1)))
        return out
    results = [field.as_result(r) for r in rows]
    if method == "neuberg":  # the board scored at two sizes; the terms are the line through them
        at_n, at_next = score_board(results, method, expected=n), score_board(results, method, expected=n + 1)
    else:
        at_n = at_next = score_board(results, method)
    for r, one, two in zip(rows, at_n, at_next, strict=True):
        ta = two.top - one.top
        for side, number, m1, m2 in ((0, r["ns"], one.mp_ns, two.mp_ns), (1, r["ew"], one.mp_ew, two.mp_ew)):
            a = Fraction(m2) - Fraction(m1)
            c = Fraction(m1) - a * n
            out.append((side, (r["club_id"], r["section"], number), a.numerator, a.denominator, c, ta,
                        one.top - ta * n))
    return out


class LiveField:
    def __init__(self, sim):
        self.method, self.winners = sim["scoring"], sim["winners"]
        self.versions = {}  # board -> its change counter when read
        self.boards = {}  # board -> (rows, terms)
        self.a = ({}, {})  # side -> {denominator: {pair: numerators}}
        self.c = ({}, {})  # side -> {denominator: {pair: numerators}}
        self.ta, self.tc, self.played = ({}, {}), ({}, {}), ({}, {})  # side -> {pair: sum}
        self.names = ({}, {})

    def fits(self, sim):
        return (self.method, self.winners) == (sim["scoring"], sim["winners"])

    def _apply(self, rows, terms, sign):
        names = {}
        if sign > 0:
            for r in rows:
                names[(0, (r["club_id"], r["section"], r["ns"]))] = r["ns_names"]
                names[(1, (r["club_id"], r["section"], r["ew"]))] = r["ew_names"]
        for side, key, a_num, a_den, c, ta, tc in terms:
            acc = self.a[side].setdefault(a_den, {})
            acc[key] = acc.get(key, 0) + sign * a_num
            c = Fraction(c)
            acc = self.c[side].setdefault(c.denominator, {})
            acc[key] = acc.get(key, 0) + sign * c.numerator
            for sums, value in ((self.ta[side], ta), (self.tc[side], tc), (self.played[side], 1)):
                sums[key] = sums.get(key, 0) + sign * value
            if self.played[side][key] == 0:
                self._forget(side, key)
            elif sign > 0:
                self.names[side][key] = names[(side, key)]

    def _forget(self, side, key):
        for parts in (self.a[side], self.c[side]):
            for acc in parts.values():
                acc.pop(key, None)
        for sums in (self.ta[side], self.tc[side], self.played[side], self.names[side]):
            sums.pop(key, None)

    def refresh(self, conn, sim):
        """Read again the boards that changed since the last refresh; the field as of now."""
        versions = records.board_changes(conn, sim["id"])
        changed = [b for b, v in versions.items() if self.versions.get(b) != v]
        if changed:
            fresh = {b: [] for b in changed}
            for r in records.results(conn, sim["id"], changed):
                fresh[r["board"]].append(r)
            self.update(fresh)
            self.versions.update({b: versions[b] for b in changed})
        return self.field()

    def update(self, boards):
        """Put each board's results ({board: rows}, [] for none left) in place of what the sums held for it."""
        for b, rows in boards.items():
            old = self.boards.pop(b, None)
            if old is not None:
                self._apply(*old, -1)
            if rows:
                terms = _terms(rows, self.method)
                self._apply(rows, terms, 1)
                self.boards[b] = (rows, terms)

    def totals(self, side):
        """{pair: (mp, top, boards)} at the current E, exact (the interface field._rank reads)."""
        e = self.expected()
        dens = [d for parts in (self.a, self.c) for p in parts for d, acc in p.items() if any(acc.values())]
        common = lcm(*dens) if dens else 1
        a_sum, c_sum = {}, {}
        for parts, sums in ((self.a[side], a_sum), (self.c[side], c_sum)):
            for d, acc in parts.items():
                k = common // d
                for key, num in acc.items():
                    if num:
                        sums[key] = sums.get(key, 0) + num * k
        out = {}
        for key, boards in self.played[side].items():
            mp = Fraction(e * a_sum.get(key, 0) + c_sum.get(key, 0), common)
            out[key] = (mp.numerator if mp.denominator == 1 else mp,
                        e * self.ta[side][key] + self.tc[side][key], boards)
        return out

    def expected(self):
        return max((len(rows) for rows, _ in self.boards.values()), default=0)

    def field(self):
        if not self.boards:
            return field.Field(field.Boards({}), [], {}, 0)
        e = self.expected()
        build = {b: (lambda rows=rows: field.board_rows(rows, self.method, e)) for b, (rows, _) in
                 self.boards.items()}
        ranking, clubs = field.rank_field(self, self.winners)
        return field.Field(field.Boards(build), ranking, clubs, sum(len(rows) for rows, _ in self.boards.values()))
