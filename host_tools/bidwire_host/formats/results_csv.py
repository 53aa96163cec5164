"""CSV export: one rectangular table per file -- the ranking, the travellers, the score cards (issue 14 item 5).

Each file is UTF-8 with a byte order mark (so that spreadsheet programs read accented names right), one header
row, then one row per line, every row as wide as the header (RFC 4180 quoting and CRLF line ends, by the csv
module). Figures as in score-pbn's JSON: ints, or decimals rounded to 2 places half away from zero; an empty cell
where a figure does not apply. Matchpoints in Law 78 A 2/1 units. `archive` puts the three in one zip.

A text cell from outside (pair ids, names, problems) that a spreadsheet would take for a formula -- it starts
with =, +, -, @, a tab or a carriage return -- gets a leading apostrophe (OWASP's CSV injection advice); numbers
are written as numbers, so a negative score stays a number.
"""
from __future__ import annotations

import csv
import io
import zipfile

from bidwire_host.scoring.model import Artificial, Assigned, Weighted, format_number
from bidwire_host.scoring.ranking import contestants

TRAVELLER_FIELDS = ("board", "table", "ns", "ew", "contract", "declarer", "tricks", "score_ns", "adjusted",
                    "mp_ns", "mp_ew", "top", "pct_ns", "pct_ew", "imp_ns", "imp_ew", "problem", "ns_names", "ew_names")
RANKING_FIELDS = ("rank", "display", "direction", "pair", "name", "total_mp", "pct", "total_imps", "boards")
SCORECARD_FIELDS = ("direction", "pair", "board", "table", "opponents_direction", "opponents", "contract",
                    "declarer", "tricks", "score", "adjusted", "mp", "top", "pct", "imps", "names", "opponents_names")
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


def travellers(pub):
    rows = []
    for record in pub.boards:
        for row in record.rows:
            r = row.result
            ns, ew = contestants(r, pub.two_fields)
            rows.append((record.board, r.table, r.ns, r.ew, r.contract, r.declarer, r.tricks, r.shown_score(),
                         _adjusted(r), row.mp_ns, row.mp_ew, row.top, row.pct_ns, row.pct_ew, row.imp_ns,
                         row.imp_ew, row.problem, pub.names.get(ns), pub.names.get(ew)))
    return _text(rows, TRAVELLER_FIELDS)


def ranking(pub):
    rows = []
    for s in pub.standings:
        who = s.contestant
        direction, pair = who if isinstance(who, tuple) else (None, who)
        t = pub.totals[who]
        rows.append((s.rank, s.display, direction, pair, pub.names.get(who), t.mp if t.scored_mp else None,
                     t.pct, None if t.scored_mp else t.imps, t.boards))
    return _text(rows, RANKING_FIELDS)


def scorecards(pub):
    """Every contestant's boards, in ranking order then board order: the score and figures from its side."""
    cards = {s.contestant: [] for s in pub.standings}
    for record in pub.boards:
        for row in record.rows:
            r = row.result
            if row.problem:
                continue
            ns, ew = contestants(r, pub.two_fields)
            shown = r.shown_score()
            for who, side, other, other_side, them, mp, pct, imps, sign in (
                    (ns, "NS", r.ew, "EW", ew, row.mp_ns, row.pct_ns, row.imp_ns, 1),
                    (ew, "EW", r.ns, "NS", ns, row.mp_ew, row.pct_ew, row.imp_ew, -1)):
                if who not in cards:
                    continue
                pair = who[1] if isinstance(who, tuple) else who
                cards[who].append((side, pair, record.board, r.table, other_side, other, r.contract, r.declarer,
                                   r.tricks, None if shown is None else sign * shown, _adjusted(r), mp,
                                   row.top if mp is not None else None, pct, imps, pub.names.get(who),
                                   pub.names.get(them)))
    return _text([line for card in cards.values() for line in card], SCORECARD_FIELDS)


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
