"""The director's and scorer's decisions: adjusted and assigned scores, penalties, publication (docs/collector.md).

Each decision is one row of the append-only table `director_actions` (kind `adjust`, `penalty` or `publish`,
the accepted body as JSON, who, when, and whether it was made after the correction period). Raw events stay
untouched: the scores are the stored results with the actions applied in `id` order (`fold`), so a restart,
an event reload or `bidwire rebuild` followed by a restart gives the same standings as the live collector.

* `adjust` (Laws 12 C, 86): an artificial adjusted score for each side (A+, A, A- = 60/50/40 % of the top
  in matchpoints, +3/0/-3 IMPs in IMP methods, or a percentage), or an assigned score (total points, NS's
  view; `score_ew` for a non-balancing one), for one board at one table of a section. It replaces the table's
  result on the traveller (or stands for the one that was never played); a later `adjust` for the same table
  and board replaces it, `clear` removes it (the table's own result counts again).
* `penalty` (Law 90; 91 disciplinary): a ledger entry against one pair or team, in the ranking's unit;
  it never changes a board's score, it is deducted from the total before ranking.
* `publish` (Law 79 C): the results are made public now; corrections (adjust, penalty, resolve, correct) are
  accepted until `minutes` (default 30) after the last publication, later only with `override` by a named
  director, and such a row is marked `post_period`.
* `resolve`: a held result (attribution.py) accepted as played — credited to the section, table, round, board
  and pairs the decision names (by default what the unit reported) — or voided.
* `correct` (the scorer's correction): a result's contract, declarer, tricks, lead or pair numbers as they
  really were; the score is Law 77's on the corrected result, and the traveller marks it corrected. Assigned
  and artificial scores stay `adjust`.
* `close`: the director closes an alert (an irregularity, a director call, a validator finding) with a note.
* `players`: the director fixes a pair's players (the two who really played, names and numbers) for the
  session; the body keeps the players before the fix. Every output names the pair's players from
  roster.players, which applies the latest fix of each pair.
"""
import json
from datetime import datetime, timezone
from fractions import Fraction

from bidwire.core import board as boards
from bidwire.core.readback import CallError, parse_seat
from bidwire.core.score import parse_contract, score_ns
from bidwire_host.collector import roster
from bidwire_host.event import seating
from bidwire_host.scoring.ledger import DEFAULT_CORRECTION_MINUTES, KINDS, CorrectionPeriod
from bidwire_host.scoring.model import Artificial, Assigned, ScoringError, artificial_code

MP_METHODS = ("mp", "neuberg")
MAX_CORRECTION_MINUTES = 366 * 24 * 60  # a longer period is a typo (and its end would overflow the date)
PENALTY_UNITS = {"mp": ("pct", "mp", "top"), "imp": ("imps",)}


class ActionError(ValueError):
    """A decision the collector refuses: `status` (400 bad input, 404 unknown table/board/pair, 409 state)."""

    def __init__(self, reason, status=400):
        super().__init__(reason)
        self.status = status


def now():
    return datetime.now(timezone.utc)


def alert_key(source, unit, seq, kind=None):
    """An alert's identity, stable across a rebuild: its source (irr, td, alert), the unit's event, the kind."""
    return f"{source}:{unit}:{seq}" + (f":{kind}" if kind else "")


def _iso(at):
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
        self.closed = {}  # alert key (alert_key) -> the close

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
        elif row["kind"] == "close":
            self.closed[body["alert"]] = item
        elif row["kind"] == "publish":
            self.period = CorrectionPeriod(body.get("minutes", DEFAULT_CORRECTION_MINUTES), self.period.published_at,
                                           self.period.log)
            self.period.publish(datetime.fromisoformat(row["at"]))
        return item

    def accepted(self):
        """{(section, table, round, board)} of the held results accepted as played."""
        return {(r["section"], r["table"], r["round"], r["board"]) for r in self.resolutions.values()
                if r["decision"] == "accept"}

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
        fix = self.corrections.get(key)
        if fix is not None:
            row = dict(row, contract=fix["contract"], declarer=fix["declarer"], tricks=fix["tricks"],
                       lead=fix["lead"], ns=fix["ns"], ew=fix["ew"], score_ns=fix["score_ns"], corrected=fix)
        return row

    def publication(self, at):
        p = self.period
        return {"published_at": None if p.published_at is None else _iso(p.published_at),
                "minutes": p.minutes, "ends_at": None if p.ends_at is None else _iso(p.ends_at),
                "open": p.is_open(at), "now": _iso(at),
                "publications": [a for a in self.actions if a["kind"] == "publish"],
                "post_period": [a for a in self.actions if a["post_period"]]}


