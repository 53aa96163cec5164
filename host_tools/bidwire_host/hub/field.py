"""The combined field: every club's results for a board scored together (Law 78 A; Neuberg where a board was
played fewer times than the most-played one), the overall ranking, and each club's ranking within the field.

Scoring is the club collector's own (bidwire_host.scoring); the hub only names the contestants across clubs: a
pair is its club, section and pair number. With one winner (as ECats scores) every pair is ranked in one list;
with two, North-South and East-West apart. Adjusted scores are scored as the club gave them.
"""
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from bidwire_host.scoring.model import Artificial, Assigned, Result
from bidwire_host.scoring.ranking import rank
from bidwire_host.scoring.session import score_board


@dataclass(frozen=True)
class Pair:
    club: str
    section: str
    number: str
    direction: str  # "NS" or "EW": where it sat

    @property
    def label(self):
        return f"{self.club} {self.section}{self.number} {self.direction}"


def as_result(row):
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


class Boards(dict):
    """{board: [traveller row dicts]}, each board's rows built when first read: a page asks for one board, and
    the ranking needs none of them."""

    def __init__(self, build):
        super().__init__()
        self._build = build  # {board: () -> rows}

    def __missing__(self, board):
        make = self._build.get(board)
        if make is None:
            raise KeyError(board)
        rows = self[board] = make()
        return rows

    def get(self, board, default=None):
        return self[board] if board in self._build else default

    def keys(self):
        return sorted(self._build)

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self._build)

    def __contains__(self, board):
        return board in self._build

    def items(self):
        return [(b, self[b]) for b in self.keys()]

    def values(self):
        return [self[b] for b in self.keys()]

    def __eq__(self, other):
        return dict(self.items()) == other

    __hash__ = None


@dataclass
class Field:
    boards: Boards  # board -> [{"club", "section", "ns", "ew", "contract", ..., "score_ns", "pct_ns", "pct_ew"}]
    ranking: list  # [{"rank", "pair", "names", "pct", "mp", "top", "boards", "club_rank"}], best first
    clubs: dict  # club -> its pairs' entries of the ranking (with "club_rank"), best first
    results: int
    version: int = 0  # the sim's `changes` it was scored at (set by the app's cache)


def results_of(rows):
    """The stored results (records.results) as the scoring core's Results, with each pair's names."""
    results = [as_result(r) for r in rows]
    names = {}
    for r, res in zip(rows, results, strict=True):
        names[("NS", res.ns)] = r["ns_names"]
        names[("EW", res.ew)] = r["ew_names"]
    return results, names


def _plain_board(rows, method, expected):
    """Law 78 A on a board with no adjusted result, by distinct score (the field has thousands of results and a
    few dozen scores a board): {score_ns: (ns numerator, ew numerator)} over the board's one denominator, and
    the top. The same figures as scoring.matchpoints.score_board (tests/hub/test_field_fast.py compares them)."""
    counts = Counter(r["score_ns"] for r in rows)
    n = len(rows)
    factor = method == "neuberg" and n != expected
    e = expected if method == "neuberg" else n
    top = 2 * (e - 1) if e > 1 else 0
    values = {}
    below = 0
    for score in sorted(counts):
        c = counts[score]
        u_ns = 2 * below + c - 1
        u_ew = 2 * (n - 1) - u_ns
        below += c
        # Neuberg: (M + 1) x E / n - 1, that is ((M + 1) x E - n) / n
        values[score] = ((u_ns + 1) * e - n, (u_ew + 1) * e - n) if factor else (u_ns, u_ew)
    return values, (n if factor else 1), top


def _value(num, den):
    return num if den == 1 else Fraction(num, den)


def _pct(mp, top):
    return Fraction(50) if not top else Fraction(mp) * 100 / top


def _row_dict(src, mp_ns, mp_ew, top, pct_ns, pct_ew):
    return {"club": src["club_id"], "section": src["section"], "ns": src["ns"], "ew": src["ew"],
            "contract": src["contract"], "declarer": src["declarer"], "tricks": src["tricks"],
            "score_ns": src["score_ns"], "adjusted": src["adjusted"], "version": src["version"],
            "mp_ns": mp_ns, "mp_ew": mp_ew, "top": top, "pct_ns": pct_ns, "pct_ew": pct_ew}


