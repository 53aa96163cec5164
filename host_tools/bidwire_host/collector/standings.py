"""Scores kept up to date as results arrive: one scoring.Session per section (docs/collector.md, docs/scoring.md).

Fed with rows of the derived `results` table: at start (every stored result, in arrival order) and after each
sync's commit (the results that sync added). A result is keyed by section, table and board: a second result
for the same table and board replaces the first on the traveller (the validator has raised an alert for the
director). Results without a section (no assignment) or without a host score are not scored.
"""
import threading

from bidwire_host.collector import setup as setup_mod
from bidwire_host.scoring import Result, ScoringError, Session
from bidwire_host.scoring.model import format_number


class Standings:
    def __init__(self):
        self._lock = threading.Lock()
        self.reset(None)

    def reset(self, s):
        self.method = s.method if s is not None else "mp"
        self.setup = s
        self.sessions = {}  # section -> Session
        self.index = {}  # (section, table, board) -> index on the board's traveller
        self.problems = []

    def _session(self, section):
        sess = self.sessions.get(section)
        if sess is None:
            two = self.setup.two_fields(section) if self.setup is not None else False
            sess = self.sessions[section] = Session(self.method, two_fields=two)
        return sess

    def load(self, conn):
        """Score every stored result again (start-up, a new event)."""
        with self._lock:
            self.reset(setup_mod.load(conn))
            for r in conn.execute("SELECT * FROM results ORDER BY rowid"):
                self._add(dict(r))

    def add(self, rows):
        with self._lock:
            for r in rows:
                self._add(r)

    def _add(self, r):
        if r["section"] is None or r["score_ns"] is None:
            return
        result = Result(r["board"], r["ns"], r["ew"], r["score_ns"], r["contract"], r["declarer"], r["tricks"],
                        table=None if r["table_no"] is None else str(r["table_no"]))
        sess = self._session(r["section"])
        key = (r["section"], r["table_no"], r["board"])
        try:
            if key in self.index and r["table_no"] is not None:
                sess.replace(r["board"], self.index[key], result)
            else:
                sess.add(result)
                self.index[key] = len(sess.traveller(r["board"])) - 1
        except ScoringError as e:
            self.problems.append({"unit": r["unit"], "seq": r["seq"], "board": r["board"], "problem": str(e)})

    def traveller(self, board):
        with self._lock:
            out = []
            for section in sorted(self.sessions):
                t = self.sessions[section].travellers.get(board)
                for row in (t.rows if t is not None else []):
                    res = row.result
                    out.append({"section": section, "table": None if res.table is None else int(res.table),
                                "ns": res.ns, "ew": res.ew, "contract": res.contract, "declarer": res.declarer,
                                "tricks": res.tricks, "score_ns": res.score_ns,
                                **{k: format_number(v) for k, v in (("mp_ns", row.mp_ns), ("mp_ew", row.mp_ew),
                                                                   ("top", row.top), ("pct_ns", row.pct_ns),
                                                                   ("pct_ew", row.pct_ew))},
                                "problem": row.problem})
            out.sort(key=lambda x: (x["section"], x["table"] is None, x["table"] or 0))
            return out

    def ranking(self):
        with self._lock:
            out = []
            for section in sorted(self.sessions):
                sess = self.sessions[section]
                for st in sess.ranking():
                    who = st.contestant
                    direction, pair = who if isinstance(who, tuple) else (None, who)
                    t = sess.totals[who]
                    out.append({"section": section, "direction": direction, "pair": pair, "rank": st.rank,
                                "tied": st.tied, "display": st.display, "mp": format_number(t.mp),
                                "top": format_number(t.top), "pct": format_number(t.pct), "boards": t.boards})
            return out