def fold(conn):
    """The State of the stored actions."""
    s = State()
    for row in conn.execute("SELECT * FROM director_actions ORDER BY id"):
        s.apply(row)
    return s


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


# ---- checks -------------------------------------------------------------------------------------------------
def _sections(s):
    return {sec.name: sec for sec in s.event.session(s.session).sections}


def _section(s, section):
    secs = _sections(s)
    if section is None:
        if len(secs) != 1:
            raise ActionError(f"section: say which section ({', '.join(secs)})")
        return next(iter(secs.values()))
    if section not in secs:
        raise ActionError(f"section: no section {section!r} (sections: {', '.join(secs)})", 404)
    return secs[section]


def _assignments(s, sec):
    plan = sec.movement_plan()
    for r in range(1, plan.rounds + 1):
        for a in seating.assignments(s.event, r, s.session):
            if a["section"] == sec.name:
                yield a


def where(s, section, table, board):
    """The assignment (section, table, round, ns, ew) that plays `board` at `table`; ActionError if none."""
    if s is None:
        raise ActionError("no event loaded: adjusted scores need the movement (POST /api/v1/event)", 409)
    sec = _section(s, section)
    tables = sec.movement_plan().tables
    if not 1 <= table <= tables:
        raise ActionError(f"table: section {sec.name} has tables 1-{tables}, not {table}", 404)
    boards = []
    for a in _assignments(s, sec):
        if a["table"] == table:
            if board in a["boards"]:
                return a
            boards += a["boards"]
    raise ActionError(f"board: board {board} is not played at section {sec.name} table {table} "
                      f"(its boards: {', '.join(map(str, sorted(boards))) or 'none'})", 404)


def contestants(s, sec):
    """The pairs (or teams) of a section as the standings key them: (line, number) in two fields, else number."""
    two = s.two_fields(sec.name) and s.method != "teams"
    out = set()
    for a in _assignments(s, sec):
        for line in ("NS", "EW"):
            pair = str(a[line.lower()])
            out.add((line, pair) if two else pair)
    return out, two


def _period_check(state, at, body):
    """Law 79 C: after the period only with the director's override; returns whether it is post-period."""
    if state.period.is_open(at):
        return False
    if not body.get("override"):
        raise ActionError(f"the correction period ended at {_iso(state.period.ends_at)} (Law 79 C: "
                          f"{state.period.minutes} minutes after publication at {_iso(state.period.published_at)}); "
                          "only the director can correct the scores now: send it again with \"override\": true "
                          "and \"by\"", 409)
    if not body.get("by"):
        raise ActionError("by: a correction after the correction period needs the director's name")
    return True


def _code_text(value):
    code = artificial_code(Fraction(str(value)) if isinstance(value, float) else value)
    return code if isinstance(code, str) else str(code)


def _insert(conn, kind, body, by, at, post):
    cur = conn.execute("INSERT INTO director_actions (kind, body, by_whom, at, post_period) VALUES (?, ?, ?, ?, ?)",
                       (kind, json.dumps(body), by, _iso(at), int(post)))
    row = conn.execute("SELECT * FROM director_actions WHERE id = ?", (cur.lastrowid,)).fetchone()
    return State().apply(row)