class _Tally:
    """Each side's totals, summed in integers as the rows go by: per denominator {pair: numerators}, per top
    {pair: boards}, and the pair's names. A pair is (club, section, number); NS and EW are kept apart."""

    def __init__(self):
        self.parts = ({}, {})  # side -> {denominator: {pair: sum of numerators}}
        self.played = ({}, {})  # side -> {top: {pair: boards}}
        self.names = ({}, {})

    def plain(self, rows, method, expected):
        values, den, top = _plain_board(rows, method, expected)
        ns_mp, ew_mp = self.parts[0].setdefault(den, {}), self.parts[1].setdefault(den, {})
        ns_n, ew_n = self.played[0].setdefault(top, {}), self.played[1].setdefault(top, {})
        ns_names, ew_names = self.names
        for r in rows:  # the hot loop of a rescoring: dict updates only
            v_ns, v_ew = values[r["score_ns"]]
            club, section = r["club_id"], r["section"]
            k = (club, section, r["ns"])
            ns_mp[k] = ns_mp.get(k, 0) + v_ns
            ns_n[k] = ns_n.get(k, 0) + 1
            if k not in ns_names:
                ns_names[k] = r["ns_names"]
            k = (club, section, r["ew"])
            ew_mp[k] = ew_mp.get(k, 0) + v_ew
            ew_n[k] = ew_n.get(k, 0) + 1
            if k not in ew_names:
                ew_names[k] = r["ew_names"]
        return lambda: board_rows(rows, method, expected)

    def adjusted(self, rows, method, expected):
        scored = score_board([as_result(r) for r in rows], method, expected=expected)
        for r, row in zip(rows, scored, strict=True):
            for side, number, mp in ((0, r["ns"], row.mp_ns), (1, r["ew"], row.mp_ew)):
                mp = Fraction(mp)
                k = (r["club_id"], r["section"], number)
                acc = self.parts[side].setdefault(mp.denominator, {})
                acc[k] = acc.get(k, 0) + mp.numerator
                n = self.played[side].setdefault(row.top, {})
                n[k] = n.get(k, 0) + 1
                self.names[side].setdefault(k, r["ns_names"] if side == 0 else r["ew_names"])
        return lambda: board_rows(rows, method, expected)

    def totals(self, side):
        """{pair: (mp, top, boards)} of one side, exact."""
        whole, fractional, tops, boards = {}, {}, {}, {}
        for den, sums in self.parts[side].items():
            if den == 1:
                for k, num in sums.items():
                    whole[k] = whole.get(k, 0) + num
            else:
                for k, num in sums.items():
                    fractional.setdefault(k, []).append((num, den))
        for top, counts in self.played[side].items():
            for k, c in counts.items():
                tops[k] = tops.get(k, 0) + c * top
                boards[k] = boards.get(k, 0) + c
        out = {}
        for k, c in boards.items():
            mp = whole.get(k, 0)
            if k in fractional:
                mp = mp + sum(Fraction(num, den) for num, den in fractional[k])
                mp = mp.numerator if mp.denominator == 1 else mp
            out[k] = (mp, tops[k], c)
        return out


def board_rows(rows, method, expected):
    """One board's traveller rows (dicts, as the pages and the API show them) with its matchpoints across the
    field at Neuberg size `expected`."""
    if any(r["adjusted"] is not None for r in rows):
        scored = score_board([as_result(r) for r in rows], method, expected=expected)
        return [_row_dict(r, row.mp_ns, row.mp_ew, row.top, row.pct_ns, row.pct_ew)
                for r, row in zip(rows, scored, strict=True)]
    values, den, top = _plain_board(rows, method, expected)
    shown = {s: (_value(ns, den), _value(ew, den)) for s, (ns, ew) in values.items()}
    return [_row_dict(r, *shown[r["score_ns"]], top, _pct(shown[r["score_ns"]][0], top),
                      _pct(shown[r["score_ns"]][1], top)) for r in rows]


def _club_ranks(ranking):
    """Each entry's rank within its club and field, from the field's order (best first): ties share a rank."""
    groups = {}
    for e in ranking:
        groups.setdefault((e["pair"].club, e["field"]), []).append(e)
    clubs = {}
    for (club, _field), entries in groups.items():
        i = 0
        while i < len(entries):
            j = i + 1
            while j < len(entries) and entries[j]["pct"] == entries[i]["pct"]:
                j += 1
            for e in entries[i:j]:
                e["club_rank"] = f"{i + 1}=" if j - i > 1 else str(i + 1)
            i = j
        clubs.setdefault(club, []).extend(entries)
    return clubs


def rank_field(tally, winners):
    sides = {"NS": tally.totals(0), "EW": tally.totals(1)}
    groups = [("NS", "EW")] if winners == "one" else [("NS",), ("EW",)]
    ranking = []
    for directions in groups:
        entries = {(d, *k): v for d in directions for k, v in sides[d].items()}
        pcts = {key: _pct(mp, top) for key, (mp, top, _) in entries.items()}
        for st in rank(pcts):
            mp, top, boards = entries[st.contestant]
            direction, club, section, number = st.contestant
            ranking.append({"rank": st.display, "pair": Pair(club, section, number, direction),
                            "names": tally.names[0 if direction == "NS" else 1][(club, section, number)],
                            "pct": st.value, "mp": mp, "top": top, "boards": boards,
                            "field": "+".join(directions)})
    return ranking, _club_ranks(ranking)


def score(sim, rows):
    """The sim's field from its stored results (records.results): each board matchpointed across every club
    (Neuberg to the most-played board's size when the sim says so), every pair's total and the rankings.

    A board with no adjusted result is scored by distinct score (_plain_board) and each pair's total summed in
    integers; a board with one goes through the club's scoring core (scoring.session.score_board), which knows
    artificial and assigned scores. Either way the figures are exact, and each board's traveller rows are built
    only when read (Boards).
    """
    by_board = {}
    for r in rows:
        by_board.setdefault(r["board"], []).append(r)
    if not by_board:
        return Field(Boards({}), [], {}, 0)
    method = sim["scoring"]
    expected = max(len(v) for v in by_board.values())
    tally, build = _Tally(), {}
    for b, board_rows in by_board.items():
        plain = all(r["adjusted"] is None for r in board_rows)
        build[b] = (tally.plain if plain else tally.adjusted)(board_rows, method, expected)
    ranking, clubs = rank_field(tally, sim["winners"])
    return Field(Boards(build), ranking, clubs, len(rows))


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
