"""An individual's players ranked (issue 37, docs/movements.md "Individual"): each board is matchpointed as any
pairs' board is (the round's partnerships, "16+1", as its pairs: one field), and each player's score is his
partnerships': their matchpoints added over their tops. Worked from the standings whenever asked."""
from fractions import Fraction

from bidwire_host.event import individual
from bidwire_host.scoring.model import format_number, format_pct
from bidwire_host.scoring.ranking import rank


def is_event(sec):
    return sec is not None and sec.movement.type == individual.KIND


def players(standings, section):
    """[{"rank", "player", "pct", "mp", "top", "boards"}] best first, each player's partnerships summed."""
    sess = standings.sessions.get(section)
    if sess is None:
        return []
    mp, top, boards = {}, {}, {}
    for who, t in sess.totals.items():
        two = individual.players_of(who)
        if two is None or t.mp is None:
            continue
        for p in two:
            mp[p] = mp.get(p, Fraction(0)) + Fraction(t.mp)
            top[p] = top.get(p, Fraction(0)) + Fraction(t.top)
            boards[p] = boards.get(p, 0) + t.boards
    ranked = rank({str(p): mp[p] * 100 / top[p] if top[p] else Fraction(50) for p in mp})  # players tied: by number
    return [{"rank": r.display, "player": int(r.contestant), "pct": format_pct(r.value),
             "mp": format_number(mp[int(r.contestant)]), "top": format_number(top[int(r.contestant)]),
             "boards": boards[int(r.contestant)]} for r in ranked]


def view(standings):
    """Each individual section's players ranked: [{"section", "players"}]."""
    s = standings.setup
    if s is None:
        return []
    return [{"section": sec.name, "players": players(standings, sec.name)}
            for sec in s.event.session(s.session).sections if is_event(sec)]