def adjust(conn, s, body, at):
    """Check and store an `adjust` (in the writer's transaction); the stored action."""
    a = where(s, body.get("section"), body["table"], body["board"])
    artificial = body.get("ns") is not None or body.get("ew") is not None
    assigned = body.get("score_ns") is not None or body.get("score_ew") is not None
    clear = bool(body.get("clear"))
    if artificial + assigned + clear != 1:
        raise ActionError("give one of: ns and ew (artificial: A+, A, A- or a percentage), score_ns (assigned "
                          "score, NS's view; score_ew if non-balancing), or clear")
    out = {"section": a["section"], "table": a["table"], "board": body["board"], "round": a["round"],
           "ns": str(a["ns"]), "ew": str(a["ew"]), "reason": body.get("reason") or ""}
    try:
        if artificial:
            if body.get("ns") is None or body.get("ew") is None:
                raise ActionError("an artificial adjusted score needs both ns and ew (e.g. A+ and A-: Law 12 C)")
            out["artificial"] = [_code_text(body["ns"]), _code_text(body["ew"])]
            Artificial(*out["artificial"])
        elif assigned:
            if body.get("score_ns") is None:
                raise ActionError("score_ns: an assigned score needs NS's score (score_ew only if it differs)")
            ew = body["score_ew"] if body.get("score_ew") is not None else body["score_ns"]
            Assigned(body["score_ns"], ew)
            out["assigned"] = [body["score_ns"], ew]
        else:
            out["clear"] = True
    except ScoringError as e:
        raise ActionError(str(e)) from None
    state = fold(conn)
    post = _period_check(state, at, body)
    return _insert(conn, "adjust", out, body.get("by"), at, post)


def penalty(conn, s, body, at):
    """Check and store a `penalty` (Law 90 procedural, 91 disciplinary); the stored action."""
    if s is None:
        raise ActionError("no event loaded: a penalty needs the pairs (POST /api/v1/event)", 409)
    sec = _section(s, body.get("section"))
    pairs, two = contestants(s, sec)
    pair = str(body["pair"])
    direction = body.get("direction")
    if two and direction not in ("NS", "EW"):
        raise ActionError(f"direction: NS or EW (section {sec.name} ranks NS and EW apart)")
    who = (direction, pair) if two else pair
    if who not in pairs:
        raise ActionError(f"pair: no {' '.join(who) if two else 'pair ' + pair} in section {sec.name}", 404)
    family = "mp" if s.method in MP_METHODS else "imp"
    unit = body.get("unit") or ("pct" if family == "mp" else "imps")
    if unit not in PENALTY_UNITS[family]:
        raise ActionError(f"unit: a {s.method} ranking takes penalties in {', '.join(PENALTY_UNITS[family])}, "
                          f"not {unit!r}")
    kind = body.get("kind") or "procedural"
    if kind not in KINDS:
        raise ActionError(f"kind: procedural (Law 90) or disciplinary (Law 91), not {kind!r}")
    try:
        amount = Fraction(str(body["amount"]))
    except (ValueError, ZeroDivisionError):
        raise ActionError(f"amount: a number, not {body['amount']!r}") from None
    if amount <= 0:
        raise ActionError(f"amount: the points taken off, more than 0, not {body['amount']}")
    if not (body.get("reason") or "").strip():
        raise ActionError("reason: a penalty needs a reason (e.g. 'Law 90 B2: unduly slow play')")
    board = body.get("board")
    out = {"section": sec.name, "direction": direction if two else None, "pair": pair, "amount": str(amount),
           "unit": unit, "kind": kind, "law": KINDS[kind], "reason": body["reason"].strip(), "board": board}
    state = fold(conn)
    post = _period_check(state, at, body)
    return _insert(conn, "penalty", out, body.get("by"), at, post)


def publish(conn, s, body, at):
    """Record a publication (Law 79 C: the correction period starts, or starts again)."""
    minutes = body.get("minutes")
    minutes = DEFAULT_CORRECTION_MINUTES if minutes is None else minutes
    if not isinstance(minutes, int) or isinstance(minutes, bool) or not 0 <= minutes <= MAX_CORRECTION_MINUTES:
        raise ActionError(f"minutes: a whole number of minutes from 0 to {MAX_CORRECTION_MINUTES} (a year), "
                          f"not {minutes!r}")
    return _insert(conn, "publish", {"minutes": minutes}, body.get("by"), at, False)


