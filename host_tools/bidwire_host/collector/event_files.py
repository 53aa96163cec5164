"""The files of a whole event of several sessions (`bidwire overall --pbn FILE --usebio FILE`, docs/scorer.md
"Several sessions"): each session's store gives its sections' publications as `bidwire export` makes them (the
director's adjustments applied, withheld boards left out), the overall ranking is collector/overall_ranking.py's,
and the formats write them: one PBN with every session's boards and the event's totals, one USEBIO with the
overall places (each session's own USEBIO keeps its boards)."""
from typing import NamedTuple

from bidwire_host.collector import export, overall_ranking
from bidwire_host.formats import pbn_export, usebio
from bidwire_host.formats.publish import EventInfo, EventOverall, OverallStanding, players_of


class WholeEvent(NamedTuple):
    names: list  # the sessions' names, in order
    ranked: list  # [scoring.overall.Overall], best first
    overall: EventOverall  # the ranking as the files write it
    sessions: list  # [(session name, [Publication])]


def whole_event(data_dirs, method=None, weights=None):
    """The WholeEvent of the sessions' stores in `data_dirs`, in session order: each store read once."""
    read = [overall_ranking.read(d, publish=True) for d in data_dirs]
    names, ranked, carry = overall_ranking.rank(read, method, weights)
    pubs = [x.publications for x in read]
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
    event = EventInfo(event=read[0].setup.event.name, date=first.date, method=first.method, club=first.club,
                      club_id=first.club_id)
    return WholeEvent(names, ranked, EventOverall(event, carry, names, standings),
                      [(name, [by[s] for s in sorted(by)]) for name, by in zip(names, pubs, strict=True)])


def render(whole, fmt, irregular="notes"):
    """The whole event's file (a WholeEvent): "pbn" or "usebio" text."""
    if fmt == "pbn":
        return pbn_export.event_dumps(whole.overall, whole.sessions, irregular=irregular)
    return usebio.overall_dumps(whole.overall)
