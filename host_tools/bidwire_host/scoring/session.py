"""Scoring as results arrive: a Traveller re-scores only its board, a Session keeps running totals.

`score_board(results, method=...)` is the one-shot form. The collector feeds a Session one result at a time
(`add`, `replace`, `remove` for corrections); each call re-scores that board alone and moves the board's old
contribution out of the totals and the new one in, so the cost is one board, not the field.
"""
from __future__ import annotations

from bidwire_host.scoring import imps, matchpoints, whole_field
from bidwire_host.scoring.model import ScoringError
from bidwire_host.scoring.ranking import add_rows, ranking, totals, two_field_movement

METHODS = ("mp", "neuberg", "cross-imps", "butler", "teams")


def score_board(results, method="neuberg", *, expected=None, trim=None, average_plus=3):
    """Rows for one board's results under `method` (see METHODS)."""
    if method == "mp":
        return matchpoints.score_board(results, factor=False)
    if method == "neuberg":
        return matchpoints.score_board(results, expected=expected, factor=True)
    if method == "cross-imps":
        return imps.cross_imps_board(results, average_plus=average_plus)
    if method == "butler":
        return imps.butler_board(results, trim=trim, average_plus=average_plus)
    if method == "teams":
        return imps.team_board(results, average_plus=average_plus)
    raise ScoringError(f"unknown scoring method {method}: use one of {', '.join(METHODS)}")


def board_method(method, results, expected=None):
    """How one board was scored, as the scorer's page says it: matchpoints with every result compared, Neuberg
    factoring (how many comparable results, to how many), plain matchpoints unfactored, or the IMP method."""
    n = sum(not r.artificial for r in results)
    results_text = f"{n} result{'' if n == 1 else 's'}"
    if method == "neuberg":
        e = expected or len(results)
        if n == e:
            return f"Matchpoints: {results_text} compared, top {2 * (e - 1) if e > 1 else 0}"
        return f"Neuberg: {results_text} compared, factored to {e}, top {2 * (e - 1) if e > 1 else 0}"
    if method == "mp":
        return f"Matchpoints, not factored: {results_text} compared, top {2 * (n - 1) if n > 1 else 0}"
    return {"cross-imps": "Cross-IMPs", "butler": "Butler IMPs", "teams": "IMPs"}[method]


def ranks_by(method):
    return "pct" if method in ("mp", "neuberg") else "imps"


class Traveller:
    """One board's results and their rows, re-scored whenever a result is added, replaced or removed."""

    def __init__(self, board, method="neuberg", *, expected=None, **options):
        if method not in METHODS:
            raise ScoringError(f"unknown scoring method {method}: use one of {', '.join(METHODS)}")
        self.board = board
        self.method = method
        self.expected = expected
        self.options = options
        self.results = []
        self.rows = []

    def _check(self, result):
        if result.board != self.board:
            raise ScoringError(f"a result for board {result.board} cannot go on the traveller of board {self.board}")

    def rescore(self):
        self.rows = score_board(self.results, self.method, expected=self.expected, **self.options)
        return self.rows

    def _apply(self, change):
        """Change a copy of the results and score it; only then keep both (a failure changes nothing)."""
        results = list(self.results)
        change(results)
        self.rows = score_board(results, self.method, expected=self.expected, **self.options)
        self.results = results
        return self.rows

    def add(self, result):
        """Add a result; returns its index (for later corrections)."""
        self._check(result)
        self._apply(lambda results: results.append(result))
        return len(self.results) - 1

    def replace(self, index, result):
        self._check(result)

        def put(results):
            results[index] = result

        self._apply(put)

    def remove(self, index):
        def drop(results):
            del results[index]

        self._apply(drop)

    def __len__(self):
        return len(self.results)


