"""IMPs (Law 78 B, laws.md §8.2): the scale, team matches, Butler and cross-IMPs for pairs.

* Teams: a board of a two-table match is the team's net over both tables (its NS score at one, its EW
  score at the other) turned into IMPs. Non-balancing adjusted scores are worked out for each team
  separately and both get the average (Law 86 B, laws.md §9.3 worked example).
* Butler: each result is IMPed against a datum, the mean NS score after trimming, rounded to 10.
  Trimming rule (the Laws leave it to the SO): drop the ⌊n/10⌋ highest and as many lowest scores, and at
  least one of each when there are 5 or more results; none below 5. With 5-19 results this is PBN 2.1's
  "Butler-2" (§3.4.12: "the 2 extreme scores are not used"); D. Stevenson's "Butler scoring: what types
  are there?" (blakjak.org/butlr1.htm) describes the same "delete a couple of scores at the top and
  bottom, average the rest". Halves round away from zero, so the EW datum is the NS datum negated.
* Cross-IMPs: each result is IMPed against every other comparable result on the board and the sum is
  divided by n - 1 (PBN 2.1 "Cross2", as IMP-pairs events publish it).

Artificial adjusted scores are worth A+ = +3, A = 0, A- = -3 IMPs (Law 86 A, 12 C2(b)) and are left out
of datums and comparisons.
"""
from bisect import bisect_left
from fractions import Fraction

from bidwire_host.scoring.model import Row

# laws.md §8.2: (upper bound of the total-point difference, IMPs); 24 IMPs above 3990.
IMP_SCALE = (
    (10, 0), (40, 1), (80, 2), (120, 3), (160, 4), (210, 5), (260, 6), (310, 7), (360, 8), (420, 9),
    (490, 10), (590, 11), (740, 12), (890, 13), (1090, 14), (1290, 15), (1490, 16), (1740, 17), (1990, 18),
    (2240, 19), (2490, 20), (2990, 21), (3490, 22), (3990, 23),
)
MAX_IMPS = 24
_UPPER = tuple(upper for upper, _ in IMP_SCALE)


def imps(diff):
    """IMPs for a total-point difference: sign(d) x the first band whose upper bound is >= |d|, 24 above 3990."""
    d = abs(diff)
    i = bisect_left(_UPPER, d)
    value = IMP_SCALE[i][1] if i < len(IMP_SCALE) else MAX_IMPS
    return -value if diff < 0 else value


def _mixed_imps(ours, theirs):
    """IMPs of mixture `ours` against mixture `theirs` (each ((weight, score), ...)), weighted."""
    return sum(w * v * imps(s - t) for w, s in ours for v, t in theirs)


# --- teams -------------------------------------------------------------------------------------------


def match_pairs(results):
    """Pair one board's results into two-table matches: the table where A is NS with the one where A is EW.

    Returns ([(r1, r2), ...], [unmatched result, ...]). Without team names, exactly two results pair up.
    """
    results = list(results)
    if len(results) == 2 and any(r.ns is None or r.ew is None for r in results):
        return [(results[0], results[1])], []
    used = set()
    pairs = []
    for i, r1 in enumerate(results):
        if i in used or r1.ns is None or r1.ew is None:
            continue
        for j in range(i + 1, len(results)):
            r2 = results[j]
            if j not in used and r2.ns == r1.ew and r2.ew == r1.ns:
                used.update((i, j))
                pairs.append((r1, r2))
                break
    return pairs, [r for i, r in enumerate(results) if i not in used]


def team_imps(r1, r2, average_plus=3):
    """(IMPs to the team NS at r1, IMPs to the team NS at r2) for one board of a two-table match."""
    if r1.artificial or r2.artificial:
        # A board that could not be played at a table: Law 86 A's ±3 to each team as awarded there (the
        # mean if both tables were awarded one).
        a = [r.adjusted.imps(d, average_plus) for r, d in ((r1, "NS"), (r2, "EW")) if r.artificial]
        b = [r.adjusted.imps(d, average_plus) for r, d in ((r2, "NS"), (r1, "EW")) if r.artificial]
        return Fraction(sum(a), len(a)), Fraction(sum(b), len(b))
    # Team A is NS at r1 and EW at r2; its net is its NS score at r1 minus the NS score at r2.
    a = _mixed_imps(r1.side("NS"), r2.side("EW"))
    b = _mixed_imps(r2.side("NS"), r1.side("EW"))
    if a == -b:
        return a, b
    half = Fraction(a - b, 2)  # Law 86 B: non-balancing scores, each side worked out, both get the average
    return half, -half