def _result_row(conn, body):
    unit, seq = body.get("unit"), body.get("seq")
    if not isinstance(unit, str) or not isinstance(seq, int) or isinstance(seq, bool):
        raise ActionError("unit and seq: the result's unit id and event number")
    row = conn.execute("SELECT * FROM results WHERE unit = ? AND seq = ?", (unit, seq)).fetchone()
    if row is None:
        raise ActionError(f"no result {seq} from unit {unit}", 404)
    return dict(row)


def _pair_of(s, sec, line, value):
    pairs, two = contestants(s, sec)
    pair = str(value).strip()
    if (((line, pair) if two else pair)) not in pairs:
        raise ActionError(f"{line.lower()}: no pair {line + ' ' if two else ''}{pair} in section {sec.name}", 404)
    return pair


def resolve(conn, s, body, at):
    """A held result accepted as played (re-attributed as `body` says, by default as the unit reported it) or
    voided; the stored action. A result that is not held is refused (409)."""
    row = _result_row(conn, body)
    if not row["held"]:
        raise ActionError(f"result {row['seq']} from unit {row['unit']} is not held: nothing to resolve", 409)
    decision = body.get("decision")
    if decision not in ("accept", "void"):
        raise ActionError(f"decision: accept or void, not {decision!r}")
    state = fold(conn)
    out = {"unit": row["unit"], "seq": row["seq"], "decision": decision, "reason": body.get("reason") or "",
           "held": json.loads(row["held"])}
    if decision == "accept":
        if s is None:
            raise ActionError("no event loaded: a result is accepted into a section of the event", 409)
        sec = _section(s, body.get("section") or row["section"])
        table = body.get("table") if body.get("table") is not None else row["table_no"]
        board = body.get("board") if body.get("board") is not None else row["board"]
        plan = sec.movement_plan()
        if not isinstance(table, int) or not 1 <= table <= plan.tables:
            raise ActionError(f"table: section {sec.name} has tables 1-{plan.tables}, not {table}", 404)
        in_event = {b for (sn, _, _), a in s.plays().items() if sn == sec.name for b in a["boards"]}
        if board not in in_event:
            raise ActionError(f"board: board {board} is not in section {sec.name}", 404)
        round_no = body.get("round") if body.get("round") is not None else row["round"]
        out.update(section=sec.name, table=table, round=round_no, board=board,
                   ns=_pair_of(s, sec, "NS", body.get("ns") if body.get("ns") is not None else row["ns"]),
                   ew=_pair_of(s, sec, "EW", body.get("ew") if body.get("ew") is not None else row["ew"]))
        taken = [(u, q) for (u, q), r in state.resolutions.items() if r["decision"] == "accept"
                 and (r["section"], r["table"], r["board"]) == (sec.name, table, board) and (u, q) != (row["unit"],
                                                                                                   row["seq"])]
        if taken:
            out["replaces"] = [list(k) for k in taken]
    post = _period_check(state, at, body)
    return _insert(conn, "resolve", out, body.get("by"), at, post)


def correct(conn, s, body, at):
    """The scorer's correction of a result (contract, declarer, tricks, lead, pairs); the stored action."""
    row = _result_row(conn, body)
    if s is None:
        raise ActionError("no event loaded: corrections need the event", 409)
    state = fold(conn)
    base = state.effective(row) or row
    contract = str(body["contract"]).strip().upper() if body.get("contract") is not None else base["contract"]
    declarer = str(body["declarer"]).strip().upper() if body.get("declarer") is not None else base["declarer"]
    tricks = body["tricks"] if body.get("tricks") is not None else base["tricks"]
    lead = body["lead"] if body.get("lead") is not None else base["lead"]
    try:
        parse_contract(contract or "")
    except (CallError, ValueError) as e:
        raise ActionError(f"contract: {contract!r} is not a contract (e.g. 4S, 3NTX, Pass): {e}") from None
    if contract == "PASS":
        contract = "Pass"
    if contract == "Pass":
        declarer, tricks, score = None, None, 0
    else:
        try:
            seat = parse_seat(declarer or "")
        except (CallError, ValueError):
            raise ActionError(f"declarer: N, E, S or W, not {declarer!r}") from None
        if not isinstance(tricks, int) or isinstance(tricks, bool) or not 0 <= tricks <= 13:
            raise ActionError(f"tricks: the tricks declarer took, 0-13, not {tricks!r}")
        score = score_ns(contract, seat, boards.vulnerability(base["board"]), tricks)
    sec = s.section(base["section"]) if base["section"] is not None else None
    ns, ew = base["ns"], base["ew"]
    if sec is not None:
        ns = _pair_of(s, sec, "NS", body["ns"]) if body.get("ns") is not None else ns
        ew = _pair_of(s, sec, "EW", body["ew"]) if body.get("ew") is not None else ew
    if not (body.get("reason") or "").strip():
        raise ActionError("reason: a correction needs a reason (e.g. 'tricks miscounted, agreed by both pairs')")
    out = {"unit": row["unit"], "seq": row["seq"], "section": base["section"], "table": base["table_no"],
           "board": base["board"], "contract": contract, "declarer": declarer, "tricks": tricks, "lead": lead,
           "ns": None if ns is None else str(ns), "ew": None if ew is None else str(ew), "score_ns": score,
           "before": {k: base[k] for k in ("contract", "declarer", "tricks", "lead", "ns", "ew", "score_ns")},
           "reason": body["reason"].strip()}
    post = _period_check(state, at, body)
    return _insert(conn, "correct", out, body.get("by"), at, post)


