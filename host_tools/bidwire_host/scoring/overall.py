"""An event of several sessions ranked as a whole (issue 37, docs/scorer.md "Several sessions"): each session is
played, scored and published on its own; the overall ranking puts together each contestant's sessions with the
carry-over the event names:

    average   percentages averaged over the boards played: the matchpoints of every session over all their tops
    sum       the matchpoints summed (sessions of the same size)
    carry     a fixed carry-forward: each session's percentage weighted as the event gives (25, 75: a qualifying
              session carried forward at a quarter), the weights in percent

A contestant is whoever the caller says is the same in every session (its players, or its section and number); one
that missed a session is ranked on what it played under `average`, and counts nothing for that session otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bidwire_host.scoring.ranking import rank

METHODS = ("average", "sum", "carry")


class OverallError(ValueError):
    """A carry-over the sessions cannot be ranked by: the message says what to change."""


@dataclass
class Played:
    """A contestant's one session: its matchpoints and its top (the boards it played), its percentage."""
    who: object
    name: str
    mp: Fraction
    top: Fraction
    seat: object = None  # where it sat in this session (its section and pair id), as the caller names it
    boards: int = 0


@dataclass
class Overall:
    who: object
    name: str
    rank: str
    score: Fraction  # the percentage (average, carry) or the matchpoints (sum) it is ranked on
    sessions: list  # [percentage, or None for a session it missed]
    first: tuple = ()  # (the first session it played, 0-based, and its seat there)
    boards: int = 0  # the boards it played in all sessions
    mp: Fraction = Fraction(0)  # its matchpoints in all sessions, and their tops
    top: Fraction = Fraction(0)


def overall(sessions, method="average", weights=None):
    """[Overall] best first, from `sessions` ([[Played], ...], in session order) by `method`."""
    if method not in METHODS:
        raise OverallError(f"method: one of {', '.join(METHODS)}, not {method!r}")
    if method == "carry":
        if weights is None or len(weights) != len(sessions) or any(w < 0 for w in weights) or sum(weights) != 100:
            raise OverallError(f"weights: one for each of the {len(sessions)} sessions, in percent, adding up to 100")
    who = {}
    for k, played in enumerate(sessions):
        for p in played:
            who.setdefault(p.who, {"name": p.name, "by": {}})["by"][k] = p
            who[p.who]["name"] = p.name or who[p.who]["name"]
    out = []
    for key, seen in who.items():
        by = seen["by"]
        pcts = [None if k not in by or not by[k].top else Fraction(by[k].mp) * 100 / by[k].top
                for k in range(len(sessions))]
        if method == "sum":
            score = sum((Fraction(p.mp) for p in by.values()), Fraction(0))
        elif method == "average":
            top = sum((Fraction(p.top) for p in by.values()), Fraction(0))
            score = sum((Fraction(p.mp) for p in by.values()), Fraction(0)) * 100 / top if top else Fraction(50)
        else:
            score = sum((Fraction(w, 100) * (pct or 0) for w, pct in zip(weights, pcts, strict=True)), Fraction(0))
        k = min(by)
        out.append(Overall(key, seen["name"], "", score, pcts, (k, by[k].seat), sum(p.boards for p in by.values()),
                           sum((Fraction(p.mp) for p in by.values()), Fraction(0)),
                           sum((Fraction(p.top) for p in by.values()), Fraction(0))))
    by_key = {o.who: o for o in out}
    ranked = []
    for r in rank({o.who: o.score for o in out}):  # equal scores share a place ("2="), as every ranking does
        by_key[r.contestant].rank = r.display
        ranked.append(by_key[r.contestant])
    return ranked
