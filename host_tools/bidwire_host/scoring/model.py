"""The scoring data model: one result on one board, its adjusted-score variants (laws.md §9.3), the scored row.

Scores are total points from North-South's point of view (laws.md §6.2 collector convention); EW's score is
the negation. Matchpoints are kept in Law 78 A "2/1 units" (2 per result beaten, 1 per tie) and every
figure is an int or a Fraction, so totals and ties are exact; floats appear only at the edges (JSON, files).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from bidwire.core import board as core_board
from bidwire.core.readback import CallError, parse_seat, parse_vul
from bidwire.core.score import parse_contract, score_ns

Number = int | Fraction

# Law 12 C1 (1987): average plus / average / average minus, per cent of a top (laws.md §9.1, §9.3).
ARTIFICIAL_PCT = {"A+": Fraction(60), "A": Fraction(50), "A-": Fraction(40)}
# Law 86 A (1987) / 12 C2(b) (2017): the same in IMP scoring, to the contestant concerned (laws.md §9.1-9.3).
ARTIFICIAL_IMPS = {"A+": 3, "A": 0, "A-": -3}
_ALIASES = {"A+": "A+", "AVE+": "A+", "AV+": "A+", "A": "A", "AVE": "A", "AV": "A", "A-": "A-", "AVE-": "A-",
            "AV-": "A-", "A−": "A-"}
ARTIFICIAL_NAMES = frozenset(_ALIASES)  # what an artificial score may be called, besides a percentage


class ScoringError(ValueError):
    """A result or an option that cannot be scored; the message says what to fix."""


def artificial_code(value):
    """'A+', 'A', 'A-' (also AVE+, AV-, ...), or a percentage of the top as a Fraction (2017: '≥60 / ≤40 %')."""
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        pct = Fraction(value)
    else:
        text = str(value).strip().upper()
        if text in _ALIASES:
            return _ALIASES[text]
        try:
            pct = Fraction(text.rstrip("%"))
        except (ValueError, ZeroDivisionError):
            raise ScoringError(f"unknown artificial score {value}: use A+, A, A- or a percentage 0-100") from None
    if not 0 <= pct <= 100:
        raise ScoringError(f"an artificial score is a percentage of the top, 0-100, not {value}")
    return pct


@dataclass(frozen=True, slots=True)
class Artificial:
    """Artificial adjusted score (Law 12 C1 1987, 12 C2 2017): no result could be obtained at the table.

    Each side independently (they need not balance): "A+", "A", "A-" or a percentage of the top.
    The result takes no part in the other pairs' comparisons (laws.md §9.3).
    """

    ns: str | Fraction
    ew: str | Fraction

    def __post_init__(self):
        object.__setattr__(self, "ns", artificial_code(self.ns))
        object.__setattr__(self, "ew", artificial_code(self.ew))

    def pct(self, direction):
        """Per cent of the top for 'NS' or 'EW'."""
        code = self.ns if direction == "NS" else self.ew
        return ARTIFICIAL_PCT[code] if isinstance(code, str) else code

    def imps(self, direction, average_plus=3):
        """IMPs for 'NS' or 'EW': A+ = +3, A = 0, A- = -3 (Law 86 A); a percentage p scales as (p-50)/10 x 3."""
        code = self.ns if direction == "NS" else self.ew
        if isinstance(code, str):
            return ARTIFICIAL_IMPS[code] * Fraction(average_plus, 3)
        return (code - 50) * Fraction(average_plus, 10)

    def label(self):
        return f"{_code_text(self.ns)}/{_code_text(self.ew)}"


def _code_text(code):
    return code if isinstance(code, str) else f"{format_number(code)}%"


@dataclass(frozen=True, slots=True)
class Assigned:
    """Assigned adjusted score (Law 12 C2 1987, 12 C1 2017) set by the director: total points, NS's view.

    `ns_score` is what North-South receive, `ew_score` the NS score from which East-West's is taken; they
    differ when the score is non-balancing (laws.md §9.3: each side is matchpointed separately).
    """

    ns_score: int
    ew_score: int

    def __post_init__(self):
        for name in ("ns_score", "ew_score"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v % 10:
                raise ScoringError(f"assigned {name} must be total points, a multiple of 10, not {v}")


@dataclass(frozen=True, slots=True)
class Weighted:
    """Weighted assigned score (2007/2017 Law 12 C1(c)): ((weight, NS score), ...) whose weights sum to 1.

    `ew` gives East-West's outcomes when they differ from North-South's (non-balancing); None = the same.
    """

    ns: tuple[tuple[Fraction, int], ...]
    ew: tuple[tuple[Fraction, int], ...] | None = None

    def __post_init__(self):
        for name in ("ns", "ew"):
            outcomes = getattr(self, name)
            if outcomes is None:
                continue
            norm = tuple((Fraction(w), int(s)) for w, s in outcomes)
            if not norm or any(w <= 0 for w, _ in norm) or sum(w for w, _ in norm) != 1:
                raise ScoringError(f"weighted score {name}: the weights must be positive and sum to 1")
            object.__setattr__(self, name, norm)


Adjustment = Artificial | Assigned | Weighted


@dataclass(frozen=True, slots=True)
class Result:
    """One board's result at one table. `score_ns` is the Law 77 score from NS's view (None if adjusted).

    `ns`/`ew` identify the pairs (or teams); `line` is where an imported result came from.
    """

    board: int
    ns: str | None = None
    ew: str | None = None
    score_ns: int | None = None
    contract: str | None = None
    declarer: str | None = None
    tricks: int | None = None
    adjusted: Adjustment | None = None
    table: str | None = None
    line: int | None = None

    def __post_init__(self):
        if not isinstance(self.board, int) or isinstance(self.board, bool) or self.board < 1:
            raise ScoringError(f"board number must be a whole number from 1, not {self.board}")
        if self.adjusted is None and self.score_ns is None:
            raise ScoringError(f"board {self.board}: a result needs a score (or an adjusted score)")

    @classmethod
    def played(cls, board, ns, ew, contract, declarer=None, tricks=None, *, vul=None, **extra):
        """The result of a played deal, scored by the core's Law 77 (declarer 'N'/'E'/'S'/'W')."""
        return cls(board, ns, ew, law77_score(board, contract, declarer, tricks, vul), contract,
                   declarer, tricks, **extra)

    def side(self, direction):
        """What one side received: ((weight, NS score), ...) to compare, or a Fraction percentage if artificial."""
        a = self.adjusted
        if a is None:
            return ((1, self.score_ns),)
        if isinstance(a, Artificial):
            return a.pct(direction)
        if isinstance(a, Assigned):
            return ((1, a.ns_score if direction == "NS" else a.ew_score),)
        return a.ns if direction == "NS" or a.ew is None else a.ew

    @property
    def split(self):
        """True if the two sides received different scores (a non-balancing adjustment)."""
        a = self.adjusted
        return (isinstance(a, Assigned) and a.ns_score != a.ew_score) or (
            isinstance(a, Weighted) and a.ew is not None and a.ew != a.ns)

    @property
    def artificial(self):
        return isinstance(self.adjusted, Artificial)

    def shown_score(self):
        """The NS score to print for this row: the Law 77 or assigned NS score; None for artificial/weighted."""
        a = self.adjusted
        if a is None:
            return self.score_ns
        return a.ns_score if isinstance(a, Assigned) else None


