"""The director's queue (docs/director.md, "Alerts"): every alert with its lifecycle, read from the store.

An irregularity is open until the unit reports it settled at the table (accepted by the next player's call,
condoned, a ruling applied) or the board is redone (superseded); a Law 26 lead restriction until the opening lead
is made (declarer chooses before it), declarer's choice the director records reaches the table (decisions.leads: the
unit reports the lead_choice command applied; at once when the restricted player is not the opening leader) or the
director closes it; a director call until the director ends it at
the table or rules there; any alert until the director closes it (decisions.alerts.close); a held result until the
director decides it (decisions.results.resolve); a suspicious result until the scorer's correction in force brings it
within the limit of double dummy (the alert then closes with that correction; a correction still far off keeps it
open and its text says the corrected result). A ruling sent from the page shows as on its way until the unit applies
(or refuses) it. The JSON API (GET /api/v1/queue) and the director's page read the same queue.
"""
import json

from bidwire_host.collector import validator
from bidwire_host.collector.decisions import leads
from bidwire_host.collector.decisions.journal import alert_key, fold


def cmd_acks(conn):
    """{unit: the last command it reports applied}."""
    return dict(conn.execute("SELECT unit, cmd_ack FROM unit_sync").fetchall())


PAGE = 50  # open alerts per page


def alerts(conn, acks, state="open", page=1, limit=PAGE):
    """The alerts queue, newest first: `state` "open" (what the director still has to deal with) or "closed"
    (settled at the table, superseded, resolved by the director: each with its outcome). (items, total)."""
    decisions = fold(conn)
    closed, resolutions = decisions.closed, decisions.resolutions
    queued = {}
    for c in conn.execute("SELECT unit, seq, body FROM commands WHERE type = 'ruling' ORDER BY seq"):
        if c["seq"] > acks.get(c["unit"], 0):
            body = json.loads(c["body"])
            queued[c["unit"], body.get("board"), body.get("at")] = body
    want_open = state == "open"
    rows = []
    where = ("b.section AS at_section, b.table_no AS at_table, (SELECT received FROM events c WHERE c.unit = x.unit "
             "AND c.seq = x.closed_seq) AS closed_at")  # the table it happened at, when the table closed it
    for source, table in (("irr", "irregularities"), ("td", "director_calls")):  # what the tables report
        for r in conn.execute(f"SELECT x.*, e.id AS eid, {where} FROM {table} x JOIN events e USING (unit, seq) "
                              "LEFT JOIN boards b ON b.id = x.board_id"):
            key = alert_key(source, r["unit"], r["seq"])
            is_open = r["state"] == "open" and key not in closed
            if is_open == want_open:
                rows.append((source, key, r, is_open))
    for a in conn.execute("SELECT a.*, e.id AS eid, a.section AS at_section, a.table_no AS at_table, "
                          "NULL AS closed_at FROM alerts a LEFT JOIN events e USING (unit, seq)"):
        key = alert_key("alert", a["unit"], a["seq"], a["kind"])
        answer = _answer(conn, a, decisions.corrections)
        is_open = key not in closed and not (a["kind"] == "held_result" and (a["unit"], a["seq"]) in resolutions)
        is_open = is_open and not (answer is not None and answer["answered"])
        if a["kind"] == "wrong_pair":  # answered once the director records who sat at that table in that round
            is_open = is_open and (a["at_section"], a["at_table"],
                                   json.loads(a["data"] or "{}").get("round")) not in decisions.seated
        chosen = decisions.leads.get(key) if a["kind"] == "lead_restriction" else None
        if chosen is not None:
            chosen = dict(chosen, delivered=chosen["command"] is None or acks.get(a["unit"], 0) >= chosen["command"])
            is_open = is_open and not chosen["delivered"]
        is_open = is_open and not (a["kind"] == "lead_restriction" and _led(conn, a))
        if is_open == want_open:
            rows.append(("alert", key, dict(a, answer=answer, chosen=chosen), is_open))
    for c in conn.execute("SELECT c.*, NULL AS board, (SELECT coalesce(max(id), 0) FROM events) AS eid, "
                          "NULL AS at_section, NULL AS at_table, NULL AS closed_at FROM seq_conflicts c"):
        key = alert_key("conflict", c["unit"], c["seq"], str(c["id"]))
        is_open = key not in closed
        if is_open == want_open:
            rows.append(("conflict", key, c, is_open))
    rows.sort(key=lambda x: x[2]["eid"] or 0, reverse=True)
    total = len(rows)
    items = []
    for source, key, r, is_open in rows[(page - 1) * limit: page * limit]:
        items.append(_item(conn, source, key, r, is_open, closed.get(key), queued, resolutions))
    return items, total