class Session:
    """The boards of a session under one method, with totals kept up to date as each result arrives.

    `two_fields`: rank NS and EW apart (a Mitchell). `expected`: Neuberg's target traveller size (the number
    of times the movement plays each board); None = the biggest traveller so far, which re-scores every
    board in the rare case a traveller grows past it.
    """

    def __init__(self, method="neuberg", *, two_fields=False, expected=None, **options):
        if method not in METHODS:
            raise ScoringError(f"unknown scoring method {method}: use one of {', '.join(METHODS)}")
        self.method = method
        self.two_fields = two_fields and method != "teams"
        self.fixed_expected = expected
        self.options = options
        self.travellers = {}
        self.totals = {}
        self._scored_expected = expected

    @property
    def expected(self):
        if self.fixed_expected is not None:
            return self.fixed_expected
        return max((len(t) for t in self.travellers.values()), default=0)

    def traveller(self, board):
        t = self.travellers.get(board)
        if t is None:
            t = self.travellers[board] = Traveller(board, self.method, expected=None, **self.options)
        return t

    def _move(self, rows, sign):
        add_rows(self.totals, rows, self.two_fields, sign)

    def _update(self, board, change):
        t = self.traveller(board)
        if self.method == "neuberg":
            results = list(t.results)
            change(results)
            target = self.fixed_expected
            if target is None:
                target = max([len(results)] + [len(x) for b, x in self.travellers.items() if b != board])
            if target != self._scored_expected:
                t.results = results
                return self.rescore_all()[board]  # the target size changed: every board's factor changes
            t.expected = target
        old = t.rows
        new = t._apply(change)  # raises before anything changes if the board cannot be scored
        self._move(old, -1)
        self._move(new, 1)
        return new

    def add(self, result):
        """Add one result; returns its board's new rows."""
        self.traveller(result.board)._check(result)
        return self._update(result.board, lambda results: results.append(result))

    def extend(self, results):
        """Add many results (e.g. rebuilding from the store): each board touched is re-scored once."""
        by_board = {}
        for r in results:
            self.traveller(r.board)._check(r)
            by_board.setdefault(r.board, []).append(r)
        if self.method == "neuberg" and self.fixed_expected is None:
            grown = max((len(self.travellers[b]) + len(new) for b, new in by_board.items()), default=0)
            if grown > (self._scored_expected or 0):
                for board, new in by_board.items():
                    self.travellers[board].results.extend(new)
                self.rescore_all()  # the target size grows: every board's factor changes
                return
        for board, new in by_board.items():
            self._update(board, lambda results, new=new: results.extend(new))

    def replace(self, board, index, result):
        """Correct a result (Law 79 C: record the edit with ledger.CorrectionPeriod first); returns the rows."""
        self.traveller(board)._check(result)

        def put(results):
            results[index] = result

        return self._update(board, put)

    def remove(self, board, index):
        def drop(results):
            del results[index]

        return self._update(board, drop)

    def rescore_all(self):
        """Re-score every board from scratch (e.g. after the Neuberg target size changed); {board: rows}."""
        self.totals = {}
        self._scored_expected = self.expected
        for t in self.travellers.values():
            if self.method == "neuberg":
                t.expected = self._scored_expected
            t.rescore()
            self._move(t.rows, 1)
        return {board: t.rows for board, t in self.travellers.items()}

    def rows(self):
        """All rows, board by board."""
        return [row for board in sorted(self.travellers) for row in self.travellers[board].rows]

    def ranking(self, penalties=None):
        """Standings (see ranking.ranking); `penalties` {contestant: amount} in the ranking's unit."""
        return ranking(self.totals, by=ranks_by(self.method), penalties=penalties)


def score_field(results, method="neuberg", *, two_fields=None, expected=None, **options):
    """One-shot scoring of a whole field: ({board: rows}, {contestant: Total}, standings, two_fields). Matchpoints
    with no adjusted result are worked for every board at once (scoring.whole_field)."""
    results = list(results)
    if method == "teams":
        two_fields = False  # a team sits NS at one table and EW at the other: one field
    elif two_fields is None:
        two_fields = two_field_movement(results)
    if method in ("mp", "neuberg") and whole_field.plain(results):
        return (*whole_field.score(results, method, two_fields=two_fields, expected=expected), two_fields)
    by_board = {}
    for r in results:
        by_board.setdefault(r.board, []).append(r)
    if method == "neuberg" and expected is None:
        expected = max((len(v) for v in by_board.values()), default=0)
    rows = {b: score_board(by_board[b], method, expected=expected, **options) for b in sorted(by_board)}
    all_totals = totals([row for b in rows for row in rows[b]], two_fields)
    return rows, all_totals, ranking(all_totals, by=ranks_by(method)), two_fields
