"""`bidwire score-pbn`: score the results held in a PBN file and report them as JSON (issue 4, part 6).

    {"boards": [{"board": n, "rows": [{"ns", "ew", "score_ns", "mp_ns", "pct_ns", "imp_ns"}]}],
     "ranking": [{"rank", "display", "direction", "pair", "total", "pct", "boards"}],
     "problems": [{"board", "line", "problem"}], "damage": [{"board", "line", "problem"}],
     "published": [{"board", "line", "problem"}] (with --as-published: the scores kept that Law 77 would not give),
     "file_percentages": {"method", "rows"} (when the file gives percentages: the scoring they follow)}

A figure that does not apply to the method is null; numbers are ints or floats rounded to 2 decimals half away
from zero (scoring.model.round_half_away). Rows keep the file's order within each board; a Multiplicity row is
repeated that many times. Every row that cannot be scored -- a score that is not its contract's Law 77 score, a
junk contract such as 8S, a row of the wrong width -- is one entry of `problems` (board, line, why) and the
others are scored. Damage elsewhere costs only what it damages (pbn_import.load): a deal that cannot be read drops
that board's hand record, a Play or Auction section that cannot be read that section, a stray brace the rest of
its line; each is one entry of `damage`, and every result that can be scored still is. `strict` refuses the whole
file at the first row or part it cannot read (a PbnError). What real files do where the meaning is clear is
read in both: `[Deal "#"]`, the previous game's deal; a DOS end-of-file mark (Ctrl-Z) at the end.
"""
from __future__ import annotations

from bidwire_host.formats.pbn import PbnError
from bidwire_host.formats.pbn_import import load
from bidwire_host.scoring.matchpoints import acbl as acbl_units
from bidwire_host.scoring.model import format_number
from bidwire_host.scoring.session import METHODS, score_field

__all__ = ["METHODS", "decode", "percentage_method", "score_pbn"]

# The scorings a file's own percentages are compared with, each from a played result's matchpoints on its board:
# `mp` the Law 78 A matchpoints (2 a result beaten, 1 a tie) over the top 2(n - 1); `neuberg` the same factored to
# the biggest traveller; "(MP + 1) / 2n" the matchpoints plus one over twice the board's results, which some
# programs print (a top is then short of 100 %, a bottom above 0). A file's figure matches one within its rounding.
_TOLERANCE = 0.0051  # half a unit of a figure's second decimal, and float noise


def decode(data):
    """PBN bytes as text: UTF-8 if it is valid UTF-8, else ISO 8859-1 (PBN's own character set, §2.2)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def percentage_method(imported, two_fields=None):
    """Which scoring the file's own NS percentages follow ({"method", "rows"}; method None when none of them fits
    every row), or None when the file gives none."""
    if not imported.percentages:
        return None
    scored = {name: score_field(imported.results, name, two_fields=two_fields)[0] for name in ("mp", "neuberg")}
    candidates = {name: {(b, r.result.line): float(r.pct_ns) for b, rs in rows.items() for r in rs
                         if r.pct_ns is not None} for name, rows in scored.items()}
    candidates["(MP + 1) / 2n"] = {(b, r.result.line): float((r.mp_ns + 1) * 100 / (2 * len(rs)))
                                   for b, rs in scored["mp"].items() for r in rs if r.mp_ns is not None}
    for name, worked in candidates.items():
        if all(key in worked and abs(worked[key] - pct) <= _TOLERANCE for key, pct in imported.percentages.items()):
            return {"method": name, "rows": len(imported.percentages)}
    return {"method": None, "rows": len(imported.percentages)}


def score_pbn(text, method="neuberg", *, acbl=False, two_fields=None, strict=False, as_published=False):
    """The report for PBN `text` scored by `method`; raises pbn.PbnError for PBN that cannot be read (with
    `strict`, also for one results row that cannot). `as_published`: scores as the file's own stand (a score Law
    77 would not give is kept, and listed in the report's `published`)."""
    imported = load(text, strict=strict, as_published=as_published)
    if imported.damage and not imported.results and not imported.problems:  # nothing but damage: not a PBN file
        first = imported.damage[0]
        raise PbnError(first.line, first.message)
    rows, totals, standings, _ = score_field(imported.results, method, two_fields=two_fields)
    problems = [p.as_dict() for p in imported.problems]
    mp = acbl_units if acbl else (lambda x: x)
    boards = []
    for number, board_rows in rows.items():
        out = []
        for row in board_rows:
            r = row.result
            if row.problem:
                problems.append({"board": number, "line": r.line, "problem": row.problem})
            out.append({"ns": r.ns, "ew": r.ew, "score_ns": r.shown_score(), "mp_ns": format_number(mp(row.mp_ns)),
                        "pct_ns": format_number(row.pct_ns), "imp_ns": format_number(row.imp_ns)})
        boards.append({"board": number, "rows": out})
    ranking = []
    for s in standings:
        who = s.contestant
        direction, pair = who if isinstance(who, tuple) else (None, who)
        t = totals[who]
        total = mp(t.mp) if t.scored_mp else t.imps
        ranking.append({"rank": s.rank, "display": s.display, "direction": direction, "pair": pair,
                        "total": format_number(total), "pct": format_number(t.pct), "boards": t.boards})
    problems.sort(key=lambda p: (p["line"] is None, p["line"] or 0))
    report = {"boards": boards, "ranking": ranking, "problems": problems,
              "damage": [p.as_dict() for p in imported.damage]}
    own = percentage_method(imported, two_fields)
    if own is not None:  # the scoring the file's own percentages follow, to be scored alike (`--method`)
        report["file_percentages"] = own
    if as_published:
        report["published"] = [p.as_dict() for p in imported.published]
    return report
