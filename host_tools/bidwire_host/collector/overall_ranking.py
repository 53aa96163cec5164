"""`bidwire overall`: an event of several sessions, each played in a collector store of its own, ranked as a whole
(scoring/overall.py, the carry-over the event file's `overall` names). A contestant is the same in every session
when its players are (their names, as the event and the director's fixes give them), else when its section, line
and number are."""
from bidwire_host.collector import derive, roster
from bidwire_host.collector.standings import Standings
from bidwire_host.scoring import overall


def played(data_dir):
    """(the store's Setup, [overall.Played]) of one session's store: each contestant's matchpoints and top."""
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
        return s, out


def ranking(data_dirs, method=None, weights=None):
    """([session names], [overall.Overall]) of the stores in `data_dirs`, in session order; the method and weights
    the first store's event names unless given."""
    setups, sessions = [], []
    for d in data_dirs:
        s, out = played(d)
        setups.append(s)
        sessions.append(out)
    spec = setups[0].event.overall
    method = method or (spec.method if spec is not None else "average")
    weights = weights if weights is not None else (spec.weights if spec is not None else None)
    return [s.session or s.event.sessions[0].name for s in setups], overall.overall(sessions, method, weights)
