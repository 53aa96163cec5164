"""CSV export: travellers (one line per result) and the ranking, with the csv module's quoting.

Figures as in score-pbn's JSON: ints, or decimals rounded to 2 places; an empty cell where a figure does
not apply. Matchpoints in Law 78 A 2/1 units.
"""
from __future__ import annotations

import csv
import io

from bidwire_host.scoring.model import Artificial, Assigned, Weighted, format_number

TRAVELLER_FIELDS = ("board", "table", "ns", "ew", "contract", "declarer", "tricks", "score_ns", "adjusted",
                    "mp_ns", "mp_ew", "top", "pct_ns", "pct_ew", "imp_ns", "imp_ew", "problem")
RANKING_FIELDS = ("rank", "display", "direction", "pair", "name", "total_mp", "pct", "total_imps", "boards")


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
    w = csv.writer(out, lineterminator="\n")
    w.writerow(fields)
    for row in rows:
        w.writerow(["" if v is None else format_number(v) for v in row])
    return out.getvalue()


def travellers(pub):
    rows = []
    for record in pub.boards:
        for row in record.rows:
            r = row.result
            rows.append((record.board, r.table, r.ns, r.ew, r.contract, r.declarer, r.tricks, r.shown_score(),
                         _adjusted(r), row.mp_ns, row.mp_ew, row.top, row.pct_ns, row.pct_ew, row.imp_ns,
                         row.imp_ew, row.problem))
    return _text(rows, TRAVELLER_FIELDS)


def ranking(pub):
    rows = []
    for s in pub.standings:
        who = s.contestant
        direction, pair = who if isinstance(who, tuple) else (None, who)
        t = pub.totals[who]
        rows.append((s.rank, s.display, direction, pair, pub.names.get(pair), t.mp if t.scored_mp else None,
                     t.pct, None if t.scored_mp else t.imps, t.boards))
    return _text(rows, RANKING_FIELDS)
