"""Law 78 A matchpoint units for every board at once, in numpy arrays: 2 for each result of its board that a
result beats, 1 for each it ties (laws.md §8.1). The one implementation: a club's traveller
(scoring.matchpoints), the club's whole field (scoring.field) and the hub's combined field (scoring/field_tally.py,
scoring/combined_field.py) all call `units`.

One sort on (board, score) orders every result; a result's units are twice the results of its board before its
score group, plus its group's size less one (its ties, not counting itself).
"""
import numpy as np

_SCORE_BITS = 32  # a Law 77 score differs from another on its board by far less than 2**32


def units(boards, scores):
    """Each result's NS matchpoint units against the other results of its board. `boards` (numbers from 0) and
    `scores` are integer sequences of one length, in any order."""
    return _units(boards, scores, False)[0]


def units_and_sizes(boards, scores):
    """(units, sizes): `units`, and each result's board's number of results."""
    return _units(boards, scores, True)


def _units(boards, scores, with_sizes):
    boards = np.asarray(boards, np.int64)
    scores = np.asarray(scores, np.int64)
    n = scores.size
    if not n:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    key = (boards << _SCORE_BITS) | (scores - scores.min())
    order = key.argsort(kind="stable")
    ordered = key[order]
    at = np.arange(n)
    new_score = np.empty(n, bool)
    new_score[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new_score[1:])
    board_of = ordered >> _SCORE_BITS
    new_board = np.empty(n, bool)
    new_board[0] = True
    np.not_equal(board_of[1:], board_of[:-1], out=new_board[1:])
    board_start = np.maximum.accumulate(np.where(new_board, at, 0))
    score_start = np.maximum.accumulate(np.where(new_score, at, 0))
    group = new_score.cumsum() - 1
    out_units = np.empty(n, np.int64)
    out_units[order] = 2 * (score_start - board_start) + np.bincount(group)[group] - 1
    if not with_sizes:
        return out_units, None
    board = new_board.cumsum() - 1
    out_sizes = np.empty(n, np.int64)
    out_sizes[order] = np.bincount(board)[board]
    return out_units, out_sizes
