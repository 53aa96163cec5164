"""The director's and scorer's decisions as they stand: the table `director_actions` folded (docs/collector.md).

Each decision is one row of the append-only table `director_actions` (its kind — `adjust`, `penalty`, `publish`,
`resolve`, `correct`, `enter`, `late`, `seated`, `table`, `ruling`, `close`, `players` or `lead` —, the accepted body as
JSON, who, when, and whether it was made after the correction period). Raw events stay untouched: the scores are the
stored results with the actions applied in `id` order (`fold`), so a restart, an event reload or `bidwire rebuild`
followed by a restart gives the same standings as the live collector. The fold is kept per connection until the table
changes (`fold`).

How each kind counts in the fold (the modules beside this one check and store them): an `adjust` for a table and board
replaces the one before it, and `clear` removes it; a `penalty` is one more ledger entry; a `publish` starts the
correction period again while it is open (one after it has ended leaves it ended, Law 79 C); the latest `resolve` or
`correct` of a result is the one in force, and so is the latest `enter` of a table and board; a `close` closes its
alert; a `lead` is declarer's Law 26 choice on its alert (one each); a `late` marks a table's board for late play; a
`seated` says which pairs really sat at a table in a round, and its results count for them (effective). A `players` fix
counts through roster.players, which reads the table itself; a `table` (a unit given a table) and a `ruling` (sent from
the page) are kept for the audit.
"""
import json
from datetime import datetime
from fractions import Fraction

from bidwire_host.scoring.ledger import DEFAULT_CORRECTION_MINUTES, CorrectionPeriod
from bidwire_host.scoring.model import Artificial, Assigned

MP_METHODS = ("mp", "neuberg")


class ActionError(ValueError):
    """A decision the collector refuses: `status` (400 bad input, 404 unknown table/board/pair, 409 state)."""

    def __init__(self, reason, status=400):
        super().__init__(reason)
        self.status = status


def alert_key(source, unit, seq, kind=None):
    """An alert's identity, stable across a rebuild: its source (irr, td, alert), the unit's event, the kind."""
    return f"{source}:{unit}:{seq}" + (f":{kind}" if kind else "")


def iso(at):
    return at.isoformat(timespec="seconds")


class State:
    """The actions folded in order: adjustments in force, penalties, the publication and its period."""

    def __init__(self):
        self.adjustments = {}  # (section, table, board) -> body
        self.penalties = []  # bodies (with id, at, by)
        self.period = CorrectionPeriod()
        self.actions = []  # every row, as dicts
        self.resolutions = {}  # (unit, seq) of a held result -> the resolve in force
        self.corrections = {}  # (unit, seq) of a result -> the correct in force
        self.entered = {}  # (section, table, board) -> the director's `enter` in force (decisions/results.py)
        self.late = {}  # (section, table, board) -> the director's `late` (late_play.py): played later
        self.seated = {}  # (section, table, round) -> the director's `seated`: the pairs who really sat there
        self.closed = {}  # alert key (alert_key) -> the close
        self.leads = {}  # alert key of a lead_restriction -> declarer's Law 26 choice (decisions/leads.py)

    def apply(self, row):
        body = json.loads(row["body"])
        item = {"id": row["id"], "kind": row["kind"], "by": row["by_whom"], "at": row["at"],
                "post_period": bool(row["post_period"]), **body}
        self.actions.append(item)
        if row["kind"] == "adjust":
            key = (body["section"], body["table"], body["board"])
            if body.get("clear"):
                self.adjustments.pop(key, None)
            else:
                self.adjustments[key] = item
        elif row["kind"] == "penalty":
            self.penalties.append(item)
        elif row["kind"] == "resolve":
            self.resolutions[body["unit"], body["seq"]] = item
        elif row["kind"] == "correct":
            self.corrections[body["unit"], body["seq"]] = item
        elif row["kind"] == "enter":
            self.entered[body["section"], body["table"], body["board"]] = item
        elif row["kind"] == "late":
            self.late[body["section"], body["table"], body["board"]] = item
        elif row["kind"] == "seated":
            self.seated[body["section"], body["table"], body["round"]] = item
        elif row["kind"] == "close":
            self.closed[body["alert"]] = item
        elif row["kind"] == "lead":
            self.leads[body["alert"]] = item
        elif row["kind"] == "publish":
            if row["post_period"] and self.period.ended is None and self.period.published_at is not None:
                self.period.ended = self.period.ends_at  # published again after the period: it stays ended
            self.period.publish(datetime.fromisoformat(row["at"]), body.get("minutes", DEFAULT_CORRECTION_MINUTES))
        return item

    def effective(self, row):
        """A `results` row as it counts: None if held and not accepted (or voided); re-attributed if accepted;
        with a correction applied (and `corrected` set to the correction)."""
        key = (row["unit"], row["seq"])
        res = self.resolutions.get(key)
        if res is not None:
            if res["decision"] == "void":
                return None
            row = dict(row, section=res["section"], table_no=res["table"], round=res["round"], board=res["board"],
                       ns=res["ns"], ew=res["ew"], held=None)
        elif row.get("held"):
            return None
        sat = self.seated.get((row["section"], row["table_no"], row["round"]))
        if sat is not None:  # the director recorded who really sat at that table in that round
            row = dict(row, ns=sat["ns"], ew=sat["ew"])
        fix = self.corrections.get(key)
        if fix is not None:  # its pairs only where the scorer named them (None: as the row has them)
            row = dict(row, contract=fix["contract"], declarer=fix["declarer"], tricks=fix["tricks"],
                       lead=fix["lead"], ns=fix["ns"] if fix.get("named", True) else row["ns"],
                       ew=fix["ew"] if fix.get("named", True) else row["ew"], score_ns=fix["score_ns"], corrected=fix)
        return row

    def pairs(self, item):
        """(ns, ew) of a decision made for a table and board (an `enter`, an `adjust`): the pairs it named, else who
        sat there by the director's latest `seated` record, else the pairs stored with it (the movement's)."""
        if not item.get("named"):
            sat = self.seated.get((item["section"], item["table"], item.get("round")))
            if sat is not None:
                return sat["ns"], sat["ew"]
        return item["ns"], item["ew"]

    def publication(self, at):
        p = self.period
        return {"published_at": None if p.published_at is None else iso(p.published_at),
                "minutes": p.minutes, "ends_at": None if p.ends_at is None else iso(p.ends_at),
                "open": p.is_open(at), "now": iso(at),
                "publications": [a for a in self.actions if a["kind"] == "publish"],
                "post_period": [a for a in self.actions if a["post_period"]]}


