"""Matchpoints (Law 78 A, laws.md §8.1) with Neuberg factoring and artificial adjusted scores (laws.md §9.3).

Units are Law 78 A's: 2 for each result beaten, 1 for each tie, 0 for each result that beats it; with n
comparable results the top is 2(n - 1). The ACBL publishes half of these (1 per result beaten, ½ per tie).

Neuberg factoring rescales a result that was compared with n results (its own included) to a board of E
results (E = the traveller's full size, or the biggest traveller of the event for unequal sizes):

    F = (M + 1) · E / n - 1          top 2(E - 1)

Artificial adjusted scores (A+/A/A- = 60/50/40 % of the top) take no part in the comparisons; with
factoring the other results are rescaled to the full size, without it the board's top shrinks to 2(n - 1)
(laws.md §9.3: the rescaling is an SO regulation, so it is an option here).
Non-balancing (assigned or weighted) scores are matchpointed per direction: each side's score is compared
with the scores of the other sides that sat the same way (laws.md §9.3, "separately").
"""
from fractions import Fraction

import numpy as np

from bidwire_host.scoring import law78a
from bidwire_host.scoring.model import Row, ScoringError


def units(scores):
    """Law 78 A units of each score against all the others in the list: 2 per score beaten, 1 per tie."""
    return law78a.units(np.zeros(len(scores), np.int64), scores).tolist()


def _cmp(a, b):
    return 2 if a > b else 1 if a == b else 0


def weighted_units(sides):
    """Units when results are mixtures of outcomes: each side is ((weight, score), ...) with weights summing to 1.

    A mixture's units are the weighted sum of its outcomes' units against every other result's outcomes
    (the 2007/2017 weighted score of Law 12 C1(c)); a plain result is ((1, score),).
    """
    weight = {}
    for side in sides:
        for w, s in side:
            weight[s] = weight.get(s, 0) + w
    below = {}
    acc = 0
    for s in sorted(weight):
        below[s] = acc
        acc += weight[s]
    out = []
    for side in sides:
        against_all = sum(w * (2 * below[s] + weight[s]) for w, s in side)
        against_self = sum(w * v * _cmp(s, t) for w, s in side for v, t in side)
        out.append(against_all - against_self)
    return out


def neuberg(m, n, expected):
    """Neuberg's formula in 2/1 units: M units among n results -> (M + 1)·E/n - 1 among E (identity if n = E)."""
    if n == expected:
        return m
    if n < 1:
        raise ScoringError("Neuberg factoring needs at least one comparable result")
    return Fraction((m + 1) * expected - n, n)


def acbl(units_2_1):
    """ACBL display: 1 matchpoint per result beaten, ½ per tie (half the Law 78 A units)."""
    return None if units_2_1 is None else Fraction(units_2_1) / 2


def direction_units(results, direction):
    """Units of each result against the others for one direction ('NS' or 'EW'), from that side's view."""
    sign = 1 if direction == "NS" else -1
    if all(r.adjusted is None for r in results):
        return units([sign * r.score_ns for r in results])
    sides = [tuple((w, sign * s) for w, s in r.side(direction)) for r in results]
    if all(len(side) == 1 and side[0][0] == 1 for side in sides):
        return units([side[0][1] for side in sides])
    return weighted_units(sides)


def score_board(results, *, expected=None, factor=True):
    """Matchpoint one board's results (Law 78 A): a Row per result, in order, with mp_ns/mp_ew and the top.

    `factor`: Neuberg-factor to `expected` results (default: the traveller's own size, artificial scores
    included); without it the comparable results keep their raw units and the top is 2(n - 1).
    """
    results = list(results)
    comparable = [r for r in results if not r.artificial]
    n = len(comparable)
    size = len(results) if expected is None else expected
    if factor and size < len(results):
        raise ScoringError(f"board {results[0].board}: {len(results)} results on a board expected to have {size}")
    e = size if factor else n
    top = 2 * (e - 1) if e > 1 else 0
    ns = direction_units(comparable, "NS")
    if any(r.split for r in comparable):
        ew = direction_units(comparable, "EW")
    else:
        ew = [2 * (n - 1) - u for u in ns]  # balancing scores: EW's units complement NS's
    rows = []
    i = 0
    for r in results:
        if r.artificial:
            a = r.adjusted
            rows.append(Row(r, a.pct("NS") * top / 100, a.pct("EW") * top / 100, top))
            continue
        u_ns, u_ew = ns[i], ew[i]
        i += 1
        if factor:
            u_ns, u_ew = neuberg(u_ns, n, e), neuberg(u_ew, n, e)
        rows.append(Row(r, u_ns, u_ew, top))
    return rows
