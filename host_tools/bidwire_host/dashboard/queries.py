"""What the director's pages show, read from the store: the table grid, the alerts queue, the live auctions and
the audit list of the director's decisions.

Every alert has a lifecycle (docs/director.md): an irregularity is open until the unit reports it settled at the
table (accepted by the next player's call, condoned, a ruling applied) or the board is redone (superseded); a
director call until the director ends it at the table or rules there; any alert until the director closes it
(decisions.alerts.close). A ruling given from the page shows as on its way until the unit applies (or refuses) it.

Late tables: a table is late when its round has run longer than `ROUND_MINUTES` (from the host's receipt of the
round's first `board_start`), or when a board is under way (bidding, opening lead, play) and nothing has been
heard from it for `IDLE_MINUTES`. $BIDWIRE_ROUND_MINUTES and $BIDWIRE_IDLE_MINUTES change them. A table that has
played every board of its round (the movement's assignment) has nothing left to play there and is never late:
the clock of the round keeps running after the session's last board, and the director reads the scores then.
"""
import json
import os
from datetime import datetime, timezone

from bidwire.core.score import parse_contract
from bidwire_host import utc
from bidwire_host.collector import alert_queue, event_setup, in_force, ruling_words, withheld
from bidwire_host.collector.decisions import leads
from bidwire_host.collector.decisions.journal import fold, label
from bidwire_host.event.model import LONG_CALL_S

PHASES = {"auction": "bidding", "ended": "opening lead", "play": "play", "done": "done"}


ROUND_MINUTES = float(os.environ.get("BIDWIRE_ROUND_MINUTES") or 15)  # two boards at 7½ minutes each
IDLE_MINUTES = float(os.environ.get("BIDWIRE_IDLE_MINUTES") or 5)
CLOCK_TICK_S = 15  # the times in the grid are refreshed this often even when nothing happens
SEATS_SHOWN = "WNES"  # the bidding diagram's columns
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def _when(text):
    try:
        at = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


def _minutes(since, now):
    return None if since is None else max(0.0, (now - since).total_seconds() / 60)


def lateness(phase, in_round, idle, to_play=1):
    """Why a table is late (text), or None: over the round's budget, or a board under way and nothing heard.
    `to_play`: the boards of its round the table has still to play (0: it is done, nothing can be late)."""
    if to_play == 0:
        return None
    if in_round is not None and in_round > ROUND_MINUTES:
        return f"over {ROUND_MINUTES:g} min in the round"
    if phase in ("bidding", "opening lead", "play") and idle is not None and idle > IDLE_MINUTES:
        return f"nothing for {idle:.0f} min"
    return None


def grid(service, only=None):
    """One row per unit: where it is (section, table, round, board, phase) and its health. `only`: those units."""
    conn = service.store.reader()
    # `only` (the live stream's few units): every query reads just their rows, not the whole session's
    where, args = ("", ()) if only is None else (f" IN ({', '.join('?' * len(only))})", tuple(only))
    derived = {r["unit"]: r for r in conn.execute(f"SELECT * FROM units{' WHERE unit' + where if where else ''}",
                                                  args)}
    synced = {r["unit"]: r for r in conn.execute(
        f"SELECT * FROM unit_sync{' WHERE unit' + where if where else ''}", args)}
    queued = dict(conn.execute(f"SELECT unit, max(seq) FROM commands{' WHERE unit' + where if where else ''} "
                               "GROUP BY unit", args).fetchall())
    latest = _latest_boards(conn, where, args)
    started = {(r[0], r[1]): _when(r[2]) for r in conn.execute(
        "SELECT b.unit, b.round, min(e.received) FROM boards b JOIN events e ON e.unit = b.unit "
        f"AND e.seq = b.start_seq{' WHERE b.unit' + where if where else ''} GROUP BY b.unit, b.round", args)}
    now = utc.now()
    plays = _round_boards(conn)
    state = fold(conn)
    out = []
    for unit in sorted(set(service.keyring.units()) | set(derived) | set(synced)):
        if only is not None and unit not in only:
            continue
        d, s, b = derived.get(unit), synced.get(unit), latest.get(unit)
        cmd_ack = s["cmd_ack"] if s else 0
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
            "late": lateness(phase, in_round, idle, _to_play(conn, plays, b, state) if b else 1),
            "last_seen": s["last_seen"] if s else None,
            "battery": d["battery"] if d else None,
            "rssi": d["rssi"] if d else None,
            "backlog": d["backlog"] if d else None,
            "commands_pending": max(0, (queued.get(unit) or 0) - cmd_ack),
        })
    return out


