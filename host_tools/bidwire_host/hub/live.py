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
    """One board's terms, in groups that share everything but the pair and the numerators: [(side, a's
    denominator, c's denominator, (ta, tc), [(pair, a's numerator, c's numerator)])], side 0 for NS, 1 for EW.
    A board without adjusted scores is two groups, one a side."""
    n = len(rows)
    if all(r["adjusted"] is None for r in rows):
        ns, ew = [], []
        neuberg = method == "neuberg"
        for r, u in zip(rows, units([r["score_ns"] for r in rows]), strict=True):
            club, section, v = r["club_id"], r["section"], 2 * (n - 1) - u
            if neuberg:  # (M + 1) E / n - 1 on a top of 2E - 2
                ns.append(((club, section, r["ns"]), u + 1, -1))
                ew.append(((club, section, r["ew"]), v + 1, -1))
            else:  # M on a top of 2(n - 1)
                ns.append(((club, section, r["ns"]), 0, u))
                ew.append(((club, section, r["ew"]), 0, v))
        den, top = (n, (2, -2)) if neuberg else (1, (0, 2 * (n - 1)))
        return [(0, den, 1, top, ns), (1, den, 1, top, ew)]
    results = [field.as_result(r) for r in rows]
    if method == "neuberg":  # the board scored at two sizes; the terms are the line through them
        at_n, at_next = score_board(results, method, expected=n), score_board(results, method, expected=n + 1)
    else:
        at_n = at_next = score_board(results, method)
    out = []
    for r, one, two in zip(rows, at_n, at_next, strict=True):
        ta = two.top - one.top
        for side, number, m1, m2 in ((0, r["ns"], one.mp_ns, two.mp_ns), (1, r["ew"], one.mp_ew, two.mp_ew)):
            a = Fraction(m2) - Fraction(m1)
            c = Fraction(m1) - a * n
            out.append((side, a.denominator, c.denominator, (ta, one.top - ta * n),
                        [((r["club_id"], r["section"], number), a.numerator, c.numerator)]))
    return out


class LiveField:
    def __init__(self, sim):
        self.method, self.winners = sim["scoring"], sim["winners"]
        self.versions = {}  # board -> its change counter when read
        self.boards = {}  # board -> (rows, terms)
        self.a = ({}, {})  # side -> {a's denominator: {pair: sum of a's numerators}}
        self.c = ({}, {})  # side -> {c's denominator: {pair: sum of c's numerators}}
        self.tops = ({}, {})  # side -> {(ta, tc): {pair: results with that top}}
        self.played = ({}, {})  # side -> {pair: results}
        self.names = ({}, {})

    def fits(self, sim):
        return (self.method, self.winners) == (sim["scoring"], sim["winners"])

    def _apply(self, rows, terms, sign):
        for side, a_den, c_den, top, group in terms:
            a_acc = self.a[side].setdefault(a_den, {})
            c_acc = self.c[side].setdefault(c_den, {})
            t_acc = self.tops[side].setdefault(top, {})
            played = self.played[side]
            for key, a, c in group:  # the hot loop of a board's change: four dict updates a result and side
                a_acc[key] = a_acc.get(key, 0) + sign * a
                c_acc[key] = c_acc.get(key, 0) + sign * c
                t_acc[key] = t_acc.get(key, 0) + sign
                played[key] = played.get(key, 0) + sign
        if sign > 0:
            for r in rows:
                self.names[0][(r["club_id"], r["section"], r["ns"])] = r["ns_names"]
                self.names[1][(r["club_id"], r["section"], r["ew"])] = r["ew_names"]
            return
        for side in (0, 1):
            gone = [k for k, v in self.played[side].items() if v == 0]
            for key in gone:
                for parts in (self.a[side], self.c[side], self.tops[side]):
                    for acc in parts.values():
                        acc.pop(key, None)
                self.played[side].pop(key, None)
                self.names[side].pop(key, None)

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
        """{pair: (mp, top, boards)} at the current E, exact (the interface field.rank_field reads)."""
        e = self.expected()
        dens = [d for parts in (self.a, self.c) for p in parts for d, acc in p.items() if any(acc.values())]
        common = lcm(*dens) if dens else 1
        num, top = {}, {}  # pair -> matchpoints x common, top
        for parts, factor in ((self.a[side], e), (self.c[side], 1)):
            for d, acc in parts.items():
                k = factor * (common // d)
                for key, x in acc.items():
                    if x:
                        num[key] = num.get(key, 0) + x * k
        for (ta, tc), acc in self.tops[side].items():
            t = ta * e + tc
            for key, n in acc.items():
                if n:
                    top[key] = top.get(key, 0) + n * t
        out = {}
        for key, boards in self.played[side].items():
            mp = Fraction(num.get(key, 0), common)
            out[key] = (mp.numerator if mp.denominator == 1 else mp, top.get(key, 0), boards)
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
