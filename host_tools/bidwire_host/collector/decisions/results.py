"""The decisions on a unit's result: a held result resolved, a result corrected (docs/collector.md).

* `resolve`: a held result (attribution.py) accepted as played — credited to the section, table, round, board
  and pairs the decision names (by default what the unit reported) — or voided.
* `enter`: a result the director enters for a table and board (no unit reported it, or its unit died), in force
  for that table and board (collector/in_force.py).
* `correct` (the scorer's correction): a result's contract, declarer, tricks, lead or pair numbers as they
  really were; the score is Law 77's on the corrected result, and the traveller marks it corrected. Assigned
  and artificial scores stay `adjust` (scores.py).
"""
import json

from bidwire.core import board as boards
from bidwire.core.readback import CallError, parse_seat
from bidwire.core.score import parse_contract, score_ns
from bidwire_host.collector.decisions.checks import pair_of, period_check, pick_section, sat, where
from bidwire_host.collector.decisions.journal import ActionError, fold, insert


def _result_row(conn, body):
    unit, seq = body.get("unit"), body.get("seq")
    if not isinstance(unit, str) or not isinstance(seq, int) or isinstance(seq, bool):
        raise ActionError("unit and seq: the result's unit id and event number")
    row = conn.execute("SELECT * FROM results WHERE unit = ? AND seq = ?", (unit, seq)).fetchone()
    if row is None:
        raise ActionError(f"no result {seq} from unit {unit}", 404)
    return dict(row)


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
        sec = pick_section(s, body.get("section") or row["section"])
        table = body.get("table") if body.get("table") is not None else row["table_no"]
        board = body.get("board") if body.get("board") is not None else row["board"]
        plan = sec.movement_plan()
        if not isinstance(table, int) or not 1 <= table <= plan.tables:
            raise ActionError(f"table: section {sec.name} has tables 1-{plan.tables}, not {table}", 404)
        in_event = {b for (sn, _, _), boards in s.round_boards().items() if sn == sec.name for b in boards}
        if board not in in_event:
            raise ActionError(f"board: board {board} is not in section {sec.name}", 404)
        round_no = body.get("round") if body.get("round") is not None else row["round"]
        out.update(section=sec.name, table=table, round=round_no, board=board,
                   ns=pair_of(s, sec, "NS", body.get("ns") if body.get("ns") is not None else row["ns"]),
                   ew=pair_of(s, sec, "EW", body.get("ew") if body.get("ew") is not None else row["ew"]))
        taken = [(u, q) for (u, q), r in state.resolutions.items() if r["decision"] == "accept"
                 and (r["section"], r["table"], r["board"]) == (sec.name, table, board) and (u, q) != (row["unit"],
                                                                                                   row["seq"])]
        if taken:
            out["replaces"] = [list(k) for k in taken]
    post = period_check(state, at, body)
    return insert(conn, "resolve", out, body.get("by"), at, post)


def _scored(contract, declarer, tricks, board):
    """(contract, declarer, tricks, NS score by Law 77) checked: ActionError naming the field that is wrong."""
    try:
        parse_contract(contract or "")
    except (CallError, ValueError) as e:
        raise ActionError(f"contract: {contract!r} is not a contract (e.g. 4S, 3NTX, Pass): {e}") from None
    if contract == "PASS":
        contract = "Pass"
    if contract == "Pass":
        return contract, None, None, 0
    try:
        seat = parse_seat(declarer or "")
    except (CallError, ValueError):
        raise ActionError(f"declarer: N, E, S or W, not {declarer!r}") from None
    if not isinstance(tricks, int) or isinstance(tricks, bool) or not 0 <= tricks <= 13:
        raise ActionError(f"tricks: the tricks declarer took, 0-13, not {tricks!r}")
    return contract, declarer, tricks, score_ns(contract, seat, boards.vulnerability(board), tricks)


def _text(value):
    return str(value).strip().upper() if value is not None else None


def enter(conn, s, body, at):
    """A result the director enters for a table and board of the movement, whether or not a unit reported one (a
    dead unit, a traveller on paper): scored by Law 77 and in force for that table and board (in_force) until
    another is entered; a unit's result that comes later is held for a decision (attribution.py). The pairs are
    the movement's unless `ns`/`ew` name who sat there. The stored action."""
    a = where(s, body.get("section"), body["table"], body["board"])
    sec = pick_section(s, a["section"])
    contract, declarer, tricks, score = _scored(_text(body.get("contract")), _text(body.get("declarer")),
                                                body.get("tricks"), body["board"])
    ns, ew = sat(fold(conn), a)
    ns = pair_of(s, sec, "NS", body["ns"]) if body.get("ns") is not None else ns
    ew = pair_of(s, sec, "EW", body["ew"]) if body.get("ew") is not None else ew
    out = {"section": a["section"], "table": a["table"], "round": a["round"], "board": body["board"],
           "contract": contract, "declarer": declarer, "tricks": tricks, "lead": body.get("lead"), "ns": ns,
           "ew": ew, "named": body.get("ns") is not None or body.get("ew") is not None, "score_ns": score,
           "reason": (body.get("reason") or "").strip()}
    post = period_check(fold(conn), at, body)
    return insert(conn, "enter", out, (body.get("by") or "").strip() or body.get("role") or "director", at, post)


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
    contract, declarer, tricks, score = _scored(contract, declarer, tricks, base["board"])
    sec = s.section(base["section"]) if base["section"] is not None else None
    ns, ew = base["ns"], base["ew"]
    if sec is not None:
        ns = pair_of(s, sec, "NS", body["ns"]) if body.get("ns") is not None else ns
        ew = pair_of(s, sec, "EW", body["ew"]) if body.get("ew") is not None else ew
    if not (body.get("reason") or "").strip():
        raise ActionError("reason: a correction needs a reason (e.g. 'tricks miscounted, agreed by both pairs')")
    out = {"unit": row["unit"], "seq": row["seq"], "section": base["section"], "table": base["table_no"],
           "board": base["board"], "contract": contract, "declarer": declarer, "tricks": tricks, "lead": lead,
           "ns": None if ns is None else str(ns), "ew": None if ew is None else str(ew), "score_ns": score,
           "named": body.get("ns") is not None or body.get("ew") is not None,
           "before": {k: base[k] for k in ("contract", "declarer", "tricks", "lead", "ns", "ew", "score_ns")},
           "reason": body["reason"].strip()}
    post = period_check(state, at, body)
    return insert(conn, "correct", out, body.get("by"), at, post)
