"""Scores kept up to date as results arrive: one scoring.Session per section (docs/collector.md, docs/scoring.md).

Fed with rows of the derived `results` table by `refresh`, the service's after-commit step: in full at start,
after a decision or a new event (every stored result, in arrival order, with the decisions folded in), and
otherwise by catching up with the results committed since the last refresh (in rowid order, the writer's commit
order, so two syncs' after-commit steps can run in any order and give the same standings). A result is keyed by
section, table and board: a second result for the same table and board replaces the first on the traveller (the
validator has raised an alert for the director). Results without a section (no assignment) or without a host
score are not scored, and neither are results held for the director (attribution.py) until he accepts them —
then as his decision credits them; a scorer's correction replaces the result's contract, declarer, tricks and
pairs (decisions.journal.State.effective).
"""
import threading

from bidwire_host.collector import event_setup
from bidwire_host.collector.decisions.journal import State, adjusted, deduction, fold, label
from bidwire_host.collector.in_force import candidates, counts, in_force, table_key
from bidwire_host.scoring import Result, ScoringError, Session
from bidwire_host.scoring.model import format_number
from bidwire_host.scoring.session import board_method


class Standings:
    def __init__(self):
        self._lock = threading.Lock()
        self.reset(None)

    def reset(self, s):
        self.method = s.method if s is not None else "neuberg"
        self.setup = s
        self.sessions = {}  # section -> Session
        self.index = {}  # (section, table, board) -> index on the board's traveller
        self.source = {}  # (section, table, board) -> the `results` row on the traveller (or kept aside)
        self.problems = []
        self.actions = State()
        self.last_rowid = 0  # the results row scored last
        self.only = None  # the one section loaded (load(conn, section)), None for every section

    def refresh(self, conn=None, store=None, full=False):
        """Catch up with the store: every result committed since the last refresh, or all of them again."""
        conn = conn if conn is not None else store.reader()
        if full or self.setup is None and not self.sessions and not self.last_rowid:
            return self.load(conn)
        with self._lock:
            rows = [dict(r) for r in conn.execute("SELECT rowid AS rowid_, * FROM results WHERE rowid > ? "
                                                  "ORDER BY rowid", (self.last_rowid,))]
            for r in rows:
                self._add(r)
                self.last_rowid = r["rowid_"]

    def _session(self, section):
        sess = self.sessions.get(section)
        if sess is None:
            two = self.setup.two_fields(section) if self.setup is not None else False
            sess = self.sessions[section] = Session(self.method, two_fields=two)
        return sess

    def load(self, conn, section=None):
        """Score every stored result again (start-up, a new event); with `section`, that section's alone (an
        export of one section, `bidwire export --section`: the same figures, the other sections not read)."""
        with self._lock:
            self.reset(event_setup.load(conn))
            self.actions = fold(conn)
            if section is None:
                rows = [dict(r) for r in conn.execute("SELECT rowid AS rowid_, * FROM results ORDER BY rowid")]
            else:
                rows = self._section_rows(conn, section)
            self.only = section
            self._load_results(rows)
            self.last_rowid = rows[-1]["rowid_"] if rows else 0
            for (sec, table, board), item in self.actions.adjustments.items():
                if section is None or sec == section:
                    ns, ew = self.actions.pairs(item)  # who sat there, if the director recorded it since
                    ns, ew = self._contestants(sec, table, item.get("round"), ns, ew)
                    self._put(sec, table, board, Result(board, ns, ew, None,
                                                        adjusted=adjusted(item), table=str(table)),
                              {"unit": None, "seq": None})

    def _section_rows(self, conn, section):
        """The stored results that may score in `section`, in rowid order: its own, and the held results the
        director accepted (they may be re-attributed to it from anywhere); _load_results keeps those that do."""
        return candidates(conn, self.actions, " WHERE section = ?", (section,))

    def _load_results(self, rows):
        """Every stored result at once: what `_add` one by one would give (a later result of a table and board
        replaces the earlier one, in its place on the traveller), with each board scored once (Session.extend)
        instead of once per result. A section whose results cannot all be scored goes one by one, so the
        problem is put down against the result that has it."""
        sections = {}  # section -> {key: (result, row)}, keyed as in_force keys them
        for key, r in in_force(self.actions, rows).items():
            if self.only not in (None, r["section"]):
                continue
            ns, ew = self._contestants(r["section"], r["table_no"], r["round"], r["ns"], r["ew"])
            result = Result(r["board"], ns, ew, r["score_ns"], r["contract"], r["declarer"], r["tricks"],
                            table=None if r["table_no"] is None else str(r["table_no"]))
            sections.setdefault(r["section"], {})[key] = (result, r)
        for section, entries in sections.items():
            sess = self._session(section)
            try:
                sess.extend([result for result, _ in entries.values()])
            except ScoringError:
                self.sessions.pop(section, None)
                for result, r in entries.values():
                    self._put(section, r["table_no"], r["board"], result, r)
                continue
            position = {}
            for key, (result, r) in entries.items():
                at = position[result.board] = position.get(result.board, -1) + 1
                if r["table_no"] is not None:
                    self.index[key] = at
                    self.source[key] = r

    def add(self, rows):
        """Score these `results` rows one by one (as refresh's catch-up does)."""
        with self._lock:
            for r in rows:
                self._add(r)

    def _add(self, r):
        r = counts(self.actions, r)
        if r is None or self.only not in (None, r["section"]):
            return
        if table_key(r) in self.actions.adjustments:
            return  # the director's score stands for this table and board
        ns, ew = self._contestants(r["section"], r["table_no"], r["round"], r["ns"], r["ew"])
        result = Result(r["board"], ns, ew, r["score_ns"], r["contract"], r["declarer"], r["tricks"],
                        table=None if r["table_no"] is None else str(r["table_no"]))
        self._put(r["section"], r["table_no"], r["board"], result, r)

    def _contestants(self, section, table, round_no, ns, ew):
        return self.setup.contestants(section, table, round_no, ns, ew) if self.setup is not None else (ns, ew)

    def _put(self, section, table, board, result, r):
        sess = self._session(section)
        key = (section, table, board)
        try:
            if key in self.index and table is not None:
                sess.replace(board, self.index[key], result)
            else:
                sess.add(result)
                self.index[key] = len(sess.traveller(board)) - 1
            if table is not None:
                self.source[key] = r
        except ScoringError as e:
            self.problems.append({"unit": r["unit"], "seq": r["seq"], "board": board, "problem": str(e)})

    def penalties(self, section):
        """{contestant: deduction in the ranking's unit} for a section; the entries per contestant."""
        sess = self.sessions.get(section)
        out, entries = {}, {}
        for item in self.actions.penalties:
            if item["section"] != section or sess is None:
                continue
            who = (item["direction"], item["pair"]) if item["direction"] else item["pair"]
            out[who] = out.get(who, 0) + deduction(item, sess.totals.get(who), self.method)
            entries.setdefault(who, []).append(item)
        return out, entries

    def traveller(self, board):
        with self._lock:
            out = []
            for section in sorted(self.sessions):
                t = self.sessions[section].travellers.get(board)
                for row in (t.rows if t is not None else []):
                    res = row.result
                    out.append({"section": section, "table": None if res.table is None else int(res.table),
                                "ns": res.ns, "ew": res.ew, "contract": res.contract, "declarer": res.declarer,
                                "tricks": res.tricks, "score_ns": res.shown_score(),
                                "adjusted": self._label(section, res),
                                "corrected": self._corrected(section, res),
                                "entered": self._entered(section, res),
                                **{k: format_number(v) for k, v in (("mp_ns", row.mp_ns), ("mp_ew", row.mp_ew),
                                                                   ("top", row.top), ("pct_ns", row.pct_ns),
                                                                   ("pct_ew", row.pct_ew), ("imp_ns", row.imp_ns),
                                                                   ("imp_ew", row.imp_ew))},
                                "problem": row.problem})
            out.sort(key=lambda x: (x["section"], x["table"] is None, x["table"] or 0))
            return out

    def board_method(self, board):
        """How board `board` was scored in each section that has it (scoring.session.board_method), joined."""
        with self._lock:
            notes = []
            for section in sorted(self.sessions):
                sess = self.sessions[section]
                t = sess.travellers.get(board)
                if t is not None and t.results:
                    note = board_method(sess.method, t.results, t.expected)
                    notes.append(f"Section {section}: {note}" if len(self.sessions) > 1 else note)
            return "; ".join(notes)

    def results(self):
        """[(section, scoring Result)] of every result on the travellers, decisions applied (the hub's upload)."""
        with self._lock:
            return [(section, res) for section in sorted(self.sessions)
                    for board in sorted(self.sessions[section].travellers)
                    for res in self.sessions[section].travellers[board].results]

    def _corrected(self, section, res):
        """The scorer's correction of the result on the traveller (who, when, why), or None."""
        if res.table is None:
            return None
        src = self.source.get((section, int(res.table), res.board))
        fix = src.get("corrected") if src is not None else None
        return None if fix is None else {"by": fix["by"], "at": fix["at"], "reason": fix["reason"],
                                         "before": fix["before"]}

    def _entered(self, section, res):
        """The director's entry of the result on the traveller (who, when, why), or None."""
        src = self.source.get((section, int(res.table), res.board)) if res.table is not None else None
        item = src.get("entered") if src is not None else None
        return None if item is None else {"by": item["by"], "at": item["at"], "reason": item["reason"]}

    def _label(self, section, res):
        if res.adjusted is None or res.table is None:
            return None
        item = self.actions.adjustments.get((section, int(res.table), res.board))
        return label(item) if item is not None else None

    def ranking(self):
        with self._lock:
            out = []
            for section in sorted(self.sessions):
                sess = self.sessions[section]
                deductions, entries = self.penalties(section)
                for st in sess.ranking(deductions):
                    who = st.contestant
                    direction, pair = who if isinstance(who, tuple) else (None, who)
                    t = sess.totals[who]
                    mp = t.scored_mp
                    out.append({"section": section, "direction": direction, "pair": pair, "rank": st.rank,
                                "tied": st.tied, "display": st.display, "mp": format_number(t.mp) if mp else None,
                                "top": format_number(t.top) if mp else None, "pct": format_number(t.pct),
                                "imps": None if mp else format_number(t.imps),
                                "penalty": format_number(deductions.get(who, 0)),
                                "penalties": [e["id"] for e in entries.get(who, [])],
                                "total": format_number(st.value), "boards": t.boards})
            return out

    def publication_parts(self, section):
        """(Session, standings with penalties, {row key: results row}) of one section, for the exports."""
        with self._lock:
            sess = self.sessions[section]
            deductions, _ = self.penalties(section)
            sources = {}  # the section's rows on its travellers, not a copy of every section's
            for board, t in sess.travellers.items():
                for row in t.rows:
                    key = (section, None if row.result.table is None else int(row.result.table), board)
                    if key[1] is not None and key in self.source:
                        sources[key] = self.source[key]
            return sess, sess.ranking(deductions), sources
