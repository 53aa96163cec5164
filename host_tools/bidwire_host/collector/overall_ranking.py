"""`bidwire overall`: an event of several sessions, each played in a collector store of its own, ranked as a whole
(scoring/overall.py, the carry-over the event file's `overall` names). A contestant is the same in every session
when its players are (their names, as the event and the director's fixes give them), else when its section, line
and number are. Each store is read once (`read`), for the ranking and, when asked, for its files' publications."""
from typing import NamedTuple

from bidwire_host.collector import derive, export, roster, withheld
from bidwire_host.collector.standings import Standings
from bidwire_host.scoring import overall


class SessionRead(NamedTuple):
    setup: object  # the store's event_setup.Setup
    played: list  # [overall.Played]: each contestant's matchpoints and top
    publications: dict  # {section: Publication} as `bidwire export` makes them, when asked; else {}


def read(data_dir, publish=False):
    """One session's store, read once: its Setup, each contestant's figures and, with `publish`, its sections'
    publications (the director's adjustments applied, withheld boards left out)."""
    with derive.open_store(data_dir) as store:
        conn = store.reader()
        scored = Standings()
        scored.load(conn)
        s = scored.setup
        if s is None:
            raise overall.OverallError(f"{data_dir}: no event loaded in this store")
        out = []
        for section, sess in scored.sessions.items():
            found = roster.players(conn, s, section)
            names = roster.names(conn, s, section, found)
            for who, t in sess.totals.items():
                players = tuple(sorted(p.name for p in found.get(who, []) if p.name))
                key = players if len(players) == 2 else (section, *(who if isinstance(who, tuple) else (None, who)))
                out.append(overall.Played(key, names.get(who, ""), t.mp, t.top, (section, who), t.boards))
        pubs = {}
        if publish:
            held = withheld.boards_stored(conn, s)
            pubs = {section: export.publication(conn, scored, section, withhold=held)
                    for section in sorted(scored.sessions)}
        return SessionRead(s, out, pubs)


def rank(sessions, method=None, weights=None):
    """([session names], [overall.Overall], the method used) of the sessions read ([SessionRead], in session
    order); the method and weights the first session's event names unless given."""
    spec = sessions[0].setup.event.overall
    method = method or (spec.method if spec is not None else "average")
    weights = weights if weights is not None else (spec.weights if spec is not None else None)
    names = [x.setup.session or x.setup.event.sessions[0].name for x in sessions]
    return names, overall.overall([x.played for x in sessions], method, weights), method


def ranking(data_dirs, method=None, weights=None):
    """([session names], [overall.Overall]) of the stores in `data_dirs`, in session order."""
    names, ranked, _ = rank([read(d) for d in data_dirs], method, weights)
    return names, ranked