def close(conn, s, body, at):
    """The director closes an alert (its key, queries.alert_key) with a note; refused if closed already."""
    key = body.get("alert")
    if not isinstance(key, str) or not key:
        raise ActionError("alert: which alert (its id on the page)")
    state = fold(conn)
    if key in state.closed:
        raise ActionError(f"alert {key} was closed already ({state.closed[key]['at']})", 409)
    return _insert(conn, "close", {"alert": key, "note": str(body.get("note") or "")[:500]}, body.get("by"), at,
                   False)


def _player(value, where):
    if not isinstance(value, dict):
        raise ActionError(f"{where}: a player: {{\"name\": ..., \"id\": ...}}")
    name = " ".join(str(value.get("name") or "").split())
    number = value.get("id")
    number = " ".join(str(number).split()) if number is not None else ""
    if not name:
        raise ActionError(f"{where}.name: the player needs a name")
    if len(name) > 100 or len(number) > 40:
        raise ActionError(f"{where}: a name of at most 100 characters and a number of at most 40")
    return {"name": name, "id": number or None}


def players(conn, s, body, at):
    """The director fixes a pair's players (the two who played, for the whole session); the stored action."""
    if s is None:
        raise ActionError("no event loaded: a pair's players are fixed in the event's pairs", 409)
    sec = _section(s, body.get("section"))
    if sec.movement.type == "teams":
        raise ActionError("a team's players are in the event file (ns, ew, reserves); the director fixes a "
                          "pair's players")
    pairs, two = contestants(s, sec)
    pair = str(body.get("pair") or "").strip()
    direction = body.get("direction") or None
    if two and direction not in ("NS", "EW"):
        raise ActionError(f"direction: NS or EW (section {sec.name} has NS and EW pairs)")
    who = (direction, pair) if two else pair
    if who not in pairs:
        raise ActionError(f"pair: no {' '.join(who) if two else 'pair ' + pair} in section {sec.name}", 404)
    given = body.get("players")
    if not isinstance(given, list) or len(given) != 2:
        raise ActionError("players: a pair is two players")
    after = [_player(p, f"players[{k}]") for k, p in enumerate(given)]
    before = roster.as_json(roster.players(conn, s, sec.name).get(who, []))
    if [(p["name"], "" if p["id"] is None else str(p["id"])) for p in before] == \
            [(p["name"], p["id"] or "") for p in after]:
        raise ActionError(f"{' '.join(who) if two else 'pair ' + pair} already has these players", 409)
    state = fold(conn)
    post = _period_check(state, at, body)
    out = {"section": sec.name, "direction": direction if two else None, "pair": pair, "players": after,
           "before": before, "reason": str(body.get("reason") or "").strip()[:500]}
    return _insert(conn, "players", out, body.get("by"), at, post)


ACTIONS = {"adjust": adjust, "penalty": penalty, "publish": publish, "resolve": resolve, "correct": correct,
           "close": close, "players": players}
ADVANCING = ("resolve",)  # decisions after which a round may be complete


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
