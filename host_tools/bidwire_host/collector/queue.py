"""The director's queue (docs/director.md, "Alerts"): every alert with its lifecycle, read from the store.

An irregularity is open until the unit reports it settled at the table (accepted by the next player's call,
condoned, a ruling applied) or the board is redone (superseded); a Law 26 lead restriction until the opening lead
is made (declarer chooses before it) or the director closes it; a director call until the director ends it at
the table or rules there; any alert until the director closes it (decisions.alerts.close); a held result until the
director decides it (decisions.results.resolve). A ruling sent from the page shows as on its way until the unit applies
(or refuses) it. The JSON API (GET /api/v1/queue) and the director's page read the same queue.
"""
import json

from bidwire_host.collector.decisions.state import alert_key, fold


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
    for i in conn.execute("SELECT i.*, e.id AS eid FROM irregularities i JOIN events e USING (unit, seq)"):
        key = alert_key("irr", i["unit"], i["seq"])
        is_open = i["state"] == "open" and key not in closed
        if is_open == want_open:
            rows.append(("irr", key, i, is_open))
    for c in conn.execute("SELECT c.*, e.id AS eid FROM director_calls c JOIN events e USING (unit, seq)"):
        key = alert_key("td", c["unit"], c["seq"])
        is_open = c["state"] == "open" and key not in closed
        if is_open == want_open:
            rows.append(("td", key, c, is_open))
    for a in conn.execute("SELECT a.*, e.id AS eid FROM alerts a LEFT JOIN events e USING (unit, seq)"):
        key = alert_key("alert", a["unit"], a["seq"], a["kind"])
        is_open = key not in closed and not (a["kind"] == "held_result" and (a["unit"], a["seq"]) in resolutions) \
            and not (a["kind"] == "lead_restriction" and _led(conn, a))
        if is_open == want_open:
            rows.append(("alert", key, a, is_open))
    for c in conn.execute("SELECT c.*, NULL AS board, (SELECT coalesce(max(id), 0) FROM events) AS eid "
                          "FROM seq_conflicts c"):
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


def _led(conn, a):
    """Has the opening lead of the alert's board been made since (a Law 26 choice is declarer's before it)?"""
    return conn.execute("SELECT 1 FROM events WHERE unit = ? AND board = ? AND type = 'lead' AND seq > ?",
                        (a["unit"], a["board"], a["seq"])).fetchone() is not None


def _item(conn, source, key, r, is_open, closed, queued, resolutions):
    base = {"key": key, "unit": r["unit"], "seq": r["seq"], "eid": r["eid"] or 0, "board": r["board"],
            "open": is_open, "closed": closed}
    if source == "irr":
        options = json.loads(r["options"]) if r["options"] else []
        board_id = r["board_id"]
        return dict(base, source="irregularity", kind=r["kind"], law=r["law"], offender=r["offender"],
                    call=r["call"], entitled=r["entitled"], at=r["at"], board_id=board_id,
                    options=options if is_open else [], outcome=r["outcome"],
                    queued=queued.get((r["unit"], r["board"], r["at"])) if is_open else None)
    if source == "td":
        return dict(base, source="td_call", kind="director called", law=None, offender=r["seat"],
                    outcome=r["outcome"])
    if source == "conflict":
        return dict(base, board=None, source="validator", kind="seq_conflict", law=None, outcome=None,
                    detail=f"unit {r['unit']} sent event {r['seq']} again with other content ({r['times']} time(s) "
                           f"since {r['first_at']}); refused, the first is kept. Stored: {r['stored'][:300]} — sent: "
                           f"{r['sent'][:300]}")
    data = json.loads(r["data"]) if r["data"] else {}
    out = dict(base, source="validator", kind=r["kind"], law=r["law"], detail=r["detail"], outcome=None)
    if r["kind"] == "lead_restriction" and not is_open and closed is None:
        out["outcome"] = "the opening lead was made"
    if r["kind"] == "held_result":
        res = conn.execute("SELECT * FROM results WHERE unit = ? AND seq = ?", (r["unit"], r["seq"])).fetchone()
        decided = resolutions.get((r["unit"], r["seq"]))
        out.update(held=dict(res) if res is not None else None, expected=data.get("expected"),
                   reasons=data.get("reasons") or [], decision=decided,
                   outcome=None if decided is None else
                   f"{decided['decision']}ed by {decided.get('by') or 'the director'}")
    return out


