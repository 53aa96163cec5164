"""Each pair's matchpoints across the whole field, worked for every board at once in numpy arrays, and the
rankings.

A result with M matchpoint units among the n results of its board scores, with Neuberg to E (the most-played
board's size), (M + 1)·E/n - 1 on a top of 2E - 2; with plain matchpoints M on a top of 2(n - 1). An artificial
adjusted score is p% of the board's top, which is again a line in E. So every result gives its pair
a·E + c matchpoints on a top of ta·E + tc, with a, c, ta and tc taken from its own board alone.

A board holds its results as they came (`_Board`: the rows, and beside them each one's score and pair indices),
so a change costs its own rows (hub/live_field.py merges the results set since the last read). The field is scored
from what the boards hold, all at once, whenever it is asked for after a change: the matchpoint units of every
plain board in one sort on (board, score), each result's terms from them, each pair's sums per denominator in
one bincount, E applied, and the ranking. A board with an adjusted score is scored through the club's scoring
core. That is the full rescoring `make bench` times (docs/benchmarks.md "The hub").

Everything stays exact: the sums are integer numerators per denominator (a board's n), added in float64 only
while they are far below 2**53. The ranking is sorted on each pair's percentage as a float, and wherever two
floats are closer than `ranking.NEAR` the pairs are ordered again on their exact percentages (Fractions), so only
exactly equal percentages tie. A ranking entry works its exact matchpoints and percentage when first read.
tests/hub/test_field_fast.py holds every figure to the club's scoring core (scoring.session).
"""
from collections.abc import Sequence
from fractions import Fraction
from itertools import chain
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from bidwire_host.scoring import law78a
from bidwire_host.scoring.model import Artificial, Assigned, Result
from bidwire_host.scoring.ranking import near_runs, tie_key
from bidwire_host.scoring.session import score_board

_EXACT_FLOAT = 2 ** 52  # integer sums below this are exact in float64 (numpy's bincount adds in float64)
# a pair, each side: its club, session ("" in a sim of one), section and number
_KEYS = (itemgetter("club_id", "session", "section", "ns"), itemgetter("club_id", "session", "section", "ew"))
_NAMES = (itemgetter("ns_names"), itemgetter("ew_names"))
_SCORE = itemgetter("score_ns")
ROW_KEY = itemgetter("club_id", "session", "section", "ns", "ew")  # a result on its board


class Pair(NamedTuple):
    club: str
    section: str
    number: str
    direction: str  # "NS" or "EW": where it sat
    session: str = ""  # in a sim of several sessions, the one its club's heat was

    @property
    def label(self):
        return f"{self.club} {self.session + ' ' if self.session else ''}{self.section}{self.number} {self.direction}"


def pair_id(club, section, number, session=""):
    """A pair's id across the field, as the exports print it: club, section and number ("C1-A-3"), and in a sim
    of several sessions club, session, section and number ("C1-eve-A-3"). A club's id, a session and a section
    hold no "-" (sim_ids.py, hub/inputs.py), and a sim's results all name a session or none, so the parts before
    the number are what comes before the first "-"s, and the number the rest (which may hold "-")."""
    return f"{club}-{session}-{section}-{number}" if session else f"{club}-{section}-{number}"


def as_result(row):
    """A stored result (records.results) as the scoring core's Result."""
    adjusted = None
    a = row["adjusted"]
    if a:
        if "ns" in a:
            adjusted = Artificial(Fraction(str(a["ns"])), Fraction(str(a["ew"])))
        else:
            adjusted = Assigned(a["ns_score"], a["ew_score"])
    return Result(row["board"], pair_id(row["club_id"], row["section"], row["ns"], row["session"]),
                  pair_id(row["club_id"], row["section"], row["ew"], row["session"]), row["score_ns"], row["contract"],
                  row["declarer"], row["tricks"], adjusted, table=row["club_id"])


class _Side:
    """One side's pairs (NS or EW): (club, session, section, number) -> index in the sums, and each pair's club as a
    number (the tally's `club` codes)."""

    def __init__(self, clubs):
        self.index = {}
        self.keys = []
        self._codes = clubs  # the tally's club codes
        self.club = []  # each pair's club's code

    def indices(self, keys):
        index = self.index
        try:  # during play nearly every pair is known already
            return np.fromiter(map(index.__getitem__, keys), np.int64, len(keys))
        except KeyError:
            for k in keys:
                if k not in index:
                    index[k] = len(self.keys)
                    self.keys.append(k)
                    self.club.append(self._codes[k[0]])
            return np.fromiter(map(index.__getitem__, keys), np.int64, len(keys))


