"""A whole field's matchpoints at once, when no result on it is adjusted: every board's Law 78 A units in one
sort (scoring.law78a), Neuberg where a board has fewer results than `expected`, each contestant's sums in a
bincount. The figures are scoring.matchpoints.score_board's, board by board (tests/host/test_whole_field.py
holds them to it); a board's rows (scoring.model.Row) are built only when read.

Sums stay exact: a Neuberg-factored result scores ((M + 1)·E - n) / n, kept as an integer numerator over its
board's n (Total's parts by denominator), and numpy adds integers in float64 only while far below 2**53.
"""
from collections.abc import Mapping, Sequence
from functools import partial
from itertools import count
from operator import attrgetter

import numpy as np

from bidwire_host.scoring import law78a
from bidwire_host.scoring.boards import Boards
from bidwire_host.scoring.model import Row, ScoringError, ratio
from bidwire_host.scoring.ranking import Standing, Total, near_runs, tie_key

_EXACT_FLOAT = 2 ** 52
_BOARD, _NS, _EW, _SCORE = (attrgetter(a) for a in ("board", "ns", "ew", "score_ns"))


def plain(results):
    """True when no result is adjusted (the whole field can be scored here)."""
    return not any(map(attrgetter("adjusted"), results))


def score(results, method, *, two_fields, expected=None):
    """({board: [Row]}, {contestant: Total}, standings) for plain results under "mp" or "neuberg" (`expected`:
    Neuberg's size, default the biggest board's)."""
    count_ = len(results)
    boards = np.fromiter(map(_BOARD, results), np.int64, count_)
    u_ns, n = law78a.units_and_sizes(boards, np.fromiter(map(_SCORE, results), np.int64, count_))
    biggest = int(n.max(initial=0))
    u_ew = 2 * (n - 1) - u_ns
    num_ns, num_ew, den = u_ns, u_ew, None  # den None: every result's units are whole (nothing factored)
    if method == "neuberg":
        e = biggest if expected is None else expected
        if biggest > e:
            raise ScoringError(f"board {int(boards[np.argmax(n)])}: {biggest} results on a board expected to have {e}")
        top = np.full(count_, 2 * (e - 1) if e > 1 else 0, np.int64)
        factored = n != e
        if factored.any():  # ((M + 1) E - n) / n
            num_ns = np.where(factored, (u_ns + 1) * e - n, u_ns)
            num_ew = np.where(factored, (u_ew + 1) * e - n, u_ew)
            den = np.where(factored, n, 1)
    else:
        e = biggest
        top = 2 * (n - 1)
    # every figure summed is at most 2(E + 1)^2 in size, over at most 2 x count_ of them
    exact = 4 * count_ * (max(e, biggest) + 1) ** 2 < _EXACT_FLOAT
    totals = _totals(results, two_fields, (num_ns, num_ew), den, top, exact)
    return _rows(results, boards, num_ns, num_ew, den, top), totals, standings(totals)


def _rows(results, boards, num_ns, num_ew, den, top):
    """{board: [Row]}, a board's rows made when it is first read (each board's results in the order they came)."""
    parts = {}

    def board_rows(board):
        if not parts:
            order = boards.argsort(kind="stable")
            for part in np.split(order, np.diff(boards[order]).nonzero()[0] + 1):
                parts[int(boards[part[0]])] = part.tolist()
        if den is None:
            return [Row(results[i], int(num_ns[i]), int(num_ew[i]), int(top[i])) for i in parts[board]]
        return [Row(results[i], ratio(int(num_ns[i]), int(den[i])), ratio(int(num_ew[i]), int(den[i])),
                    int(top[i])) for i in parts[board]]

    return Boards({b: partial(board_rows, b) for b in sorted(set(boards.tolist()))})


class Totals(Mapping):
    """{contestant: Total}, the sums held in arrays by contestant code, each Total made when read. `fields`:
    [(field, {pair id: code})], field "NS"/"EW" (a contestant is (field, pair id)) or None (it is the pair id)."""

    def __init__(self, fields, mp, parts, tops, boards):
        for _, codes in fields:
            codes.pop(None, None)  # a side with no pair id
        self.fields = fields
        self.mp, self.parts, self.tops, self.boards = mp, parts, tops, boards

    def contestant(self, name, pair):
        return pair if name is None else (name, pair)

    def code(self, contestant):
        for name, codes in self.fields:
            if name is None:
                return codes[contestant]
            if isinstance(contestant, tuple) and contestant[0] == name:
                return codes[contestant[1]]
        raise KeyError(contestant)

    def total(self, contestant, c):
        return Total.summed(contestant, int(self.mp[c]), {d: int(s[c]) for d, s in self.parts if s[c]},
                            int(self.tops[c]), int(self.boards[c]))

    def pct(self, c):
        """The exact percentage of the contestant of code c."""
        return self.total(None, c).pct

    def exact_pcts(self, codes):
        """The exact percentages of these contestants; those with the same sums have the same percentage, which is
        worked once (a run of ties needs no Fraction at all)."""
        sums = [(int(self.mp[c]), int(self.tops[c]), *(int(s[c]) for _, s in self.parts)) for c in codes]
        if len(set(sums)) == 1:
            return [0] * len(codes)  # all equal: what they tie on does not matter
        exact = {}
        for c, key in zip(codes, sums, strict=True):
            if key not in exact:
                exact[key] = self.pct(c)
        return [exact[key] for key in sums]

    def pct_floats(self):
        mp = self.mp.astype(float)
        for d, s in self.parts:
            mp = mp + s / d
        return np.divide(100 * mp, self.tops, out=np.full(mp.size, 50.0), where=self.tops > 0)

    def __getitem__(self, contestant):
        return self.total(contestant, self.code(contestant))

    def __iter__(self):
        return (self.contestant(name, pair) for name, codes in self.fields for pair in codes)

    def __len__(self):
        return sum(len(codes) for _, codes in self.fields)


