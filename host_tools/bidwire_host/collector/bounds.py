"""The bounds every number and text from outside meets before the writer sees it (issue 24, "one parsing boundary").

A number is read by `number` with a bounded size (at most 12 digits before the point, 6 after, an exponent of at
most 2 digits), so that no text such as "1e20000000" can make Fraction or int build a huge value; an integer
fits 64 bits; a score is what a board can score. `decision` checks a decision's body (API and dashboard forms
alike: collector/service.decide) and raises BoundsError naming the field. `clip` shortens a stored text for a
page. Names refuse control characters where they are read (event/checks.control_char).
"""
import math
import re
from fractions import Fraction

from bidwire_host.scoring.model import ARTIFICIAL_NAMES

INT64 = 2**63 - 1
MAX_SCORE = 7600  # the most a board can score: 13 down, redoubled, vulnerable (Law 77)
MAX_PENALTY = 10_000  # points, per cent or IMPs taken off: far beyond any real penalty
MAX_TEXT = 500  # a reason, a note
_NUMBER = re.compile(r"\s*([+-]?)(\d{1,12})(?:\.(\d{0,6}))?(?:[eE]([+-]?\d{1,2}))?\s*%?\s*")
_FRACTION = re.compile(r"\s*([+-]?\d{1,6})\s*/\s*(\d{1,6})\s*")


class BoundsError(ValueError):
    """A value out of its bounds: the message names the field and says what it may be."""


def number(value, field, lo, hi):
    """A Fraction within [lo, hi] from an int, a finite float or a decimal text ("12.5", "1/3", "1.5e2", "60%");
    BoundsError naming `field` for anything else, before any big value is built."""
    if isinstance(value, bool):
        raise BoundsError(f"{field}: a number, not {value}")
    if isinstance(value, int):
        out = Fraction(value) if -INT64 <= value <= INT64 else None
    elif isinstance(value, float):
        out = Fraction(value) if math.isfinite(value) else None
    elif isinstance(value, str) and len(value) <= 40:
        m, f = _NUMBER.fullmatch(value), _FRACTION.fullmatch(value)
        if m:
            sign, whole, part, exp = m.groups()
            out = Fraction(int(whole + (part or "")), 10 ** len(part or "")) * Fraction(10) ** int(exp or 0)
            out = -out if sign == "-" else out
        elif f and int(f.group(2)):
            out = Fraction(int(f.group(1)), int(f.group(2)))
        else:
            out = None
    else:
        out = None
    if out is None:
        shown = value if isinstance(value, int | float) and abs(value) < 1e15 else "that"
        raise BoundsError(f"{field}: a number from {lo} to {hi}, not {shown}")
    if not lo <= out <= hi:
        raise BoundsError(f"{field}: a number from {lo} to {hi}")
    return out


def integer(value, field, lo=-INT64, hi=INT64):
    """`value` if it is an int (not a bool) within [lo, hi]; else BoundsError naming `field`."""
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise BoundsError(f"{field}: a whole number from {lo} to {hi}")
    return value


def form_integer(text, field, lo=-INT64, hi=INT64):
    """A dashboard form's whole number: at most 19 digits, then within [lo, hi]."""
    text = str(text or "").strip()
    if not re.fullmatch(r"[+-]?\d{1,19}", text):
        raise BoundsError(f"{field}: a whole number from {lo} to {hi}" + (f", not {text!r}" if len(text) < 30 else ""))
    return integer(int(text), field, lo, hi)


def clip(text, most):
    """A stored text as a page shows it: at most `most` characters, and "…" where it was cut."""
    text = str(text)
    return text if len(text) <= most else text[:most] + "…"


def _artificial(value, field):
    """A+, A, A- (or another of their names), or a number of bounded size (the scoring model wants 0-100)."""
    if isinstance(value, str) and value.strip().upper() in ARTIFICIAL_NAMES:
        return value
    try:
        number(value, field, -INT64, INT64)
    except BoundsError:
        raise BoundsError(f"{field}: unknown artificial score: use A+, A, A- or a percentage 0-100") from None
    return value


def decision(kind, body):
    """Check the numbers of a decision's body (BoundsError naming the field); the body, unchanged."""
    for field in ("table", "board", "seq", "round"):
        if body.get(field) is not None:
            integer(body[field], field, 1, INT64)
    for field in ("score_ns", "score_ew"):
        if body.get(field) is not None:
            integer(body[field], field, -MAX_SCORE, MAX_SCORE)
    if kind == "adjust":
        for field in ("ns", "ew"):
            if body.get(field) is not None:
                _artificial(body[field], field)
    if kind == "penalty" and "amount" in body:
        number(body["amount"], "amount", -MAX_PENALTY, MAX_PENALTY)  # more than 0: decisions/scores.py
    if isinstance(body.get("pair"), int):
        integer(body["pair"], "pair", 1, INT64)
    return body
