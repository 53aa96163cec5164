"""A knock-out teams event's bracket (issue 38, docs/teams.md): the first stage seeded so that the top seeds meet
only late (1 and 2 only in the final), byes to the top seeds when the teams are not a power of two, and each later
stage's matches the winners of the stage before, bracket by bracket. The home team is the better seed.

    stages(teams)                          how many stages: the bracket's depth
    first_stage(teams)                     [(home, away), ...]
    next_stage(teams, drawn, winner)       the stage after those `drawn`, from the winners of their matches
"""
from __future__ import annotations

from bidwire_host.event.movements import MovementError


def _size(teams):
    size = 1
    while size < teams:
        size *= 2
    return size


def stages(teams):
    """The stages of a knock-out of `teams` teams: 2 teams play one, 3-4 two, 5-8 three, ..."""
    return max(1, _size(teams).bit_length() - 1)


def seeding(size):
    """The seeds in the order of the bracket's places, the standard draw: [1, 4, 2, 3], [1, 8, 4, 5, 2, 7, 3, 6],
    each pair of places a first-stage match, so that seeds 1 and 2 can meet only in the final."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for seed in order for x in (seed, total - seed)]
    return order


def _pairs(slots):
    """The matches of one stage from its places ([(home, away)], the better seed at home), and who goes through
    without one (a bye: the other place empty)."""
    matches, through = [], []
    for a, b in zip(slots[::2], slots[1::2], strict=True):
        if a is not None and b is not None:
            matches.append((min(a, b), max(a, b)))
        else:
            through.append(a if a is not None else b)
    return matches, through


def first_stage(teams):
    return tuple(_pairs([s if s <= teams else None for s in seeding(_size(teams))])[0])


def next_stage(teams, drawn, winner):
    """The matches of the stage after the stages `drawn` ([[(home, away), ...], ...]), `winner(home, away)` giving
    each match's winner (None: not known yet, MovementError says so). Places of the bracket whose match was not
    drawn as the rule gives it (a director's change) follow the team drawn there."""
    slots = [s if s <= teams else None for s in seeding(_size(teams))]
    for k, stage in enumerate(drawn, 1):
        played = {frozenset(m) for m in stage}
        nxt = []
        for a, b in zip(slots[::2], slots[1::2], strict=True):
            if a is None or b is None:
                nxt.append(a if a is not None else b)
                continue
            if frozenset((a, b)) not in played:
                raise MovementError(f"stage {k}: {a} v {b} was not drawn; the next stage is the director's to draw")
            won = winner(a, b)
            if won is None:
                raise MovementError(f"stage {k}: {min(a, b)} v {max(a, b)} has no winner yet")
            nxt.append(won)
        slots = nxt
    if len(slots) < 2:
        return ()
    return tuple(_pairs(slots)[0])
