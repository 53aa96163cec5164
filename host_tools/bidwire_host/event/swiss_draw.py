"""The draw of a Swiss (issue 38): the next match round's matches from the standings after the last one.

The rule (docs/teams.md "The Swiss draw" cites its sources): teams are taken in the order of the standings, best
first (ties already broken by the event's tie-breaks). With an odd number of teams the bye goes to the lowest
placed team that has not had one. Then the top team meets the highest placed team below it that it has not met,
the next team not yet drawn does the same, and so on down the list: winners meet winners, and no two teams meet
twice. Where going down the list that way would leave teams lower down with only opponents they have met, the
draw goes back up and takes the next choice, the lowest tables first (a search, not a swap afterwards), so a draw
without a repeat meeting is found whenever one exists. Only when none exists (a small field late in the event)
does the draw allow repeat meetings, as few as can be, and says which; the director may change any match before
the round is pushed to the tables.

    draw(order, met=(), byes=())   -> Draw(matches, bye, repeats)
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_STEPS = 200_000  # the search's steps before it settles for repeats (a 40-team field needs a few hundred)


class DrawError(ValueError):
    """A draw that cannot be made: the message says why."""


@dataclass(frozen=True)
class Draw:
    matches: tuple[tuple[int, int], ...]  # (higher placed, lower placed), the top match first
    bye: int | None = None  # the team with no match this round
    repeats: tuple[tuple[int, int], ...] = ()  # matches of teams that have met before (when no draw avoids them)


def draw(order, met=(), byes=()):
    """The next round's Draw for teams `order` (best first), given the meetings so far (`met`: pairs of teams, in
    any order) and the teams that have had a bye (`byes`)."""
    order = list(order)
    if len(set(order)) != len(order):
        raise DrawError(f"the standings name a team twice: {order}")
    if len(order) < 2:
        raise DrawError(f"a draw needs two teams or more, not {len(order)}")
    met = {frozenset(m) for m in met}
    for allowed in range(len(order) // 2 + 1):  # repeat meetings allowed: none if at all possible
        for bye in _bye_choices(order, byes):
            rest = [t for t in order if t != bye]
            found = _pair(rest, met, allowed, [MAX_STEPS])
            if found is not None:
                repeats = tuple(m for m in found if frozenset(m) in met)
                return Draw(tuple(found), bye, repeats)
    raise DrawError("no draw found")  # not reached: with every repeat allowed, any order pairs down the list


def _bye_choices(order, byes):
    """Who may have the bye, in turn: nobody with an even number of teams; else the lowest placed team without
    one first, then the next one up; and only if every team has had one, the lowest placed team."""
    if len(order) % 2 == 0:
        return [None]
    had = set(byes)
    fresh = [t for t in reversed(order) if t not in had]
    return fresh or [order[-1]]


def _pair(rest, met, allowed, steps):
    """The first pairing of `rest` down the list (each team not yet drawn meets the highest placed team below it
    that it has not met; one it has met only when `allowed` is not spent, and after every other choice) with at
    most `allowed` repeat meetings, or None."""
    if not rest:
        return []
    steps[0] -= 1
    if steps[0] < 0:
        return None
    top, below = rest[0], rest[1:]
    # the teams it has not met first, best placed first; then (if allowed) those it has, best placed first
    choices = sorted(range(len(below)), key=lambda i: (frozenset((top, below[i])) in met, i))
    for i in choices:
        other = below[i]
        again = frozenset((top, other)) in met
        if again and not allowed:
            break
        found = _pair(below[:i] + below[i + 1:], met, allowed - again, steps)
        if found is not None:
            return [(top, other), *found]
    return None
