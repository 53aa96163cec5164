"""A session's sections matchpointed as one field (issue 37, docs/scorer.md "Across the field"): when the event's
session says `across_field`, every result of every section on a board is compared with every other (Law 78 A;
Neuberg where a board was played fewer times than the most-played one), by the same implementation that scores a
sim's field across clubs (scoring/combined_field.py, scoring/field_tally.py): a section here is what a club is
there. Each pair keeps its place within its own section beside its place in the field.

Worked from the results on the travellers (Standings.results: decisions applied) whenever asked."""
from bidwire_host.collector import roster
from bidwire_host.scoring import combined_field
from bidwire_host.scoring.model import Artificial, Assigned, format_number, format_pct


def is_asked(s):
    return s is not None and s.event.session(s.session).across_field


def rows(s, standings, conn):
    """The section's results as the combined field takes them (the hub's row shape, a section as its club)."""
    out = []
    names = {}
    for sec in s.event.session(s.session).sections:
        names[sec.name] = roster.names(conn, s, sec.name)
    for section, res in standings.results():
        a = res.adjusted
        if a is not None and not isinstance(a, (Artificial, Assigned)):
            continue  # a weighted score: the field compares scores, not mixtures
        adjusted = None if a is None else ({"ns": float(a.pct("NS")), "ew": float(a.pct("EW"))}
                                           if isinstance(a, Artificial) else {"ns_score": a.ns_score,
                                                                              "ew_score": a.ew_score})
        two = s.two_fields(section)
        key = (lambda line, pair: (line, str(pair))) if two else (lambda line, pair: str(pair))
        out.append({"club_id": section, "session": "", "section": section, "board": res.board, "ns": str(res.ns),
                    "ew": str(res.ew), "ns_names": names[section].get(key("NS", res.ns), ""),
                    "ew_names": names[section].get(key("EW", res.ew), ""), "contract": res.contract,
                    "declarer": res.declarer, "tricks": res.tricks, "score_ns": res.score_ns,
                    "adjusted": adjusted, "version": 1})
    return out


def field(s, standings, conn):
    """The Field of the session's sections together (combined_field.score), or None when the event does not ask."""
    if not is_asked(s):
        return None
    two = all(s.two_fields(sec.name) for sec in s.event.session(s.session).sections)
    method = "mp" if standings.method == "mp" else "neuberg"
    return combined_field.score({"scoring": method, "winners": "two" if two else "one"}, rows(s, standings, conn))


def view(f, withheld=()):
    """The field as the API and the pages show it: the ranking (each pair's place in the field and in its section)
    and each board's traveller across the sections, without the boards `withheld`."""
    if f is None:
        return None
    return {
        "ranking": [{"rank": e["rank"], "section": e["pair"].section, "pair": e["pair"].number,
                     "direction": e["pair"].direction if e["field"] != "NS+EW" else None, "field": e["field"],
                     "names": e["names"], "pct": format_pct(e["pct"]), "mp": format_number(e["mp"]),
                     "top": e["top"], "boards": e["boards"], "section_rank": e["club_rank"]} for e in f.ranking],
        "boards": {b: [{k: (format_number(v) if k in ("mp_ns", "mp_ew", "top", "pct_ns", "pct_ew") else v)
                        for k, v in r.items() if k not in ("club", "session", "version")} for r in rows_]
                   for b, rows_ in sorted(f.boards.items()) if b not in withheld}}
