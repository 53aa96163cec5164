"""An individual's players ranked (issue 37, docs/movements.md "Individual"): each board is matchpointed as any
pairs' board is (the round's partnerships, "16+1", as its pairs: one field), and each player's score is his
partnerships': their matchpoints added over their tops. Worked from the standings whenever asked."""
from fractions import Fraction

from bidwire_host.event import individual
from bidwire_host.scoring.model import format_number, format_pct


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
    pct = {p: (mp[p] * 100 / top[p] if top[p] else Fraction(50)) for p in mp}
    order = sorted(pct, key=lambda p: (-pct[p], p))
    out = []
    for p in order:
        first = next(i for i, q in enumerate(order) if pct[q] == pct[p])
        tied = sum(pct[q] == pct[p] for q in order) > 1
        out.append({"rank": f"{first + 1}{'=' if tied else ''}", "player": p, "pct": format_pct(pct[p]),
                    "mp": format_number(mp[p]), "top": format_number(top[p]), "boards": boards[p]})
    return out


def view(standings):
    """Each individual section's players ranked: [{"section", "players"}]."""
    s = standings.setup
    if s is None:
        return []
    return [{"section": sec.name, "players": players(standings, sec.name)}
            for sec in s.event.session(s.session).sections if is_event(sec)]