@dataclass(slots=True)
class Row:
    """One result scored on its board. mp_* and top are in 2/1 units; imp_* in IMPs; None = does not apply."""

    result: Result
    mp_ns: Number | None = None
    mp_ew: Number | None = None
    top: Number | None = None
    imp_ns: Number | None = None
    imp_ew: Number | None = None
    problem: str | None = None

    def pct(self, direction):
        """Percentage of the top (0-100) for 'NS' or 'EW'; 50 when the board has no comparison (top 0)."""
        mp = self.mp_ns if direction == "NS" else self.mp_ew
        if mp is None:
            return None
        if isinstance(self.result.adjusted, Artificial):
            return self.result.adjusted.pct(direction)
        if not self.top:
            return Fraction(50)
        return Fraction(mp) * 100 / self.top

    @property
    def pct_ns(self):
        return self.pct("NS")

    @property
    def pct_ew(self):
        return self.pct("EW")


@dataclass(frozen=True, slots=True)
class Problem:
    """A result that was not used, and why (e.g. a score that is not the Law 77 score of its contract)."""

    board: int | None
    message: str
    line: int | None = None

    def as_dict(self):
        return {"board": self.board, "line": self.line, "problem": self.message}


def board_vul(board, vul=None):
    """Vulnerability code 0-3 (None NS EW Both): `vul` as given (text or code), else Law 2 from the number."""
    if vul is None:
        return core_board.vulnerability(board)
    if isinstance(vul, int) and not isinstance(vul, bool) and 0 <= vul <= 3:
        return vul
    try:
        return parse_vul(vul)
    except ValueError as e:
        raise ScoringError(str(e)) from None