class _Codes(dict):
    def __missing__(self, club):
        code = self[club] = len(self)
        return code


def _adjusted(rows, method):
    """A board with an adjusted score, through the club's scoring core: scored at two sizes, the line through
    them (with plain matchpoints both are the same, a = 0)."""
    n = len(rows)
    results = [as_result(r) for r in rows]
    if method == "neuberg":
        at_n, at_next = score_board(results, method, expected=n), score_board(results, method, expected=n + 1)
    else:
        at_n = at_next = score_board(results, method)
    sides = []
    for side in (0, 1):
        parts = []
        for one, two in zip(at_n, at_next, strict=True):
            m1, m2 = Fraction(one.mp_ns if side == 0 else one.mp_ew), Fraction(two.mp_ns if side == 0 else two.mp_ew)
            a = m2 - m1
            c = m1 - a * n
            ta = two.top - one.top
            parts.append((a.numerator, a.denominator, c.numerator, c.denominator, ta, one.top - ta * n))
        cols = [np.array(col, dtype=np.int64) for col in zip(*parts, strict=True)]
        sides.append(tuple(cols))
    return sides


class _Board:
    """One board's results as the tally holds them: the rows in the order they came, and beside each its pairs'
    indices, names, score and whether it is adjusted, so that a change costs its own rows, not the board's."""

    def __init__(self):
        self.at = {}  # (club, session, section, ns, ew) -> position
        self.rows, self.scores, self.adjusted = [], [], 0
        self.pairs = ([], [])  # side -> each row's pair index
        self.names = ([], [])

    def merge(self, sides, rows):
        if not self.rows and self._fill(sides, rows):
            return
        at, held = self.at, self.rows
        self.pairs = tuple(p if isinstance(p, list) else p.tolist() for p in self.pairs)
        if not isinstance(self.scores, list):
            self.scores = self.scores.tolist()
        new = []  # (position, row) of the rows for pairs the board did not hold
        for r in rows:
            key = ROW_KEY(r)
            i = at.get(key)
            if i is None:
                i = at[key] = len(held)
                held.append(r)
                self.scores.append(r["score_ns"])
                self.adjusted += r["adjusted"] is not None
                for side in (0, 1):
                    self.pairs[side].append(-1)
                    self.names[side].append(r[("ns_names", "ew_names")[side]])
                new.append((i, r))
            else:
                self.adjusted += (r["adjusted"] is not None) - (held[i]["adjusted"] is not None)
                held[i] = r
                self.scores[i] = r["score_ns"]
                for side in (0, 1):
                    self.names[side][i] = r[("ns_names", "ew_names")[side]]
        for s, (side, keys) in enumerate(zip(sides, _KEYS, strict=True)):
            indices = side.indices([keys(r) for _, r in new]).tolist()
            for (i, _), k in zip(new, indices, strict=True):
                self.pairs[s][i] = k

    def _fill(self, sides, rows):
        """An empty board's rows at once (a board read whole): False when two rows hold the same pairs."""
        at = dict(zip(map(ROW_KEY, rows), range(len(rows)), strict=True))
        if len(at) != len(rows):
            return False
        self.at, self.rows = at, list(rows)
        self.adjusted = sum(r["adjusted"] is not None for r in rows)
        # arrays while the board is as read (lists once a change is merged into it)
        self.scores = np.fromiter(map(_SCORE, rows), np.int64, len(rows)) if not self.adjusted else \
            list(map(_SCORE, rows))
        self.pairs = tuple(side.indices(list(map(keys, rows))) for side, keys in zip(sides, _KEYS, strict=True))
        self.names = tuple(list(map(names, rows)) for names in _NAMES)
        return True


