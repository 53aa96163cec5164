"""What the director's page shows, read from the store: the table grid and the alerts queue.

An irregularity is pending until its unit reports a `ruling_applied` on the same board after it; a ruling the
director gave from the page shows as queued until then (the unit applies it on its next sync).
"""
import json

PHASES = {"auction": "bidding", "ended": "opening lead", "play": "play", "done": "done"}
RULINGS = {  # what each ruling does, for the buttons (laws.md §4.19)
    "reject": "cancel the call; the offender calls again",
    "reject_natural": "cancel the call (conventional replacement: partner passes)",
    "25a": "unintended call: replace it (Law 25 A)",
    "25b_accept": "change accepted (Law 25 B)",
    "25b_stand": "the first call stands (Law 25 B)",
    "25b_other": "another substitute (Law 25 B)",
    "pass_next_turn": "the offender's partner passes at the next turn",
}


def fingerprint(collector):
    """Changes whenever the page would: new events or commands, a unit heard from (its heartbeat)."""
    conn = collector.store.reader()
    events = conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]
    cmds = conn.execute("SELECT count(*) FROM commands").fetchone()[0]
    alerts = conn.execute("SELECT count(*) FROM alerts").fetchone()[0]
    seen = sorted((u, s.get("last_seen"), s.get("cmd_ack")) for u, s in collector.live.items())
    return (events, cmds, alerts, tuple(seen))


def grid(collector):
    """One row per unit: where it is (section, table, round, board, phase) and its health."""
    conn = collector.store.reader()
    derived = {r["unit"]: r for r in conn.execute("SELECT * FROM units")}
    synced = {r["unit"]: r for r in conn.execute("SELECT * FROM unit_sync")}
    queued = dict(conn.execute("SELECT unit, max(seq) FROM commands GROUP BY unit").fetchall())
    latest = {r["unit"]: r for r in conn.execute(
        "SELECT b.* FROM boards b JOIN (SELECT unit, max(start_seq) AS s FROM boards GROUP BY unit) m "
        "ON b.unit = m.unit AND b.start_seq = m.s")}
    out = []
    for unit in sorted(set(collector.keyring.units()) | set(derived) | set(synced)):
        d, s, b, live = derived.get(unit), synced.get(unit), latest.get(unit), collector.live.get(unit, {})
        cmd_ack = live.get("cmd_ack", s["cmd_ack"] if s else 0)
        out.append({
            "unit": unit,
            "section": b["section"] if b else None,
            "table": b["table_no"] if b else None,
            "round": b["round"] if b else None,
            "board": b["board"] if b else None,
            "phase": PHASES.get(b["state"], b["state"]) if b else "not started",
            "calls": b["calls"] if b else 0,
            "last_seen": live.get("last_seen") or (s["last_seen"] if s else None),
            "battery": d["battery"] if d else None,
            "rssi": d["rssi"] if d else None,
            "backlog": d["backlog"] if d else None,
            "commands_pending": max(0, (queued.get(unit) or 0) - cmd_ack),
        })
    return out


def cmd_acks(collector):
    """{unit: the last command it reports applied}: live from this run's syncs, else as stored."""
    acks = dict(collector.store.reader().execute("SELECT unit, cmd_ack FROM unit_sync").fetchall())
    acks.update({u: s["cmd_ack"] for u, s in collector.live.items()})
    return acks


def alerts(conn, acks, limit=200):
    """The alerts queue: irregularities, director calls and validator alerts; unresolved first, newest first.
    `acks`: each unit's cmd_ack, so that a ruling shows as sent only until the unit has applied it."""
    rulings = {}
    for r in conn.execute("SELECT * FROM rulings ORDER BY unit, seq"):
        rulings.setdefault((r["unit"], r["board_id"]), []).append(dict(r))
    queued = {}
    for c in conn.execute("SELECT unit, seq, body, created FROM commands WHERE type = 'ruling' ORDER BY seq"):
        body = json.loads(c["body"])
        if c["seq"] <= acks.get(c["unit"], 0):
            continue
        queued.setdefault((c["unit"], body.get("board")), []).append(body)

    def outcome(unit, seq, board_id):
        return next((r for r in rulings.get((unit, board_id), []) if r["seq"] > seq), None)

    items = []
    for i in conn.execute("SELECT i.*, e.id AS eid FROM irregularities i JOIN events e USING (unit, seq) "
                          "ORDER BY e.id DESC LIMIT ?", (limit,)):
        options = json.loads(i["options"]) if i["options"] else []
        done = outcome(i["unit"], i["seq"], i["board_id"])
        sent = queued.get((i["unit"], i["board"]), []) if not done else []
        items.append({"source": "irregularity", "id": f"irr-{i['unit']}-{i['seq']}", "unit": i["unit"],
                      "seq": i["seq"], "eid": i["eid"], "board": i["board"], "kind": i["kind"], "law": i["law"],
                      "offender": i["offender"], "call": i["call"], "entitled": i["entitled"],
                      "options": [(o, RULINGS.get(o, o)) for o in options],
                      "outcome": done, "queued": sent[-1] if sent else None,
                      "open": bool(options) and done is None})
    for c in conn.execute("SELECT c.*, e.id AS eid FROM director_calls c JOIN events e USING (unit, seq) "
                          "ORDER BY e.id DESC LIMIT ?", (limit,)):
        done = outcome(c["unit"], c["seq"], c["board_id"])
        items.append({"source": "td_call", "id": f"td-{c['unit']}-{c['seq']}", "unit": c["unit"], "seq": c["seq"],
                      "eid": c["eid"], "board": c["board"], "kind": "director called", "law": None,
                      "offender": c["seat"], "outcome": done, "open": done is None})
    for a in conn.execute("SELECT a.*, e.id AS eid FROM alerts a LEFT JOIN events e USING (unit, seq) "
                          "ORDER BY a.id DESC LIMIT ?", (limit,)):
        items.append({"source": "validator", "id": f"alert-{a['id']}", "unit": a["unit"], "seq": a["seq"],
                      "eid": a["eid"] or 0, "board": a["board"], "kind": a["kind"], "law": a["law"],
                      "detail": a["detail"], "outcome": None, "open": True})
    items.sort(key=lambda x: x["eid"], reverse=True)  # arrival order, newest first
    items.sort(key=lambda x: not x["open"])
    return items


def irregularity(conn, unit, seq):
    """One stored irregularity (its board, offender and the rulings the unit offered), or None."""
    row = conn.execute("SELECT * FROM irregularities WHERE unit = ? AND seq = ?", (unit, seq)).fetchone()
    if row is None:
        return None
    return {"board": row["board"], "offender": row["offender"],
            "options": json.loads(row["options"]) if row["options"] else []}
