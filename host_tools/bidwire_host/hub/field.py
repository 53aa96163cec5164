"""The combined field: every club's results for a board scored together (Law 78 A; Neuberg where a board was
played fewer times than the most-played one), the overall ranking, and each club's ranking within the field.

Scoring is the club collector's own (bidwire_host.scoring); the hub only names the contestants across clubs: a
pair is its club, section and pair number. With one winner (as ECats scores) every pair is ranked in one list;
with two, North-South and East-West apart. Adjusted scores are scored as the club gave them.
"""
from dataclasses import dataclass
from fractions import Fraction

from bidwire_host.scoring.model import Artificial, Assigned, Result
from bidwire_host.scoring.ranking import rank
from bidwire_host.scoring.session import score_field


@dataclass(frozen=True)
class Pair:
    club: str
    section: str
    number: str
    direction: str  # "NS" or "EW": where it sat

    @property
    def label(self):
        return f"{self.club} {self.section}{self.number} {self.direction}"


def _result(row):
    adjusted = None
    a = row["adjusted"]
    if a:
        if "ns" in a:
            adjusted = Artificial(Fraction(str(a["ns"])), Fraction(str(a["ew"])))
        else:
            adjusted = Assigned(a["ns_score"], a["ew_score"])
    return Result(row["board"], pair_id(row["club_id"], row["section"], row["ns"]),
                  pair_id(row["club_id"], row["section"], row["ew"]), row["score_ns"], row["contract"],
                  row["declarer"], row["tricks"], adjusted, table=row["club_id"])


def pair_id(club, section, number):
    """A pair's id across the field, as the exports print it: club, section and number ("C1-A-3"). A section
    and a pair number hold no "-" (hub/inputs.py), so the club's id is everything before the last two."""
    return f"{club}-{section}-{number}"


def _pair(contestant, names):
    direction, who = contestant
    club, section, number = who.rsplit("-", 2)
    pair = Pair(club, section, number, direction)
    return pair, names.get((direction, who), "")


@dataclass
class Field:
    boards: dict  # board -> [{"club", "section", "ns", "ew", "contract", ..., "score_ns", "pct_ns", "pct_ew"}]
    ranking: list  # [{"rank", "pair", "names", "pct", "mp", "top", "boards"}], best first (by field if two)
    clubs: dict  # club -> its pairs' ranking within the field (the same dicts, with "club_rank")
    results: int


def results_of(rows):
    """The stored results (records.results) as the scoring core's Results, with each pair's names."""
    results = [_result(r) for r in rows]
    names = {}
    for r, res in zip(rows, results, strict=True):
        names[("NS", res.ns)] = r["ns_names"]
        names[("EW", res.ew)] = r["ew_names"]
    return results, names


def score(sim, rows):
    """The sim's field from its stored results (records.results)."""
    results = [_result(r) for r in rows]
    names = {}
    for r, res in zip(rows, results, strict=True):
        names[("NS", res.ns)] = r["ns_names"]
        names[("EW", res.ew)] = r["ew_names"]
    if not results:
        return Field({}, [], {}, 0)
    method = sim["scoring"]
    by_board, totals, _, _ = score_field(results, method, two_fields=True)
    boards = {}
    for b, board_rows in by_board.items():
        out = []
        for row, src in zip(board_rows, (r for r in rows if r["board"] == b), strict=True):
            out.append({"club": src["club_id"], "section": src["section"], "ns": src["ns"], "ew": src["ew"],
                        "contract": src["contract"], "declarer": src["declarer"], "tricks": src["tricks"],
                        "score_ns": src["score_ns"], "adjusted": src["adjusted"], "version": src["version"],
                        "mp_ns": row.mp_ns, "mp_ew": row.mp_ew, "top": row.top,
                        "pct_ns": row.pct_ns, "pct_ew": row.pct_ew})
        boards[b] = out
    groups = [("NS", "EW")] if sim["winners"] == "one" else [("NS",), ("EW",)]
    ranking = []
    for directions in groups:
        values = {who: t.pct for who, t in totals.items() if who[0] in directions and t.pct is not None}
        for st in rank(values):
            t = totals[st.contestant]
            pair, pair_names = _pair(st.contestant, names)
            ranking.append({"rank": st.display, "pair": pair, "names": pair_names, "pct": st.value, "mp": t.mp,
                            "top": t.top, "boards": t.boards, "field": "+".join(directions)})
    clubs = {}
    for entry in ranking:
        clubs.setdefault((entry["pair"].club, entry["field"]), []).append(entry)
    by_club = {}
    for (club, _field), entries in clubs.items():
        for st in rank({id(e): e["pct"] for e in entries}):
            e = next(x for x in entries if id(x) == st.contestant)
            by_club.setdefault(club, []).append({**e, "club_rank": st.display})
    return Field(boards, ranking, by_club, len(results))


def frequencies(board_rows):
    """A board's frequency table: [(NS score or adjusted label, count, mp_ns, mp_ew, pct_ns)], best NS first."""
    seen = {}
    for r in board_rows:
        key = r["score_ns"] if r["adjusted"] is None else "adj " + ",".join(f"{k}={v}" for k, v in
                                                                           sorted(r["adjusted"].items()))
        if key not in seen:
            seen[key] = [key, 0, r["mp_ns"], r["mp_ew"], r["pct_ns"]]
        seen[key][1] += 1
    return sorted(seen.values(), key=lambda x: (isinstance(x[0], str), -(x[0] if isinstance(x[0], int) else 0)))