CACHE_KEY = "decisions.fold"  # the folded State in a connection's cache (store.py): (last id folded, State)


def fold(conn):
    """The State of the stored actions, folded once per change. On a store's connection (its `cache`) the State is
    kept with the id of the last row folded and given again while that row is still the last: one `max(id)`, not
    every row read again for every sync and page. The table is append-only, so the same last id is the same rows;
    a rollback, which could take a row away and let its id be used again, empties the cache (store.forget). The
    State given may be the one kept for every later caller: read it, never change it."""
    cache = getattr(conn, "cache", None)
    if cache is not None:
        kept = cache.get(CACHE_KEY)
        if kept is not None and kept[0] == conn.execute("SELECT max(id) FROM director_actions").fetchone()[0]:
            return kept[1]
    s, last = State(), None
    for row in conn.execute("SELECT * FROM director_actions ORDER BY id"):
        s.apply(row)
        last = row["id"]
    if cache is not None:
        cache[CACHE_KEY] = (last, s)
    return s


def insert(conn, kind, body, by, at, post):
    """Store a decision the checks accepted (in the writer's transaction); the stored action, as State has it."""
    cur = conn.execute("INSERT INTO director_actions (kind, body, by_whom, at, post_period) VALUES (?, ?, ?, ?, ?)",
                       (kind, json.dumps(body), by, iso(at), int(post)))
    row = conn.execute("SELECT * FROM director_actions WHERE id = ?", (cur.lastrowid,)).fetchone()
    return State().apply(row)


def adjusted(item):
    """The scoring adjustment (Artificial or Assigned) of an `adjust` body."""
    if item.get("artificial"):
        ns, ew = item["artificial"]
        return Artificial(ns, ew)
    ns, ew = item["assigned"]
    return Assigned(ns, ew)


def label(item):
    if item.get("artificial"):
        return adjusted(item).label()
    ns, ew = item["assigned"]
    return f"assigned {ns}" + ("" if ns == ew else f"/{ew}")


def deduction(item, total, method):
    """A penalty in the ranking's unit (percentage points, or IMPs) for a contestant's Total."""
    amount = Fraction(item["amount"])
    unit = item["unit"]
    if unit in ("pct", "imps"):
        return amount
    if unit == "mp":  # matchpoints (2/1 units, as the ranking shows them) as percentage points of the total top
        return amount * 100 / total.top if total is not None and total.top else Fraction(0)
    # "top": a fraction of one board's top, as percentage points over the boards played
    return amount * 100 / total.boards if total is not None and total.boards else Fraction(0)
