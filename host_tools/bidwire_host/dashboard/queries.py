"""What the director's pages show, read from the store: the table grid, the alerts queue, the live auctions and
the audit list of the director's decisions.

An irregularity is pending until its unit reports a `ruling_applied` on the same board after it; a ruling the
director gave from the page shows as queued until then (the unit applies it on its next sync).

Late tables: a table is late when its round has run longer than `ROUND_MINUTES` (from the host's receipt of the
round's first `board_start`), or when a board is under way (bidding, opening lead, play) and nothing has been
heard from it for `IDLE_MINUTES`. $BIDWIRE_ROUND_MINUTES and $BIDWIRE_IDLE_MINUTES change them.
"""
import json
import os
import time
from datetime import datetime, timezone

from bidwire_host.collector import director

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


ROUND_MINUTES = float(os.environ.get("BIDWIRE_ROUND_MINUTES") or 15)  # two boards at 7½ minutes each
IDLE_MINUTES = float(os.environ.get("BIDWIRE_IDLE_MINUTES") or 5)
CLOCK_TICK_S = 15  # the times in the grid are refreshed this often even when nothing happens
SEATS_SHOWN = "WNES"  # the bidding diagram's columns
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def fingerprint(collector):
    """Changes whenever the page would: new events or commands, a unit heard from (its heartbeat), a decision,
    and every CLOCK_TICK_S (the time in the round)."""
    conn = collector.store.reader()
    events = conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]
    cmds = conn.execute("SELECT count(*) FROM commands").fetchone()[0]
    alerts = conn.execute("SELECT count(*) FROM alerts").fetchone()[0]
    actions = conn.execute("SELECT count(*) FROM director_actions").fetchone()[0]
    seen = sorted((u, s.get("last_seen"), s.get("cmd_ack")) for u, s in collector.live.items())
    return (events, cmds, alerts, actions, tuple(seen), int(time.time() // CLOCK_TICK_S))


def _when(text):
    try:
        at = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


def _minutes(since, now):
    return None if since is None else max(0.0, (now - since).total_seconds() / 60)


def lateness(phase, in_round, idle):
    """Why a table is late (text), or None: over the round's budget, or a board under way and nothing heard."""
    if in_round is not None and in_round > ROUND_MINUTES:
        return f"over {ROUND_MINUTES:g} min in the round"
    if phase in ("bidding", "opening lead", "play") and idle is not None and idle > IDLE_MINUTES:
        return f"nothing for {idle:.0f} min"
    return None


def grid(collector):
    """One row per unit: where it is (section, table, round, board, phase) and its health."""
    conn = collector.store.reader()
    derived = {r["unit"]: r for r in conn.execute("SELECT * FROM units")}
    synced = {r["unit"]: r for r in conn.execute("SELECT * FROM unit_sync")}
    queued = dict(conn.execute("SELECT unit, max(seq) FROM commands GROUP BY unit").fetchall())
    latest = _latest_boards(conn)
    started = {(r[0], r[1]): _when(r[2]) for r in conn.execute(
        "SELECT b.unit, b.round, min(e.received) FROM boards b JOIN events e ON e.unit = b.unit "
        "AND e.seq = b.start_seq GROUP BY b.unit, b.round")}
    now = datetime.now(timezone.utc)
    out = []
    for unit in sorted(set(collector.keyring.units()) | set(derived) | set(synced)):
        d, s, b, live = derived.get(unit), synced.get(unit), latest.get(unit), collector.live.get(unit, {})
        cmd_ack = live.get("cmd_ack", s["cmd_ack"] if s else 0)
        phase = PHASES.get(b["state"], b["state"]) if b else "not started"
        in_round = _minutes(started.get((unit, b["round"])), now) if b else None
        idle = _minutes(_when(d["last_received"]), now) if d else None
        out.append({
            "unit": unit,
            "section": b["section"] if b else None,
            "table": b["table_no"] if b else None,
            "round": b["round"] if b else None,
            "board": b["board"] if b else None,
            "phase": phase,
            "calls": b["calls"] if b else 0,
            "in_round": None if in_round is None else int(in_round),
            "late": lateness(phase, in_round, idle),
            "last_seen": live.get("last_seen") or (s["last_seen"] if s else None),
            "battery": d["battery"] if d else None,
            "rssi": d["rssi"] if d else None,
            "backlog": d["backlog"] if d else None,
            "commands_pending": max(0, (queued.get(unit) or 0) - cmd_ack),
        })
    return out


def _latest_boards(conn):
    return {r["unit"]: r for r in conn.execute(
        "SELECT b.* FROM boards b JOIN (SELECT unit, max(start_seq) AS s FROM boards GROUP BY unit) m "
        "ON b.unit = m.unit AND b.start_seq = m.s")}


def call_text(call):
    """'1H' -> '1♥', 'P' -> 'Pass'; the suit symbol comes with the letter for screen readers in the template."""
    if call in ("P", "PASS"):
        return "Pass"
    if len(call) == 2 and call[1] in SUITS:
        return call[0] + SUITS[call[1]]
    return call


def calls(conn, unit, start_seq, board, upto=None):
    """The calls made at a unit on one board, as stored: [{seat, call, text, irregular}] in order."""
    out = []
    for r in conn.execute("SELECT seq, body FROM events WHERE unit = ? AND type = 'call' AND board = ? AND seq >= ? "
                          "AND seq <= ? ORDER BY seq", (unit, board, start_seq, upto if upto is not None else 2**62)):
        body = json.loads(r["body"])
        seat, _, call = str(body.get("input", "")).partition(":")
        seat = body.get("seat") or seat
        out.append({"seat": seat, "call": call, "text": call_text(call),
                    "irregular": None if body.get("verdict", "legal") == "legal" else body.get("verdict")})
    return out


def diagram(dealer, made):
    """The calls laid out in rows of W N E S: a call goes to its seat's column, a new row when it wraps round.
    The first row starts at the dealer (the columns before it are empty)."""
    rows, row, prev = [], [None] * 4, SEATS_SHOWN.index(dealer) - 1 if dealer in SEATS_SHOWN else -1
    for c in made:
        col = SEATS_SHOWN.index(c["seat"]) if c["seat"] in SEATS_SHOWN else 0
        if col <= prev:
            rows.append(row)
            row = [None] * 4
        row[col], prev = c, col
    if any(row) or not rows:
        rows.append(row)
    return {"dealer": dealer, "rows": rows, "empty": not made}


def _board_auction(conn, unit, board_id, upto=None):
    b = conn.execute("SELECT * FROM boards WHERE id = ?", (board_id,)).fetchone() if board_id is not None else None
    if b is None:
        return None
    return diagram(b["dealer"], calls(conn, unit, b["start_seq"], b["board"], upto))


def live(collector):
    """The live auctions: every unit's current board with its calls so far (vugraph-style)."""
    conn = collector.store.reader()
    out = []
    for unit, b in sorted(_latest_boards(conn).items(), key=lambda kv: (kv[1]["section"] or "", kv[1]["table_no"] or 0,
                                                                         kv[0])):
        out.append({"unit": unit, "section": b["section"], "table": b["table_no"], "round": b["round"],
                    "board": b["board"], "dealer": b["dealer"], "vul": b["vul"],
                    "phase": PHASES.get(b["state"], b["state"]), "contract": b["contract"], "declarer": b["declarer"],
                    "auction": diagram(b["dealer"], calls(conn, unit, b["start_seq"], b["board"]))})
    return out


def audit(conn):
    """The director's decisions (adjusted scores, penalties, publications), newest first, with a summary.
    (A penalty's body has its own `kind`, procedural or disciplinary, so it is told by its `amount`.)"""
    out = []
    for a in reversed(director.fold(conn).actions):
        section = f"section {a['section']}, " if a.get("section") else ""
        if "amount" in a:
            kind = "penalty"
            who = f"{a['direction']} {a['pair']}" if a.get("direction") else f"pair {a['pair']}"
            summary = (f"{a['kind']} penalty (Law {a.get('law')}): {who} ({section.rstrip(', ')}) "
                       f"-{a['amount']} {a['unit']}")
        elif a["kind"] == "adjust":
            kind = "adjusted score"
            what = "cleared" if a.get("clear") else director.label(a)
            summary = f"board {a['board']}, {section}table {a['table']} (NS {a['ns']} v EW {a['ew']}): {what}"
        else:
            kind = "publication"
            summary = f"results published; correction period {a.get('minutes')} min"
        out.append({"id": a["id"], "at": a["at"], "kind": kind, "by": a.get("by") or "–",
                    "summary": summary.replace(" ()", ""), "reason": a.get("reason") or "",
                    "post_period": a["post_period"]})
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
                      "auction": _board_auction(conn, i["unit"], i["board_id"], i["seq"]),
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