def rounds(conn, units=()):
    """Each section's round in play, table by table: its unit, the round's boards and those it has still to play
    (withheld.to_play: no result in force, none entered, no adjusted score), and why the next round has not started
    (the tables still playing, and which boards). `units`: the provisioned units, for the form that gives a table."""
    s = event_setup.load(conn)
    if s is None:
        return {"sections": [], "units": sorted(units)}
    state = fold(conn)
    pending = withheld.to_play(conn, s, state)
    plays = s.round_boards()
    out = []
    for sec in s.event.session(s.session).sections:
        plan = sec.movement_plan()
        r = s.rounds.get(sec.name, 0)
        tables = []
        for t in range(1, plan.tables + 1):
            boards = plays.get((sec.name, t, r), [])
            tables.append({"table": t, "unit": s.unit_at(sec.name, t), "boards": boards,
                           "left": [{"board": b, "late": (sec.name, t, b) in state.late} for b in boards
                                    if (sec.name, t, b) in pending]})
        waiting = [(sec.name, x["table"], b["board"]) for x in tables for b in x["left"] if not b["late"]]
        out.append({"section": sec.name, "round": r, "rounds": plan.rounds, "tables": tables,
                    "next": r + 1 if r < plan.rounds else None, "why": withheld.describe(waiting) if waiting else None})
    return {"sections": out, "units": sorted(units), "several": len(out) > 1,
            "not_played": "/".join(s.event.night().not_played)}


def table_name(section, table, sections=1):
    """"Table 3" as the director calls it ("Table B3" when the event has several sections); None without a table."""
    if table is None:
        return None
    prefix = section or "" if sections > 1 else ""
    return f"Table {prefix}{table}"


def _round_boards(conn):
    """{(section, table, round): the boards the movement gives it}, or {} with no event loaded."""
    s = event_setup.load(conn)
    return {} if s is None else s.round_boards()


def _to_play(conn, plays, b, state):
    """How many boards of its round the table at board row `b` has still to play (no result in force, no adjusted
    score: in_force.done); 1 when the event does not say (no event, or a board outside the movement): the table is
    then judged by its clock alone."""
    boards = plays.get((b["section"], b["table_no"], b["round"]))
    if not boards or b["state"] != "done" or b["board"] not in boards:
        return 1
    return sum(not in_force.done(conn, state, b["section"], b["table_no"], n) for n in boards if n != b["board"])


def _latest_boards(conn, where="", args=()):
    """{unit: its latest board row}; `where` (" IN (?, ...)" with `args`) for some units only."""
    return {r["unit"]: r for r in conn.execute(
        f"SELECT b.* FROM boards b JOIN (SELECT unit, max(start_seq) AS s FROM boards"
        f"{' WHERE unit' + where if where else ''} GROUP BY unit) m ON b.unit = m.unit AND b.start_seq = m.s", args)}


def result_text(contract, tricks):
    """The tricks against the contract as travellers print them: "=" made exactly, "+1" one over, "−2" two down;
    blank for a pass-out, an adjusted score or a contract that cannot be read."""
    try:
        parsed = parse_contract(contract)
    except ValueError:
        return ""
    if parsed is None or not isinstance(tricks, int):
        return ""
    over = tricks - 6 - parsed[0]
    return "=" if over == 0 else f"+{over}" if over > 0 else f"\u2212{-over}"


def call_text(call):
    """'1H' -> '1♥', 'P' -> 'Pass'; the suit symbol comes with the letter for screen readers in the template."""
    if call in ("P", "PASS"):
        return "Pass"
    if len(call) == 2 and call[1] in SUITS:
        return call[0] + SUITS[call[1]]
    return call