class Tally:
    """Every board's results, held as they came (`_Board`), and the field scored from them all at once: each
    result's terms, each pair's sums and the ranking, in numpy (`ranking`)."""

    def __init__(self, method):
        self.method = method
        self.club = _Codes()  # club id -> a number, for the clubs' own rankings
        self.sides = (_Side(self.club), _Side(self.club))
        self._held = {}  # board -> _Board
        self._totals = None  # the pairs' sums as last worked (`totals`), until a board changes

    @property
    def rows(self):
        """{board: its rows}."""
        return {b: held.rows for b, held in self._held.items() if held.rows}

    def put(self, board, rows):
        """Hold `rows` as the board's results, in place of any it had ([] for none left)."""
        self._held.pop(board, None)
        self._totals = None
        if rows:
            self.merge(board, rows)

    def merge(self, board, rows):
        """Add `rows` to the board's results, each in place of the one it held for the same pairs, if any."""
        held = self._held.get(board)
        if held is None:
            held = self._held[board] = _Board()
        held.merge(self.sides, rows)
        self._totals = None

    def expected(self):
        """E: the most-played board's results."""
        return max((len(held.rows) for held in self._held.values()), default=0)

    def clubs(self):
        """{club id: (results, boards)} of every club that holds a result: counted from the NS pairs' clubs,
        board by board, in numpy."""
        code = np.asarray(self.sides[0].club, np.int64)
        n = len(self.club)
        results, boards = np.zeros(n, np.int64), np.zeros(n, np.int64)
        for held in self._held.values():
            if held.rows:
                counts = np.bincount(code[np.asarray(held.pairs[0], np.int64)], minlength=n)
                results += counts
                boards += counts > 0
        return {club: (int(results[c]), int(boards[c])) for club, c in self.club.items() if results[c]}

    def results(self):
        return sum(len(held.rows) for held in self._held.values())

    def totals(self, side):
        """One side's sums at the current E: `_Totals`, worked for both sides at once from every board."""
        if self._totals is None:
            self._totals = self._score()
        return self._totals[side]

    def _score(self):
        """Each result's terms (a plain board's from its matchpoint units, all plain boards in one sort; an
        adjusted board's through the scoring core), each pair's sums per denominator, E applied."""
        e = self.expected()
        boards = [self._held[b] for b in sorted(self._held) if self._held[b].rows]
        plain = [held for held in boards if not held.adjusted]
        parts = ([], [])  # side -> [(pair indices, a_num, a_den, c_num, c_den, ta, tc)], arrays of one length
        if plain:
            sizes = np.fromiter((len(held.rows) for held in plain), np.int64, len(plain))
            n = np.repeat(sizes, sizes)
            code = np.repeat(np.arange(len(plain), dtype=np.int64), sizes)
            u_ns = law78a.units(code, np.concatenate([np.asarray(held.scores, np.int64) for held in plain]))
            for side, u in enumerate((u_ns, 2 * (n - 1) - u_ns)):
                pair = np.concatenate([np.asarray(held.pairs[side], np.int64) for held in plain])
                one = np.ones_like(n)
                if self.method == "neuberg":  # (M + 1) E / n - 1 on a top of 2E - 2
                    parts[side].append((pair, u + 1, n, -one, one, 2 * one, -2 * one))
                else:  # M on a top of 2(n - 1)
                    parts[side].append((pair, 0 * one, one, u, one, 0 * one, 2 * (n - 1)))
        for held in boards:
            if held.adjusted:
                for side, terms in enumerate(_adjusted(held.rows, self.method)):
                    parts[side].append((np.asarray(held.pairs[side], np.int64), *terms))
        names = [_Names(boards, side) for side in (0, 1)]
        return tuple(_totals(e, len(self.sides[side].keys), parts[side], names[side]) for side in (0, 1))

    def ranking(self, winners):
        """The ranking (one list, or NS and EW apart, NS first) best first, as a `Ranking`."""
        totals = (self.totals(0), self.totals(1))
        groups = [(0, 1)] if winners == "one" else [(0,), (1,)]
        return Ranking(self, totals, [self._rank(totals, sides) for sides in groups])

    def _rank(self, totals, sides):
        """One field's order: (field name, [(side, pair index)] best first, rank, tied, club rank, club tied)."""
        who, pcts, clubs = [], [], []  # of every pair that holds a result: (side, index), its percentage as a float
        for s in sides:
            t = totals[s]
            present = np.flatnonzero(t.played)
            who.append(np.stack([np.full(present.size, s), present], axis=1))
            top = t.top[present]
            with np.errstate(divide="ignore", invalid="ignore"):
                pcts.append(np.where(top > 0, 100 * t.mp[present] / np.where(top > 0, top, 1), 50.0))
            clubs.append(np.asarray(self.sides[s].club, np.int64)[present])
        pct = np.concatenate(pcts)
        order = np.argsort(-pct, kind="stable")
        pct, who, clubs = pct[order], np.concatenate(who)[order].tolist(), np.concatenate(clubs)[order]
        n = len(who)
        tie = np.arange(n)  # each entry's tie group: the position of the group's first entry
        # Where the floats of neighbours are too close to tell apart they are ordered again, exactly; elsewhere a
        # float step is a real step, so only entries in those runs can tie.
        for lo, hi in near_runs(pct):  # the run is who[lo:hi]
            run = self._exact_order(totals, who[lo:hi])
            who[lo:hi] = [w for w, _ in run]
            clubs[lo:hi] = [self.sides[s].club[k] for s, k in who[lo:hi]]
            for k in range(1, len(run)):
                if run[k][1] == run[k - 1][1]:
                    tie[lo + k] = tie[lo + k - 1]
        tied = np.bincount(tie, minlength=n)[tie] > 1
        club_rank, club_tied = _within(clubs, tie)
        return ("+".join(("NS", "EW")[s] for s in sides), who, (tie + 1).tolist(), tied.tolist(),
                club_rank.tolist(), club_tied.tolist())

    def _exact_order(self, totals, run):
        """A run of entries whose floats are too close to tell apart, ordered on their exact percentages, then
        as the club's scoring orders contestants that tie: [((side, index), what it ties on)]. Pairs with the
        same sums have the same percentage, so a Fraction is worked once for each different set of sums."""
        sums = [totals[s].sums(k) for s, k in run]
        exact = {}
        if len(set(sums)) > 1:
            for (s, k), key in zip(run, sums, strict=True):
                if key not in exact:
                    exact[key] = totals[s].exact_pct(k)
        tied_on = [exact.get(key, key) for key in sums]
        order = sorted(range(len(run)), key=lambda x: (-exact[sums[x]] if exact else 0,
                                                       tie_key(self._contestant(*run[x]))))
        return [(run[x], tied_on[x]) for x in order]

    def _contestant(self, side, index):
        """The pair as the club's scoring ranks contestants that tie: direction, club, session, section, number."""
        return (("NS", "EW")[side], *self.sides[side].keys[index])