def law77_score(board, contract, declarer, tricks, vul=None):
    """NS's Law 77 score for a played result, from the core; a ScoringError says what was wrong."""
    try:
        c = parse_contract(contract)
        if c is None:
            return 0  # passed out: both sides score zero (Law 22, laws.md §6.1)
        seat = parse_seat(declarer)
        if not isinstance(tricks, int) or isinstance(tricks, bool):
            raise ScoringError(f"board {board}: tricks must be a whole number 0-13, not {tricks}")
        return score_ns(contract, seat, board_vul(board, vul), tricks)
    except (CallError, ValueError) as e:
        if isinstance(e, ScoringError):
            raise
        raise ScoringError(f"board {board}: {e}") from None


@lru_cache(maxsize=4)
def possible_scores(vul):
    """Every NS score Law 77 allows under vulnerability code `vul` (passed out included): ~600 values."""
    out = {0}
    for level in range(1, 8):
        for strain in ("C", "D", "H", "S", "NT"):
            for dbl in ("", "X", "XX"):
                for seat in range(4):
                    for tricks in range(14):
                        out.add(score_ns(f"{level}{strain}{dbl}", seat, vul, tricks))
    return frozenset(out)


def round_half_away(x, places=2):
    """An exact figure (int or Fraction) rounded to `places` decimals with halves away from zero, as events
    publish them: -141/40 (-3.525) is -3.53, where round(float(x), 2) gives -3.52 (the nearest float is
    -3.52499..., and round() sends exact halves to even). The rounding is done on the exact value, not a float."""
    scale = 10 ** places
    n = int(abs(Fraction(x)) * scale + Fraction(1, 2))  # floor(|x| * scale + 1/2)
    return float(Fraction(n if x >= 0 else -n, scale))


def format_number(x):
    """An int, or a Fraction as a float rounded to 2 decimals half away from zero, for JSON, pages and files;
    None stays None."""
    if x is None:
        return None
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else round_half_away(x)
    return x


def ratio(num, den):
    """num / den exactly: an int when it is whole, else a Fraction (matchpoints over a board's denominator)."""
    if den == 1:
        return num
    value = Fraction(num, den)
    return value.numerator if value.denominator == 1 else value


def format_pct(x, places=2):
    """A percentage as pages and printouts show it: rounded half away from zero on its exact value (40.625 is
    "40.63"), as the files write it; "" for None."""
    return "" if x is None else f"{round_half_away(x, places):.{places}f}"


def written_figures(values, places=2):
    """Exact figures (int, Fraction or None) as a file writes them, `places` decimals each, so that together they
    sum to the exact total rounded to `places` (docs/scorer.md "Exact figures"): each is rounded half away from
    zero, then the few needed 1/100s go to the figures the rounding moved most, whole groups of equal figures
    first, so that ties stay equal wherever the total allows. A figure exact at `places` decimals is moved only
    if no inexact one is left. None stays None; each figure ends within 1/100 of its exact value."""
    scale = 10 ** places
    at = [i for i, v in enumerate(values) if v is not None]
    exact = [Fraction(values[i]) * scale for i in at]
    units = [_half_away(e) for e in exact]
    step = _half_away(sum(exact, Fraction(0))) - sum(units)
    if step:
        sign = 1 if step > 0 else -1
        # the figures rounded the wrong way for the sign most (remainder e - u largest for +1, smallest for -1)
        groups = {}
        for k, e in enumerate(exact):
            groups.setdefault(e, []).append(k)
        order = sorted(groups, key=lambda e: (e == units[groups[e][0]], -sign * (e - units[groups[e][0]])))
        left, moved = abs(step), set()
        for e in order:  # whole groups first, so ties stay equal
            if 0 < len(groups[e]) <= left:
                for k in groups[e]:
                    units[k] += sign
                    moved.add(k)
                left -= len(groups[e])
        for e in order:  # then single figures, when no whole group fits
            for k in groups[e]:
                if left and k not in moved:
                    units[k] += sign
                    moved.add(k)
                    left -= 1
    out = list(values)
    for i, u in zip(at, units, strict=True):
        out[i] = u // scale if u % scale == 0 else float(Fraction(u, scale))
    return out


def _half_away(x):
    n = int(abs(x) + Fraction(1, 2))
    return n if x >= 0 else -n