def long_call_tenths(conn):
    """From how many tenths of a second a call's thinking time is long: the event's `long_call_s`, else
    LONG_CALL_S."""
    s = event_setup.load(conn)
    chosen = s.event.long_call_s if s is not None else None
    return 10 * (chosen if chosen is not None else LONG_CALL_S)


def calls(conn, unit, start_seq, board, upto=None, last=None):
    """The calls made at a unit on one board, as stored: [{seat, call, text, irregular, tempo, long}] in order
    (tempo: the call's thinking time as the unit measured it, "12.3s", None from a unit that sends none; long:
    at least the event's long_call_s). Only the
    events of that play of the board: up to the unit's next board_start. `last`: only the last so many (read
    from the end, so a board with thousands of stored calls costs no more than a short one)."""
    nxt = conn.execute("SELECT min(start_seq) FROM boards WHERE unit = ? AND start_seq > ?",
                       (unit, start_seq)).fetchone()[0]
    end = min(upto if upto is not None else 2**62, (nxt - 1) if nxt is not None else 2**62)
    sql = ("SELECT seq, body FROM events WHERE unit = ? AND type = 'call' AND board = ? AND seq >= ? AND seq <= ? "
           "ORDER BY seq DESC" + (" LIMIT ?" if last is not None else ""))
    rows = conn.execute(sql, (unit, board, start_seq, end) + ((last,) if last is not None else ())).fetchall()
    out, long_after = [], long_call_tenths(conn)
    for r in reversed(rows):
        body = json.loads(r["body"])
        seat, _, call = str(body.get("input", ""))[:16].partition(":")  # a token is short: clipped whatever is stored
        seat = str(body.get("seat") or seat)[:1]
        tempo = body.get("tempo")
        out.append({"seat": seat, "call": call, "text": call_text(call),
                    "irregular": None if body.get("verdict", "legal") == "legal" else str(body.get("verdict"))[:64],
                    "tempo": f"{tempo // 10}.{tempo % 10}s" if isinstance(tempo, int) and tempo >= 0 else None,
                    "long": isinstance(tempo, int) and tempo >= long_after})
    return out


def diagram(dealer, made):
    """The calls laid out in rows of W N E S: a call goes to its seat's column, a new row when it wraps round.
    The first row starts at the dealer (the columns before it are empty), unless the first call is made out of
    rotation by a seat left of the dealer's column: it then opens the first row."""
    rows, row, prev = [], [None] * 4, SEATS_SHOWN.index(dealer) - 1 if dealer in SEATS_SHOWN else -1
    for c in made:
        col = SEATS_SHOWN.index(c["seat"]) if c["seat"] in SEATS_SHOWN else 0
        if col <= prev and any(row):  # a call before the dealer's (out of rotation): no empty first row
            rows.append(row)
            row = [None] * 4
        row[col], prev = c, col
    if any(row) or not rows:
        rows.append(row)
    return {"dealer": dealer, "rows": rows, "empty": not made, "long": [c for c in made if c.get("long")]}


def _board_auction(conn, unit, board_id, upto=None):
    b = conn.execute("SELECT * FROM boards WHERE id = ?", (board_id,)).fetchone() if board_id is not None else None
    if b is None:
        return None
    made = calls(conn, unit, b["start_seq"], b["board"], upto, last=DIAGRAM_CALLS + 1)
    cut = 0
    if len(made) > DIAGRAM_CALLS:  # how many earlier calls are not shown
        nxt = conn.execute("SELECT min(start_seq) FROM boards WHERE unit = ? AND start_seq > ?",
                           (unit, b["start_seq"])).fetchone()[0]
        end = min(upto if upto is not None else 2**62, (nxt - 1) if nxt is not None else 2**62)
        total = conn.execute("SELECT count(*) FROM events WHERE unit = ? AND type = 'call' AND board = ? "
                             "AND seq >= ? AND seq <= ?", (unit, b["board"], b["start_seq"], end)).fetchone()[0]
        made = made[1:]
        cut = total - len(made)
    out = diagram(b["dealer"] if not cut else made[0]["seat"], made)
    out.update(cut=cut, board_id=board_id)
    return out