class _Names:
    """Each pair's names as the latest board it played gives them, whatever the upload order: the position of
    its last row over the boards in order, and the names read when a ranking entry is made. Taken whole when
    made: a later merge changes the boards' lists."""

    def __init__(self, boards, side):
        self._all = list(chain.from_iterable(held.names[side] for held in boards))
        pair = np.concatenate([np.asarray(held.pairs[side], np.int64) for held in boards]) if boards else \
            np.zeros(0, np.int64)
        self._last = np.full(int(pair.max(initial=-1)) + 1, -1, np.int64)
        np.maximum.at(self._last, pair, np.arange(pair.size))

    def __getitem__(self, i):
        return self._all[self._last[i]] if i < self._last.size and self._last[i] >= 0 else ""


def _totals(e, size, parts, names):
    """One side's `_Totals` from its results' terms."""
    cols = [np.concatenate(col) if col else np.zeros(0, np.int64) for col in zip(*parts, strict=True)] \
        if parts else [np.zeros(0, np.int64)] * 7
    pair, a_num, a_den, c_num, c_den, ta, tc = cols
    a, c = _by_denominator(pair, a_num, a_den, size), _by_denominator(pair, c_num, c_den, size)
    mp = np.zeros(size)
    for d, sums in a.items():
        mp += e * sums / d
    for d, sums in c.items():
        mp += sums / d
    ta, tc = _sum(pair, ta, size), _sum(pair, tc, size)
    return _Totals(e, a, c, mp, e * ta + tc, np.bincount(pair, minlength=size), names)


def _within(clubs, tie):
    """Each entry's rank within its club (1 best) and whether it ties there, from the field's order: entries tie
    in their club when they tie in the field."""
    n = len(clubs)
    at = np.arange(n)
    order = np.lexsort((at, clubs))  # by club, then by place in the field
    c, t = clubs[order], tie[order]
    new_club = np.r_[True, c[1:] != c[:-1]] if n else np.zeros(0, bool)
    new_group = new_club | (np.r_[True, t[1:] != t[:-1]] if n else new_club)
    club_start = np.maximum.accumulate(np.where(new_club, at, 0))
    group_start = np.maximum.accumulate(np.where(new_group, at, 0))
    group = np.cumsum(new_group) - 1
    rank, tied = np.empty(n, np.int64), np.empty(n, bool)
    rank[order] = group_start - club_start + 1
    tied[order] = np.bincount(group, minlength=max(1, n))[group] > 1 if n else tied
    return rank, tied