def team_board(results, *, average_plus=3):
    """IMP one board of two-table team matches: a Row per result, unmatched ones flagged.

    A row's imp_ns is the board's IMPs for the team that sat NS there (imp_ew is None: that team's IMPs are
    on the other table's row).
    """
    results = list(results)
    pairs, unmatched = match_pairs(results)
    out = {}
    for r1, r2 in pairs:
        a, b = team_imps(r1, r2, average_plus)
        # Each team's IMPs once per board, on the row where it sat NS (so totals count them once).
        out[id(r1)] = Row(r1, imp_ns=a)
        out[id(r2)] = Row(r2, imp_ns=b)
    for r in unmatched:
        out[id(r)] = Row(r, problem=f"board {r.board}: no result from the other table of the match "
                                    f"(NS {r.ns}, EW {r.ew}); not scored")
    return [out[id(r)] for r in results]


# --- Butler ------------------------------------------------------------------------------------------


def butler_trim(n):
    """How many scores Butler drops at each end of n: ⌊n/10⌋, at least 1 from 5 results, none below 5."""
    return 0 if n < 5 else max(1, n // 10)


def round_to_10(x):
    """Nearest multiple of 10, halves away from zero (symmetric, so -datum(NS) = datum(EW))."""
    q = abs(Fraction(x)) / 10
    r = int(q + Fraction(1, 2)) * 10
    return -r if x < 0 else r


def butler_datum(scores, trim=None):
    """The datum: mean of the scores after dropping `trim` (default butler_trim(n)) at each end, rounded to 10."""
    s = sorted(scores)
    if not s:
        return None
    t = butler_trim(len(s)) if trim is None else trim
    t = min(t, (len(s) - 1) // 2)  # always keep at least one score
    kept = s[t:len(s) - t]
    return round_to_10(Fraction(sum(kept), len(kept)))


def _expected(side):
    return sum(w * s for w, s in side)


def butler_board(results, *, trim=None, average_plus=3):
    """Butler: each comparable result IMPed against the trimmed-mean datum of its direction (NS view)."""
    results = list(results)
    comparable = [r for r in results if not r.artificial]
    ns_sides = [r.side("NS") for r in comparable]
    datum_ns = butler_datum([_expected(x) for x in ns_sides], trim)
    if any(r.split for r in comparable):
        ew_sides = [r.side("EW") for r in comparable]
        datum_ew = butler_datum([_expected(x) for x in ew_sides], trim)
    else:
        ew_sides, datum_ew = ns_sides, datum_ns
    rows = []
    i = 0
    for r in results:
        if r.artificial:
            rows.append(Row(r, imp_ns=r.adjusted.imps("NS", average_plus), imp_ew=r.adjusted.imps("EW", average_plus)))
            continue
        ns = _mixed_imps(ns_sides[i], ((1, datum_ns),))
        ew = _mixed_imps(((1, datum_ew),), ew_sides[i])  # EW gain when the NS score is below the datum
        rows.append(Row(r, imp_ns=ns, imp_ew=ew))
        i += 1
    return rows


# --- cross-IMPs --------------------------------------------------------------------------------------


def _cross_sums(sides):
    """For each mixture, the sum of its IMPs against every other result's outcomes (own outcomes excluded)."""
    weight = {}
    for side in sides:
        for w, s in side:
            weight[s] = weight.get(s, 0) + w
    table = {}
    for s in {s for side in sides for _, s in side}:
        table[s] = sum(w * imps(s - t) for t, w in weight.items())
    return [sum(w * table[s] for w, s in side) - _mixed_imps(side, side) for side in sides]


def cross_imps_board(results, *, average_plus=3):
    """Cross-IMPs: each comparable result IMPed against every other, the sum divided by n - 1."""
    results = list(results)
    comparable = [r for r in results if not r.artificial]
    n = len(comparable)
    ns = _cross_sums([r.side("NS") for r in comparable])
    if any(r.split for r in comparable):
        ew = _cross_sums([tuple((w, -s) for w, s in r.side("EW")) for r in comparable])
    else:
        ew = [-x for x in ns]
    rows = []
    i = 0
    for r in results:
        if r.artificial:
            rows.append(Row(r, imp_ns=r.adjusted.imps("NS", average_plus), imp_ew=r.adjusted.imps("EW", average_plus)))
            continue
        per = Fraction(1, n - 1) if n > 1 else 0  # a lone result has nothing to compare with: 0 (average)
        rows.append(Row(r, imp_ns=ns[i] * per, imp_ew=ew[i] * per))
        i += 1
    return rows
