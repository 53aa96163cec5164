"""The combined field: every club's results for a board scored together (Law 78 A; Neuberg where a board was
played fewer times than the most-played one), the overall ranking, and each club's ranking within the field.

Scoring is the club collector's own (bidwire_host.scoring); the hub only names the contestants across clubs: a
pair is its club, section and pair number, and its session in a sim played in several (one hand set, one
field). With one winner (as ECats scores) every pair is ranked in one list; with two, North-South and East-West
apart. Adjusted scores are scored as the club gave them.
"""
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import groupby
from operator import itemgetter

import numpy as np

from bidwire_host.scoring import law78a
from bidwire_host.scoring.boards import Boards
from bidwire_host.scoring.field_tally import ROW_KEY, Pair, Tally, as_result, pair_id
from bidwire_host.scoring.model import ratio
from bidwire_host.scoring.session import score_board

__all__ = ["Boards", "Field", "Pair", "as_result", "board_rows", "frequencies", "pair_id", "results_of", "score"]


@dataclass
class Field:
    # board -> [{"club", "session", "section", "ns", "ew", "contract", ..., "score_ns", "pct_ns", "pct_ew"}]
    boards: Boards
    ranking: Sequence  # [{"rank", "pair", "names", "pct", "mp", "top", "boards", "club_rank"}], best first
    results: int
    frequencies: Boards = field(default_factory=lambda: Boards({}))  # board -> its frequency table (frequencies)
    clubs: dict = field(default_factory=dict)  # club id -> (its results, its boards), of the clubs holding one
    version: int = 0  # the sim's `changes` it was scored at (set by the app's cache)


def results_of(rows):
    """The stored results (records.results) as the scoring core's Results, with each pair's names."""
    results = [as_result(r) for r in rows]
    names = {}
    for r, res in zip(rows, results, strict=True):
        names[("NS", res.ns)] = r["ns_names"]
        names[("EW", res.ew)] = r["ew_names"]
    return results, names


def _plain_board(rows, method, expected):
    """Law 78 A on a board with no adjusted result, by distinct score (the field has thousands of results and a
    few dozen scores a board): {score_ns: (ns numerator, ew numerator)} over the board's one denominator, and
    the top. The same figures as scoring.matchpoints.score_board (tests/hub/test_field_fast.py compares them)."""
    scores = np.fromiter(map(_SCORE, rows), np.int64, len(rows))
    n = len(rows)
    factor = method == "neuberg" and n != expected
    e = expected if method == "neuberg" else n
    top = 2 * (e - 1) if e > 1 else 0
    units = law78a.units(np.zeros(n, np.int64), scores)
    distinct, first = np.unique(scores, return_index=True)  # a score's units are its first result's
    values = {}
    for score, u_ns in zip(distinct.tolist(), units[first].tolist(), strict=True):
        u_ew = 2 * (n - 1) - u_ns
        # Neuberg: (M + 1) x E / n - 1, that is ((M + 1) x E - n) / n
        values[score] = ((u_ns + 1) * e - n, (u_ew + 1) * e - n) if factor else (u_ns, u_ew)
    return values, (n if factor else 1), top


def _pct(mp, top):
    return Fraction(50) if not top else Fraction(mp) * 100 / top


def _row_dict(src, mp_ns, mp_ew, top, pct_ns, pct_ew):
    return {"club": src["club_id"], "session": src["session"], "section": src["section"], "ns": src["ns"],
            "ew": src["ew"],
            "contract": src["contract"], "declarer": src["declarer"], "tricks": src["tricks"],
            "score_ns": src["score_ns"], "adjusted": src["adjusted"], "version": src["version"],
            "mp_ns": mp_ns, "mp_ew": mp_ew, "top": top, "pct_ns": pct_ns, "pct_ew": pct_ew}


def board_rows(rows, method, expected):
    """One board's traveller rows (dicts, as the pages and the API show them) with its matchpoints across the
    field at Neuberg size `expected`."""
    if any(r["adjusted"] is not None for r in rows):
        scored = score_board([as_result(r) for r in rows], method, expected=expected)
        return [_row_dict(r, row.mp_ns, row.mp_ew, row.top, row.pct_ns, row.pct_ew)
                for r, row in zip(rows, scored, strict=True)]
    values, den, top = _plain_board(rows, method, expected)
    shown = {s: (ratio(ns, den), ratio(ew, den)) for s, (ns, ew) in values.items()}
    return [_row_dict(r, *shown[r["score_ns"]], top, _pct(shown[r["score_ns"]][0], top),
                      _pct(shown[r["score_ns"]][1], top)) for r in rows]


def score(sim, rows):
    """The sim's field from its stored results (records.results, in board order): each board matchpointed
    across every club (Neuberg to the most-played board's size when the sim says so), every pair's total and the
    rankings, summed in scoring/field_tally.py. A board's traveller rows are built only when read (Boards)."""
    tally = Tally(sim["scoring"])
    for b, board in groupby(sorted(rows, key=_BOARD), key=_BOARD):
        tally.put(b, list(board))
    return of_tally(tally, sim["winners"])


def of_tally(tally, winners):
    """The Field of what `tally` holds."""
    if not tally.results():
        return Field(Boards({}), [], 0)
    e = tally.expected()
    held = {b: list(rows) for b, rows in tally.rows.items()}  # as of now: a later merge changes the tally's lists
    # a traveller lists its rows by club, section and pairs, whatever order they came in
    build = {b: (lambda rows=rows: board_rows(sorted(rows, key=ROW_KEY), tally.method, e)) for b, rows in
             held.items()}
    freq = {b: (lambda rows=rows: board_frequencies(rows, tally.method, e)) for b, rows in held.items()}
    return Field(Boards(build), tally.ranking(winners), tally.results(), Boards(freq), tally.clubs())


_BOARD = itemgetter("board")
_SCORE = itemgetter("score_ns")


def board_frequencies(rows, method, expected):
    """The board's frequency table (as `frequencies` gives it) straight from its distinct scores, without the
    traveller's rows: what a board's page shows of 5,000 results."""
    if any(r["adjusted"] is not None for r in rows):
        return frequencies(board_rows(rows, method, expected))
    values, den, top = _plain_board(rows, method, expected)
    counts = Counter(r["score_ns"] for r in rows)
    out = []
    for score in sorted(values, reverse=True):
        ns, ew = ratio(values[score][0], den), ratio(values[score][1], den)
        out.append([score, counts[score], ns, ew, _pct(ns, top)])
    return out


def frequencies(board_rows):
    """A board's frequency table: [(NS score or adjusted label, count, mp_ns, mp_ew, pct_ns)], best NS first."""
    seen = {}
    for r in board_rows:
        key = r["score_ns"] if r["adjusted"] is None else "adj " + ",".join(f"{k}={v}" for k, v in
                                                                           sorted(r["adjusted"].items()))
        if key not in seen:
            seen[key] = [key, 0, r["mp_ns"], r["mp_ew"], r["pct_ns"]]
        seen[key][1] += 1
    return sorted(seen.values(), key=lambda x: (isinstance(x[0], str), -(x[0] if isinstance(x[0], int) else 0)))
