"""IMPs to victory points (issue 38): a team match's IMP margin as each team's share of 20 (or 30) VPs.

Three scales, each chosen per event:

- `WBF`: the WBF's 2013 continuous scale, for a match of any number of boards. The winner of a margin of I IMPs
  in N boards gets 10 + 10 (1 - r^(I / B)) / (1 - r) VPs, r = tau^3 with tau = (sqrt 5 - 1) / 2 and the blitz
  B = 15 sqrt N, capped at 20 and rounded to hundredths; then wherever a margin's extra IMP gains more than the
  one before it (the rounding's doing), the VPs before it go up by 0.01 until each extra IMP is worth no more
  than the previous one, as the WBF's scales promise. The loser gets 20 less the winner's.
- `ACBL20`: the ACBL's 20-point whole-VP scale for Swiss teams, by the match's boards (1 to 36): the smallest
  margin that wins 11, 12, ... 20 VPs.
- `ACBL30`: the ACBL's older 30-point scale, as printed for matches of 6-8 and 9-11 boards (a draw 15-15, a win by
  a single IMP already 18-12); other board counts are refused, their tables not being known here.

VPs are kept in hundredths (ints): sums and rankings are exact, and a published 12.48 is 1248.
"""
from functools import cache
from math import ceil, floor, sqrt

WBF = "wbf"
ACBL20 = "acbl20"
ACBL30 = "acbl30"
SCALES = (WBF, ACBL20, ACBL30)

_R = ((sqrt(5) - 1) / 2) ** 3  # tau cubed: 0.2360679...
FULL = 2000  # 20 VPs, in hundredths
_FULL = {WBF: FULL, ACBL20: FULL, ACBL30: 3000}  # what a match's two teams share on each scale

# The ACBL's 20-point scale: for matches of these boards, the smallest IMP margin for 11, 12, ... 20 VPs
_ACBL20 = (((1, 8), (1, 3, 5, 8, 11, 14, 17, 20, 24, 28)),
           ((9, 11), (1, 3, 6, 10, 14, 18, 22, 26, 31, 36)),
           ((12, 15), (1, 4, 7, 11, 15, 20, 25, 30, 36, 42)),
           ((16, 20), (2, 5, 9, 14, 19, 25, 32, 39, 47, 56)),
           ((21, 27), (3, 7, 12, 18, 25, 33, 42, 51, 61, 72)),
           ((28, 36), (4, 9, 15, 22, 30, 39, 49, 60, 72, 85)))


# The ACBL's 30-point scale: the smallest IMP margin for 18, 19, ... 30 VPs (a 0 margin is 15-15)
_ACBL30 = (((6, 8), (1, 2, 3, 4, 5, 7, 9, 11, 14, 17, 20, 24, 28)),
           ((9, 11), (1, 2, 3, 5, 7, 9, 12, 15, 18, 22, 26, 31, 36)))


class VpError(ValueError):
    """A match the scale has no figure for (no boards, boards beyond the scale's table)."""


@cache
def wbf_scale(boards):
    """The WBF 2013 continuous scale for `boards` boards: the winner's VPs in hundredths for each IMP margin from 0
    to the first that wins 20.00, after the correction that keeps each extra IMP worth no more than the last."""
    if boards < 1:
        raise VpError(f"boards: a match has at least one board, not {boards}")
    blitz = 15 * sqrt(boards)
    v = [min(FULL, floor(1000 + 1000 * (1 - _R ** (i / blitz)) / (1 - _R) + 0.5)) for i in range(ceil(blitz) + 1)]
    changed = True
    while changed:
        changed = False
        for k in range(1, len(v) - 1):
            if v[k + 1] - v[k] > v[k] - v[k - 1] and v[k] < FULL:
                v[k] += 1
                changed = True
    return tuple(v)


def _acbl20(margin, boards):
    for (low, high), thresholds in _ACBL20:
        if low <= boards <= high:
            return 100 * (10 + sum(margin >= t for t in thresholds))
    raise VpError(f"boards: the ACBL's 20-point scale has matches of 1 to 36 boards, not {boards}")


def _acbl30(margin, boards):
    for (low, high), thresholds in _ACBL30:
        if low <= boards <= high:
            won = sum(margin >= t for t in thresholds)
            return 100 * (15 if not won else 17 + won)
    raise VpError(f"boards: the ACBL's 30-point scale is known here for matches of 6 to 11 boards, not {boards}")


def full(scale):
    """What a match's two teams share on `scale`, in hundredths (2000, or 3000 on a 30-point scale)."""
    return _FULL[scale]


def victory_points(imps_a, imps_b, boards, scale=WBF):
    """The two teams' VPs in hundredths (a's, b's) for a match of `boards` boards that a won `imps_a` to `imps_b`
    IMPs (each side's total; the margin decides), on `scale`. They always sum to 20.00 (30.00 on ACBL30)."""
    margin = abs(imps_a - imps_b)
    if scale == WBF:
        table = wbf_scale(boards)
        winner = table[min(margin, len(table) - 1)]
    elif scale == ACBL20:
        winner = _acbl20(margin, boards)
    elif scale == ACBL30:
        winner = _acbl30(margin, boards)
    else:
        raise VpError(f"scale: one of {', '.join(SCALES)}, not {scale!r}")
    return (winner, _FULL[scale] - winner) if imps_a >= imps_b else (_FULL[scale] - winner, winner)


def text(hundredths):
    """VPs as events publish them: 12.48, 20.00."""
    return f"{hundredths // 100}.{hundredths % 100:02d}"