class Ranking(Sequence):
    """The ranking, best first: its order, ranks and club ranks are worked when the field is scored; each
    entry (a dict: rank, pair, names, pct, mp, top, boards, field, club_rank) is made when first read."""

    def __init__(self, tally, totals, parts):
        self._tally, self._totals = tally, totals
        self._parts = parts
        self._made = {}
        self._starts = []
        at = 0
        for part in parts:
            self._starts.append(at)
            at += len(part[1])
        self._len = at

    def __len__(self):
        return self._len

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._len))]
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(i)
        made = self._made.get(i)
        if made is None:
            made = self._made[i] = self._make(i)
        return made

    def _make(self, i):
        p = max(k for k, start in enumerate(self._starts) if start <= i)
        name, who, rank, tied, club_rank, club_tied = self._parts[p]
        k = i - self._starts[p]
        side, index = who[k]
        t = self._totals[side]
        club, session, section, number = self._tally.sides[side].keys[index]
        e = Entry(rank=f"{rank[k]}=" if tied[k] else str(rank[k]),
                  pair=Pair(club, section, number, ("NS", "EW")[side], session),
                  names=t.names[index], top=int(t.top[index]), boards=int(t.played[index]), field=name,
                  club_rank=f"{club_rank[k]}=" if club_tied[k] else str(club_rank[k]))
        e.exact = (t, index)
        return e

    def of_club(self, club):
        """The club's entries, in the field's order (a list)."""
        out = []
        keys = (self._tally.sides[0].keys, self._tally.sides[1].keys)
        for p, (_name, who, *_rest) in enumerate(self._parts):
            out.extend(self[self._starts[p] + k] for k, (side, index) in enumerate(who) if keys[side][index][0] == club)
        return out

    def __eq__(self, other):
        return list(self) == list(other)

    __hash__ = None


class _Totals(NamedTuple):
    e: int
    a: dict  # denominator -> int64 array of a's numerators summed per pair
    c: dict
    mp: np.ndarray  # float64: for sorting only
    top: np.ndarray
    played: np.ndarray
    names: object  # pair index -> its names (_Names)

    def sums(self, i):
        """What the pair's percentage is worked from: pairs with the same sums have the same percentage."""
        return (tuple((d, int(s[i])) for d, s in self.a.items() if s[i]),
                tuple((d, int(s[i])) for d, s in self.c.items() if s[i]), int(self.top[i]))

    def exact_mp(self, i):
        mp = sum((Fraction(self.e * int(s[i]), d) for d, s in self.a.items() if s[i]), Fraction(0))
        mp += sum((Fraction(int(s[i]), d) for d, s in self.c.items() if s[i]), Fraction(0))
        return mp.numerator if mp.denominator == 1 else mp

    def exact_pct(self, i):
        top = int(self.top[i])
        return Fraction(50) if not top else Fraction(self.exact_mp(i)) * 100 / top


def _sum(pair, values, size):
    """Integer sums per pair, exact."""
    if not values.size:
        return np.zeros(size, np.int64)
    if int(np.abs(values).sum()) < _EXACT_FLOAT:
        return np.rint(np.bincount(pair, weights=values, minlength=size)).astype(np.int64)
    out = np.zeros(size, np.int64)
    np.add.at(out, pair, values)
    return out


def _by_denominator(pair, num, den, size):
    """{denominator: numerators summed per pair}, zero sums left out: one bincount over (denominator, pair)."""
    if not pair.size:
        return {}
    dens, which = np.unique(den, return_inverse=True)
    flat = _sum(which * size + pair, num, dens.size * size).reshape(dens.size, size)
    return {int(d): sums for d, sums in zip(dens.tolist(), flat, strict=True) if sums.any()}


class Entry(dict):
    """A ranking entry: rank, pair, names, top, boards, field, club_rank, and its exact "mp" and "pct", worked
    when first read (a page of 10,000 pairs reads them all once; a rescoring during play needs only the order)."""

    __slots__ = ("exact",)

    def __missing__(self, key):
        if key not in ("mp", "pct"):
            raise KeyError(key)
        totals, i = self.exact
        self["mp"] = totals.exact_mp(i)
        self["pct"] = totals.exact_pct(i)
        return self[key]