def _answer(conn, a, corrections):
    """A suspicious result the scorer corrected, checked again as it now stands: {"fix": the correction in force,
    "answered": within the limit of double dummy, "detail": what the alert says now}; None for any other alert."""
    fix = corrections.get((a["unit"], a["seq"])) if a["kind"] == "suspicious_result" else None
    if fix is None:
        return None
    found = validator.check_double_dummy(conn, a["board"], fix["contract"], fix["declarer"], fix["tricks"])
    was = f"{a['detail']} Corrected to {fix['contract']}" + (f" by {fix['declarer']}, {fix['tricks']} tricks"
                                                              if fix["declarer"] else "")
    return {"fix": fix, "answered": not found,
            "detail": f"{was}: within the limit of double dummy." if not found else
            f"{was}, still far off: {found[0]['detail']}"}


def _led(conn, a):
    """Has the opening lead of the alert's board been made since (a Law 26 choice is declarer's before it)?"""
    return conn.execute("SELECT 1 FROM events WHERE unit = ? AND board = ? AND type = 'lead' AND seq > ?",
                        (a["unit"], a["board"], a["seq"])).fetchone() is not None


def _item(conn, source, key, r, is_open, closed, queued, resolutions):
    base = {"key": key, "unit": r["unit"], "seq": r["seq"], "eid": r["eid"] or 0, "board": r["board"],
            "open": is_open, "closed": closed, "section": r["at_section"], "table": r["at_table"],
            "closed_at": None if is_open else (closed or {}).get("at") or r["closed_at"]}
    if source == "irr":
        options = json.loads(r["options"]) if r["options"] else []
        board_id = r["board_id"]
        return dict(base, source="irregularity", kind=r["kind"], law=r["law"], offender=r["offender"],
                    call=r["call"], entitled=r["entitled"], at=r["at"], board_id=board_id,
                    options=options if is_open else [], outcome=r["outcome"],
                    queued=queued.get((r["unit"], r["board"], r["at"])) if is_open else None)
    if source == "td":
        return dict(base, source="td_call", kind="director called", law=None, offender=r["seat"],
                    board_id=r["board_id"], outcome=r["outcome"])
    if source == "conflict":
        return dict(base, board=None, source="validator", kind="seq_conflict", law=None, outcome=None,
                    detail=f"unit {r['unit']} sent event {r['seq']} again with other content ({r['times']} time(s) "
                           f"since {r['first_at']}); refused, the first is kept. Stored: {r['stored'][:300]} — sent: "
                           f"{r['sent'][:300]}")
    data = json.loads(r["data"]) if r["data"] else {}
    out = dict(base, source="validator", kind=r["kind"], law=r["law"], detail=r["detail"], outcome=None)
    answer = r["answer"] if "answer" in r.keys() else None
    if answer is not None:
        fix = answer["fix"]
        out.update(detail=answer["detail"], corrected=fix)
        if answer["answered"] and closed is None:
            out.update(outcome=f"answered by the {fix.get('by') or 'scorer'}'s correction", closed_at=fix["at"],
                       closed={"by": fix.get("by") or "the scorer", "at": fix["at"], "note": fix.get("reason") or ""})
    if r["kind"] == "lead_restriction":
        chosen = r["chosen"]
        out["seat"] = data.get("seat")  # the restricted player
        if chosen is None and is_open:
            out["lead_choices"] = leads.choices(data.get("suit"))
        elif chosen is not None:
            said = leads.describe(chosen["choice"], chosen["suit"], chosen["seat"])
            out["chosen"] = dict(chosen, said=said)
            if not is_open and closed is None:
                shown = ("shown at the table" if chosen["command"] is not None
                         else "the unit records only the opening lead")
                out.update(outcome=f"declarer's choice: {said} ({shown})", closed_at=chosen["at"],
                           closed={"by": chosen.get("by") or "the director", "at": chosen["at"], "note": ""})
        if not is_open and closed is None and out["outcome"] is None:
            out["outcome"] = "the opening lead was made"
    if r["kind"] == "wrong_pair":
        out["seating"] = {"side": data.get("side"), "pair": data.get("pair"), "expected": data.get("expected"),
                          "round": data.get("round")}
        if not is_open and closed is None:
            out["outcome"] = "the director recorded who sat there"
    if r["kind"] == "held_result":
        res = conn.execute("SELECT * FROM results WHERE unit = ? AND seq = ?", (r["unit"], r["seq"])).fetchone()
        decided = resolutions.get((r["unit"], r["seq"]))
        out.update(held=dict(res) if res is not None else None, expected=data.get("expected"),
                   reasons=data.get("reasons") or [], decision=decided,
                   outcome=None if decided is None else
                   f"{decided['decision']}ed by {decided.get('by') or 'the director'}")
    return out


