"""The files of a whole event of several sessions (`bidwire overall --pbn FILE --usebio FILE`, docs/scorer.md
"Several sessions"): each session's store gives its sections' publications as `bidwire export` makes them (the
director's adjustments applied, withheld boards left out), the overall ranking is collector/overall_ranking.py's,
and the formats write them: one PBN with every session's boards and the event's totals, one USEBIO with the
overall places (each session's own USEBIO keeps its boards)."""
from bidwire_host.collector import derive, export, overall_ranking, withheld
from bidwire_host.collector.standings import Standings
from bidwire_host.formats import pbn_export, usebio
from bidwire_host.formats.publish import EventInfo, EventOverall, OverallStanding, players_of


def publications(data_dir):
    """(the store's Setup, {section: Publication}) of one session's store, every section scored."""
    with derive.open_store(data_dir) as store:
        conn = store.reader()
        standings = Standings()
        standings.load(conn)
        held = withheld.boards_stored(conn, standings.setup)
        return standings.setup, {section: export.publication(conn, standings, section, withhold=held)
                                 for section in sorted(standings.sessions)}


def whole_event(data_dirs, method=None, weights=None):
    """(EventOverall, [(session name, [Publication])]) of the sessions' stores in `data_dirs`, in session order."""
    names, ranked = overall_ranking.ranking(data_dirs, method, weights)
    setups, pubs = zip(*(publications(d) for d in data_dirs), strict=True)
    if not any(pubs):
        raise export.ExportError("nothing scored yet in any session")
    standings = []
    for o in ranked:
        k, (section, who) = o.first
        pub = pubs[k][section]
        direction, pair = who if isinstance(who, tuple) else (None, who)
        standings.append(OverallStanding(o.rank, direction if pub.two_fields else None, str(pair), o.name, o.score,
                                         o.sessions, o.boards, players_of(pub, who), o.mp, o.top))
    first = next(p for by in pubs for p in by.values()).event
    event = EventInfo(event=setups[0].event.name, date=first.date, method=first.method, club=first.club,
                      club_id=first.club_id)
    spec = setups[0].event.overall
    carry = method or (spec.method if spec is not None else "average")
    return (EventOverall(event, carry, names, standings),
            [(name, [by[s] for s in sorted(by)]) for name, by in zip(names, pubs, strict=True)])


def render(data_dirs, fmt, method=None, weights=None, irregular="notes"):
    """The whole event's file: "pbn" or "usebio" text."""
    overall, sessions = whole_event(data_dirs, method, weights)
    if fmt == "pbn":
        return pbn_export.event_dumps(overall, sessions, irregular=irregular)
    return usebio.overall_dumps(overall)