def _code(keys, start):
    """{key: code} and each key's code: the position where it was first seen, from `start` (one pass)."""
    index = {}
    return index, np.fromiter(map(index.setdefault, keys, count(start)), np.int64)


def _totals(results, two_fields, nums, den, top, exact):
    """Totals: per contestant the integer matchpoints, the numerators over each denominator, the tops and the
    boards (what scoring.ranking.add_rows sums from the rows). `exact`: float64 sums are exact here."""
    n = len(results)
    ns, c_ns = _code(map(_NS, results), 0)
    if two_fields:
        ew, c_ew = _code(map(_EW, results), n)
        fields = [("NS", ns), ("EW", ew)]
    else:
        ew, c_ew = ns, np.fromiter(map(ns.setdefault, map(_EW, results), count(n)), np.int64, n)
        fields = [(None, ns)]
    codes = np.concatenate([c_ns, c_ew])
    num, top = np.concatenate(nums), np.concatenate([top, top])
    size = 2 * n
    if den is None:
        mp, parts = _sum(codes, num, size, exact), []
    else:
        den = np.concatenate([den, den])
        whole = den == 1
        mp = _sum(codes[whole], num[whole], size, exact)
        parts = [(d, _sum(codes[den == d], num[den == d], size, exact)) for d in np.unique(den[~whole]).tolist()]
    return Totals(fields, mp, parts, _sum(codes, top, size, exact), np.bincount(codes, minlength=size))


class Standings(Sequence):
    """The ranking (scoring.ranking's Standings, fields in its order), worked in arrays: each Standing made when
    read. `fields`: [(field, its pairs, their codes, order)], order the positions in the pairs, best first."""

    def __init__(self, totals, fields, rank, tied):
        self.totals, self.fields, self.rank, self.tied = totals, fields, rank, tied
        self._n = sum(len(order) for *_, order in fields)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if not -self._n <= i < self._n:
            raise IndexError(i)
        at = i % self._n
        for name, pairs, codes, order in self.fields:
            if at < len(order):
                k = int(order[at])
                return Standing(int(self.rank[i]), bool(self.tied[i]), self.totals.contestant(name, pairs[k]),
                                self.totals.pct(int(codes[k])))
            at -= len(order)
        raise IndexError(i)

    def __len__(self):
        return self._n


def standings(totals):
    """Rank every contestant on its percentage (scoring.ranking.ranking's order: NS, then EW, or one field):
    sorted on floats, and wherever neighbours' floats are too close (ranking.near_runs), again on exact percentages,
    so that only equal percentages tie, ordered then as ranking.tie_key orders them."""
    pct = totals.pct_floats()
    fields, ranks, tied = [], [], []
    for name, index in totals.fields:
        pairs = list(index)
        codes = np.fromiter(index.values(), np.int64, len(index))
        order = (-pct[codes]).argsort(kind="stable")
        floats = pct[codes[order]]
        same = np.zeros(order.size, bool)  # same[j]: equal to the one before
        for lo, hi in near_runs(floats):
            run = order[lo:hi].tolist()
            exact = sorted((-value, tie_key(totals.contestant(name, pairs[k])), k)
                           for k, value in zip(run, totals.exact_pcts(codes[run].tolist()), strict=True))
            order[lo:hi] = [k for *_, k in exact]
            for m in range(1, len(exact)):
                same[lo + m] = exact[m][0] == exact[m - 1][0]
        at = np.arange(order.size)
        first = np.maximum.accumulate(np.where(same, 0, at))
        fields.append((name, pairs, codes, order))
        ranks.append(first + 1)
        tied.append(np.bincount(first, minlength=order.size)[first] > 1)
    return Standings(totals, fields, np.concatenate(ranks), np.concatenate(tied))


def _sum(codes, values, size, exact):
    """Per code, the sum of its values: in numpy's bincount, which adds in float64, where that is `exact` (every
    partial sum below 2**52), else in integers."""
    if exact:
        return np.bincount(codes, weights=values, minlength=size).astype(np.int64)
    out = np.zeros(size, np.int64)
    np.add.at(out, codes, values)
    return out
