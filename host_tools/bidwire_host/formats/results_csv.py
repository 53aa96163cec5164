"""CSV export: one rectangular table per file -- the ranking, the travellers, the score cards (issue 14 item 5).

Each file is UTF-8 with a byte order mark (so that spreadsheet programs read accented names right), one header
row, then one row per line, every row as wide as the header (RFC 4180 quoting and CRLF line ends, by the csv
module). Every row starts with the event, its date (YYYY-MM-DD) and the section, so a row copied elsewhere still says
where it is from; travellers and score cards also give the round and the opening lead. Only the columns the
event's scoring uses: matchpoints, top and percentages in a matchpoint event, IMPs in an IMP one (and the ranking's
masterpoints when the event names a scale). Figures as in score-pbn's JSON: ints, or decimals rounded to 2 places
half away from zero, a board's matchpoints so that they sum to its exact total (publish.BoardRecord.written); an
empty cell where a figure does not apply. Matchpoints in Law 78 A 2/1 units. `archive` puts the three in one zip.

A text cell from outside (pair ids, names, problems) that a spreadsheet would take for a formula -- it starts
with =, +, -, @, a tab or a carriage return -- gets a leading apostrophe (OWASP's CSV injection advice); numbers
are written as numbers, so a negative score stays a number.
"""
from __future__ import annotations

import csv
import io
import zipfile

from bidwire_host.scoring import masterpoints
from bidwire_host.scoring.model import Artificial, Assigned, Weighted, format_number
from bidwire_host.scoring.ranking import contestants

_WHERE = ("event", "date", "section")  # first on every row, so that a row pasted elsewhere still says what it is
_MP = ("mp", "neuberg")  # matchpoint methods: MP, top and % columns; the others IMP columns
TRAVELLER_FIELDS = {
    "mp": _WHERE + ("round", "board", "table", "ns", "ew", "contract", "declarer", "tricks", "lead", "score_ns",
                    "adjusted", "mp_ns", "mp_ew", "top", "pct_ns", "pct_ew", "problem", "ns_names", "ew_names"),
    "imp": _WHERE + ("round", "board", "table", "ns", "ew", "contract", "declarer", "tricks", "lead", "score_ns",
                     "adjusted", "imp_ns", "imp_ew", "problem", "ns_names", "ew_names")}
RANKING_FIELDS = {"mp": _WHERE + ("rank", "display", "direction", "pair", "name", "total_mp", "pct", "boards"),
                  "imp": _WHERE + ("rank", "display", "direction", "pair", "name", "total_imps", "boards")}
SCORECARD_FIELDS = {
    "mp": _WHERE + ("direction", "pair", "round", "board", "table", "opponents_direction", "opponents", "contract",
                    "declarer", "tricks", "lead", "score", "adjusted", "mp", "top", "pct", "names",
                    "opponents_names"),
    "imp": _WHERE + ("direction", "pair", "round", "board", "table", "opponents_direction", "opponents", "contract",
                     "declarer", "tricks", "lead", "score", "adjusted", "imps", "names", "opponents_names")}