def live(service):
    """The live auctions: every unit's current board with its calls so far (vugraph-style)."""
    conn = service.store.reader()
    out = []
    for unit, b in sorted(_latest_boards(conn).items(), key=lambda kv: (kv[1]["section"] or "", kv[1]["table_no"] or 0,
                                                                         kv[0])):
        res = conn.execute("SELECT tricks, score_ns FROM results WHERE unit = ? AND seq >= ? AND board_id = ? "
                           "ORDER BY seq DESC LIMIT 1", (unit, b["start_seq"], b["id"])).fetchone() \
            if b["state"] == "done" else None  # (unit, seq) is the key: no scan of the session's results
        out.append({"unit": unit, "section": b["section"], "table": b["table_no"], "round": b["round"],
                    "board": b["board"], "dealer": b["dealer"], "vul": b["vul"],
                    "phase": PHASES.get(b["state"], b["state"]), "contract": b["contract"], "declarer": b["declarer"],
                    "result": result_text(b["contract"], res["tricks"]) if res is not None else None,
                    "score_ns": res["score_ns"] if res is not None else None,
                    "auction": _board_auction(conn, unit, b["id"])})
    return out


def audit(conn):
    """The director's decisions (adjusted scores, penalties, publications), newest first, with a summary.
    (A penalty's body has its own `kind`, procedural or disciplinary, so it is told by its `amount`.)"""
    out = []
    for a in reversed(fold(conn).actions):
        section = f"section {a['section']}, " if a.get("section") else ""
        if "amount" in a:
            kind = "penalty"
            who = f"{a['direction']} {a['pair']}" if a.get("direction") else f"pair {a['pair']}"
            summary = (f"{a['kind']} penalty (Law {a.get('law')}): {who} ({section.rstrip(', ')}) "
                       f"-{a['amount']} {a['unit']}")
        elif a["kind"] == "resolve":
            kind = "held result"
            where = (f"as board {a['board']}, {section}table {a['table']}, NS {a['ns']} v EW {a['ew']}"
                     if a["decision"] == "accept" else "")
            summary = f"unit {a['unit']} result {a['seq']}: {a['decision']}ed {where}".strip()
        elif a["kind"] == "correct":
            kind = "correction"
            b = a["before"]
            summary = (f"board {a['board']}, {section}table {a['table']}: {b['contract']} {b['declarer'] or ''} "
                       f"{b['tricks'] if b['tricks'] is not None else ''} -> {a['contract']} {a['declarer'] or ''} "
                       f"{a['tricks'] if a['tricks'] is not None else ''} (NS {a['score_ns']})")
        elif a["kind"] == "enter":
            kind = "result entered"
            made = ("passed out" if a["contract"] == "Pass"
                    else f"{a['contract']} by {a['declarer']}, {a['tricks']} tricks")
            summary = (f"board {a['board']}, {section}table {a['table']} (NS {a['ns']} v EW {a['ew']}): {made} "
                       f"(NS {a['score_ns']})")
        elif a["kind"] == "ruling":
            kind = "ruling"
            summary = f"board {a['board']}, unit {a['unit']}: {a['label']}. {a['said']}"
        elif a["kind"] == "seated":
            kind = "who sat"
            summary = (f"{section}table {a['table']} round {a['round']}: NS {a['ns']} v EW {a['ew']} (the movement "
                       f"has NS {a['expected'][0]} v EW {a['expected'][1]})")
        elif a["kind"] == "late":
            kind = "late play"
            there = "" if a["at_table"] == a["table"] else f", played at table {a['at_table']}"
            summary = (f"board {a['board']}, {section}table {a['table']} (NS {a['ns']} v EW {a['ew']}): "
                       f"to play late{there} (unit {a['unit']})")
        elif a["kind"] == "table":
            kind = "table given"
            boards = ", ".join(map(str, a["boards"])) or "none left"
            summary = (f"{section}table {a['table']} to unit {a['unit']}"
                       + (f" in place of unit {a['replaces']}" if a.get("replaces") else "")
                       + f": round {a['round']}, boards {boards}")
        elif a["kind"] == "close":
            kind = "alert closed"
            summary = f"{a['alert']}" + (f": {a['note']}" if a.get("note") else "")
        elif a["kind"] == "lead":
            kind = "declarer's choice (Law 26)"
            summary = (f"board {a['board']}, {section}table {a['table'] or '–'}: "
                       f"{leads.describe(a['choice'], a['suit'], a['seat'])}"
                       + (f" (command {a['command']} to unit {a['unit']})" if a["command"] else ""))
        elif a["kind"] == "players":
            kind = "players"
            who = f"{a['direction']} {a['pair']}" if a.get("direction") else f"pair {a['pair']}"
            summary = (f"{who} ({section.rstrip(', ')}): {' - '.join(p['name'] for p in a['before']) or 'no names'}"
                       f" -> {' - '.join(p['name'] for p in a['players'])}")
        elif a["kind"] == "adjust":
            kind = "not played" if a.get("not_played") else "adjusted score"
            what = "cleared" if a.get("clear") else label(a)
            summary = f"board {a['board']}, {section}table {a['table']} (NS {a['ns']} v EW {a['ew']}): {what}"
        else:
            kind = "publication"
            summary = f"results published; correction period {a.get('minutes')} min"
        out.append({"id": a["id"], "at": a["at"], "kind": kind, "by": a.get("by") or "–",
                    "summary": summary.replace(" ()", ""), "reason": a.get("reason") or "",
                    "post_period": a["post_period"]})
    return out


DIAGRAM_CALLS = 48  # an alert's bidding diagram shows the last calls this many; the board page has them all
PAGE = alert_queue.PAGE
cmd_acks = alert_queue.cmd_acks


def alerts(conn, acks, state="open", page=1, limit=PAGE):
    """The collector's queue (collector/alert_queue.py) dressed for the page: each irregularity's bidding diagram and
    what each ruling does, and an element id."""
    items, total = alert_queue.alerts(conn, acks, state, page, limit)
    s = event_setup.load(conn)
    sections = len(s.event.session(s.session).sections) if s is not None else 1
    for a in items:
        a["id"] = "a-" + "".join(ch if ch.isalnum() else "-" for ch in a["key"])
        a["where"] = table_name(a["section"], a["table"], sections) or a["unit"]
        if a["source"] == "irregularity":
            a["options"] = ruling_words.options(conn, a["unit"], a["seq"], a["options"])
            a["auction"] = _board_auction(conn, a["unit"], a["board_id"], a["seq"])
            if a.get("queued"):
                q = a["queued"]
                a["queued"] = dict(q, label=ruling_words.LABELS.get(q["ruling"], q["ruling"]))
        elif a["source"] == "td_call":  # the auction so far, each call's tempo beside it
            a["auction"] = _board_auction(conn, a["unit"], a.get("board_id"), a["seq"])
        if a.get("seating"):  # the form of a wrong pair's alert: every side's claim at that table and round
            claims = {x["seating"]["side"]: x["seating"]["pair"] for x in items if x.get("seating") and x["open"]
                      and (x["section"], x["table"], x["seating"]["round"]) == (a["section"], a["table"],
                                                                                a["seating"]["round"])}
            a["seating"] = dict(a["seating"], ns=claims.get("NS"), ew=claims.get("EW"))
        if a.get("lead_choices"):  # declarer's Law 26 choices as buttons: (value, label, what it means)
            a["lead_choices"] = [(f"{c}:{s}" if s else c, f"{c} {SUITS[s]}" if s else c,
                                  leads.describe(c, s, a["seat"]))
                                 for c, s in a["lead_choices"]]
    return items, total


def irregularity(conn, unit, seq):
    """One stored irregularity (its board, offender and the rulings the unit offered), or None."""
    row = conn.execute("SELECT * FROM irregularities WHERE unit = ? AND seq = ?", (unit, seq)).fetchone()
    if row is None:
        return None
    return {"board": row["board"], "offender": row["offender"],
            "options": json.loads(row["options"]) if row["options"] else []}