TABLES = ("ranking", "travellers", "scorecards")
BOM = "\ufeff"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value):
    """One CSV cell: '' for None, a figure as a number, text neutralised against formula injection."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    value = format_number(value)
    if isinstance(value, (int, float)):
        return value
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _adjusted(result):
    a = result.adjusted
    if isinstance(a, Artificial):
        return a.label()
    if isinstance(a, Assigned):
        return f"assigned {a.ns_score}/{a.ew_score}"
    if isinstance(a, Weighted):
        return "weighted " + " + ".join(f"{w}×{s}" for w, s in a.ns)
    return ""


def _text(rows, fields):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(fields)
    for row in rows:
        w.writerow([cell(v) for v in row])
    return BOM + out.getvalue()


def _family(pub):
    return "mp" if pub.method in _MP else "imp"


def _where(pub):
    return (pub.event.event, pub.event.iso_date(), pub.event.section)


def _rows(pub, fields, named):
    return [tuple(row[f] for f in fields) for row in named]


def tempo_text(calls):
    """A table's auction with each call's tempo, for the travellers' `tempo` column: "N 1H 12.3; E P 0.8; S X ?"
    (seat, call, thinking time in seconds to the tenth as the unit measured it, ? when not known); None when no
    call has one."""
    if not calls or not any(c.tempo is not None for c in calls):
        return None
    return "; ".join(f"{c.seat or '?'} {'P' if c.call.upper() in ('P', 'PASS') else c.call} "
                     f"{'?' if c.tempo is None else f'{c.tempo // 10}.{c.tempo % 10}'}" for c in calls)


def travellers(pub):
    fields = TRAVELLER_FIELDS[_family(pub)]
    if any(tempo_text(calls) for record in pub.boards for calls in record.auctions.values()):
        fields = (*fields, "tempo")  # only when a unit measured it: no column empty throughout
    if any(record.entered for record in pub.boards):
        fields = (*fields, "entered_by")  # a result the director entered: who
    named = []
    for record in pub.boards:
        written = {n: record.written(n) for n in ("mp_ns", "mp_ew", "imp_ns", "imp_ew")}
        for i, row in enumerate(record.rows):
            r = row.result
            ns, ew = contestants(r, pub.two_fields)
            named.append(dict(zip(_WHERE, _where(pub), strict=True), round=record.rounds.get(i), board=record.board,
                              table=r.table, ns=r.ns, ew=r.ew, contract=r.contract, declarer=r.declarer,
                              tricks=r.tricks, lead=record.leads.get(i), score_ns=r.shown_score(),
                              adjusted=_adjusted(r), mp_ns=written["mp_ns"][i], mp_ew=written["mp_ew"][i],
                              top=row.top, pct_ns=row.pct_ns, pct_ew=row.pct_ew, imp_ns=written["imp_ns"][i],
                              imp_ew=written["imp_ew"][i], problem=row.problem, ns_names=pub.names.get(ns),
                              ew_names=pub.names.get(ew), tempo=tempo_text(record.auctions.get(i)),
                              entered_by=record.entered.get(i)))
    return _text(_rows(pub, fields, named), fields)


def ranking(pub):
    fields = RANKING_FIELDS[_family(pub)]
    awarded = masterpoints.awards(pub.event.masterpoints, pub.standings, boards=len(pub.boards),
                                  two_fields=pub.two_fields)
    if awarded is not None:
        fields = (*fields, "masterpoints")
    named = []
    for s in pub.standings:
        who = s.contestant
        direction, pair = who if isinstance(who, tuple) else (None, who)
        t = pub.totals[who]
        named.append(dict(zip(_WHERE, _where(pub), strict=True), rank=s.rank, display=s.display,
                          direction=direction, pair=pair, name=pub.names.get(who), total_mp=t.mp, pct=t.pct,
                          total_imps=t.imps, boards=t.boards,
                          masterpoints=None if awarded is None else awarded.get(who, 0)))
    return _text(_rows(pub, fields, named), fields)


def scorecards(pub):
    """Every contestant's boards, in ranking order then board order: the score and figures from its side (the
    board's figures as the travellers write them)."""
    fields = SCORECARD_FIELDS[_family(pub)]
    cards = {s.contestant: [] for s in pub.standings}
    for record in pub.boards:
        written = {n: record.written(n) for n in ("mp_ns", "mp_ew", "imp_ns", "imp_ew")}
        for i, row in enumerate(record.rows):
            r = row.result
            if row.problem:
                continue
            ns, ew = contestants(r, pub.two_fields)
            shown = r.shown_score()
            for who, side, other, other_side, them, mine, pct, sign in (
                    (ns, "NS", r.ew, "EW", ew, "ns", row.pct_ns, 1), (ew, "EW", r.ns, "NS", ns, "ew", row.pct_ew, -1)):
                if who not in cards:
                    continue
                mp = written[f"mp_{mine}"][i]
                cards[who].append(dict(
                    zip(_WHERE, _where(pub), strict=True), direction=side, pair=who[1] if isinstance(who, tuple)
                    else who, round=record.rounds.get(i), board=record.board, table=r.table,
                    opponents_direction=other_side, opponents=other, contract=r.contract, declarer=r.declarer,
                    tricks=r.tricks, lead=record.leads.get(i), score=None if shown is None else sign * shown,
                    adjusted=_adjusted(r), mp=mp, top=row.top if mp is not None else None, pct=pct,
                    imps=written[f"imp_{mine}"][i], names=pub.names.get(who), opponents_names=pub.names.get(them)))
    return _text(_rows(pub, fields, [line for card in cards.values() for line in card]), fields)


WRITERS = {"ranking": ranking, "travellers": travellers, "scorecards": scorecards}


def table(pub, name):
    """One table's CSV text: `name` is one of TABLES."""
    if name not in WRITERS:
        raise ValueError(f"table: one of {', '.join(TABLES)}, not {name!r}")
    return WRITERS[name](pub)


def archive(pub, stem="bidwire"):
    """A zip of the three tables, one CSV file each (stem-ranking.csv, ...)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in TABLES:  # a fixed date: the same session gives the same bytes
            info = zipfile.ZipInfo(f"{stem}-{name}.csv", date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(info, WRITERS[name](pub).encode("utf-8"), zipfile.ZIP_DEFLATED)
    return out.getvalue()
