"""Derived tables from raw events: `apply(conn, event)` for one event, `rebuild(conn)` for all of them.

The live sync path calls `apply` for each event it stores, in the writer's transaction; `rebuild` empties the
derived tables and applies every stored event in arrival order through the same function, so a rebuild gives
exactly what the live path built (and a fixed bug re-derives everything: `bidwire rebuild`). Checks come from
validator.py and land in `alerts`.
"""
import json
import logging

from bidwire.core import board as boards
from bidwire.core.calls import seat_name
from bidwire_host.collector import attribution, event_setup, in_force, ruling_words, validator
from bidwire_host.collector.decisions.journal import fold
from bidwire_host.collector.store import DERIVED, Store, forget

log = logging.getLogger("bidwire.collector")


def _text(x):
    return None if x is None else str(x)


def _dump(x):
    return json.dumps(x, separators=(",", ":"), ensure_ascii=False)


def insert_alerts(conn, unit, seq, where, alerts):
    for a in alerts:
        conn.execute("INSERT INTO alerts (unit, seq, board, section, table_no, kind, law, detail, data) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (unit, seq, where.get("board"), where.get("section"), where.get("table_no"), a["kind"],
                      a["law"], a["detail"], _dump(a["data"])))


def _current_board(conn, unit, seq, board):
    """The unit's board row for `board`: the one it started last, or a new one if it never started it."""
    row = conn.execute("SELECT * FROM boards WHERE unit = ? ORDER BY start_seq DESC LIMIT 1", (unit,)).fetchone()
    if row is not None and row["board"] == board:
        return row
    cur = conn.execute("INSERT INTO boards (unit, start_seq, board, dealer, vul, mode, state) "
                       "VALUES (?, ?, ?, ?, ?, 'record', 'auction')",
                       (unit, seq, board, seat_name(boards.dealer(board)),
                        boards.VUL_NAMES[boards.vulnerability(board)]))
    row = conn.execute("SELECT * FROM boards WHERE id = ?", (cur.lastrowid,)).fetchone()
    insert_alerts(conn, unit, seq, dict(row), [validator.alert(
        "no_board_start", f"board {board}: events from unit {unit} for a board it did not start (seq {seq})")])
    return row


def _hello(conn, unit, seq, e, row):
    conn.execute("UPDATE units SET firmware = ?, hardware = ?, boot = ?, battery = ?, rssi = ?, backlog = ?, "
                 "hello_seq = ? WHERE unit = ?",
                 (_text(e.get("firmware")), _text(e.get("board")), e.get("boot"), e.get("battery"), e.get("rssi"),
                  e.get("backlog"), seq, unit))


def _board_start(conn, unit, seq, e, row):
    board = e["board"]
    cur = conn.execute(
        "INSERT INTO boards (unit, start_seq, board, section, table_no, round, ns, ew, dealer, vul, mode, state) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'auction')",
        (unit, seq, board, _text(e.get("section")), e.get("table"), e.get("round"), _text(e.get("ns")),
         _text(e.get("ew")), e.get("dealer"), e.get("vul"), e.get("mode") or "record"))
    conn.execute("UPDATE units SET board = ? WHERE unit = ?", (board, unit))
    for table in ("irregularities", "director_calls"):  # the board redone: what was open on it is superseded
        conn.execute(f"UPDATE {table} SET state = 'superseded', outcome = ?, closed_seq = ? WHERE unit = ? "
                     f"AND board = ? AND state = 'open' AND seq < ?",
                     (f"superseded: board {board} started again (event {seq})", seq, unit, board, seq))
    start = dict(conn.execute("SELECT * FROM boards WHERE id = ?", (cur.lastrowid,)).fetchone())
    insert_alerts(conn, unit, seq, start, validator.check_board_start(conn, cur.lastrowid, start))


def _call(conn, unit, seq, e, row):
    conn.execute("UPDATE boards SET calls = calls + 1 WHERE id = ?", (row["id"],))


def _irregularity(conn, unit, seq, e, row):
    settled = e.get("settled")
    law = e.get("law")
    state, outcome = ("settled", f"settled by the law at once{f' (Law {law})' if law else ''}") if settled \
        else ("open", None)
    if not settled and not e.get("options"):
        state, outcome = "settled", "nothing for the director to rule: the unit offered no options"
    conn.execute("INSERT INTO irregularities (unit, seq, board_id, board, kind, law, offender, call, entitled, "
                 "options, t, at, state, outcome, closed_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (unit, seq, row and row["id"], e.get("board"), e.get("kind"), law, e.get("offender"),
                  _text(e.get("call")), e.get("entitled"), _dump(e.get("options") or []), e.get("t"),
                  e.get("at") if isinstance(e.get("at"), int) else None, state, outcome,
                  seq if state != "open" else None))
    if row is not None:  # the options the unit offered against the core's (one rule, one place)
        insert_alerts(conn, unit, seq, dict(row), validator.check_irregularity(row["board"], e))


def _close_irregularity(conn, unit, seq, row, at, outcome):
    """Settle the open irregularity `at` on the unit's board (the latest open one if the unit named none)."""
    board_id = row and row["id"]
    if isinstance(at, int):
        target = conn.execute("SELECT seq FROM irregularities WHERE unit = ? AND board_id IS ? AND at = ? "
                              "AND state = 'open' ORDER BY seq DESC LIMIT 1", (unit, board_id, at)).fetchone()
    else:
        target = conn.execute("SELECT seq FROM irregularities WHERE unit = ? AND board_id IS ? AND state = 'open' "
                              "ORDER BY seq DESC LIMIT 1", (unit, board_id)).fetchone()
    if target is not None:
        conn.execute("UPDATE irregularities SET state = 'settled', outcome = ?, closed_seq = ? WHERE unit = ? "
                     "AND seq = ?", (outcome, seq, unit, target[0]))


SETTLED = {"accepted": "accepted at the table: the next player called", "condoned": "condoned at the table",
           "cancelled": "cancelled by the law", "withdrawn": "withdrawn at the table"}


def _settled(conn, unit, seq, e, row):
    how = str(e.get("how") or "settled")
    text = SETTLED.get(how, f"settled at the table ({how})")
    if e.get("seat"):
        text += f" — {e['seat']}"
    _close_irregularity(conn, unit, seq, row, e.get("at"), text)


def _td_call(conn, unit, seq, e, row):
    conn.execute("INSERT INTO director_calls (unit, seq, board_id, board, seat, t) VALUES (?, ?, ?, ?, ?, ?)",
                 (unit, seq, row and row["id"], e.get("board"), e.get("seat"), e.get("t")))


def _seated(conn, unit, seq, e, row):
    """A side's answer at a round's start: a side that is not the pair the movement seats there calls the
    director ("table 3 NS: pair 7 expected, pair 5 confirmed"); the director records who sat (decisions: seated)."""
    if e.get("confirmed"):
        return
    where = dict(row) if row is not None else {"board": e.get("board")}
    table = where.get("table_no")
    name = f"table {table} " if table is not None else ""
    member = e.get("member")
    found = _member(conn, where.get("section"), member) if member is not None else None
    who = f"pair {e.get('pair')}" if member is None else f"member {member}" + (f" ({found})" if found else "")
    insert_alerts(conn, unit, seq, where, [validator.alert(
        "wrong_pair", f"{name}{e.get('side')}: pair {e.get('expected')} expected, {who} confirmed "
        f"(round {e.get('round')}; Law 15: record who sat there)", law=15, side=e.get("side"), pair=e.get("pair"),
        expected=e.get("expected"), round=e.get("round"))])


def _member(conn, section, number):
    """"Ann Smith, NS 5": the player of the event with membership number `number` and his pair, or None."""
    s = event_setup.load(conn)
    sec = s.section(section) if s is not None and section is not None else None
    for p in (sec.pairs if sec is not None else ()):
        for player in p.players:
            if player.id is not None and str(player.id) == str(number):
                return f"{player.name}, {(p.line + ' ') if p.line else ''}pair {p.number}"
    return None


def _td_end(conn, unit, seq, e, row):
    conn.execute("UPDATE director_calls SET state = 'settled', outcome = ?, closed_seq = ? WHERE unit = ? "
                 "AND state = 'open' AND seq < ?", ("the director ended the call at the table", seq, unit, seq))


def _ruling_applied(conn, unit, seq, e, row):
    at = e.get("at") if isinstance(e.get("at"), int) else None
    conn.execute("INSERT INTO rulings (unit, seq, board_id, board, ruling, seat, by_whom, verdict, law, t, at) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (unit, seq, row and row["id"], e.get("board"), e.get("ruling"), e.get("seat"), e.get("by"),
                  e.get("verdict"), e.get("law"), e.get("t"), at))
    if e.get("ruling") != "pass_next_turn" or at is not None:
        by = {"table": "at the table", "collector": "from the director's page"}.get(e.get("by"), e.get("by") or "")
        label = ruling_words.LABELS.get(e.get("ruling"), str(e.get("ruling")))
        _close_irregularity(conn, unit, seq, row, at, f"ruled: {label.lower()}" + (f", applied {by}" if by else ""))
    if e.get("by") == "table":  # the director ruled at the table: the call is over
        _td_end(conn, unit, seq, e, row)


def _ruling_refused(conn, unit, seq, e, row):
    conn.execute("INSERT INTO rulings (unit, seq, board_id, board, ruling, seat, by_whom, verdict, law, t, at) "
                 "VALUES (?, ?, ?, ?, ?, ?, 'collector', 'refused', NULL, ?, ?)",
                 (unit, seq, row and row["id"], e.get("board"), e.get("ruling"), e.get("seat"), e.get("t"),
                  e.get("at") if isinstance(e.get("at"), int) else None))
    insert_alerts(conn, unit, seq, dict(row) if row else {"board": e.get("board")}, [validator.alert(
        "ruling_not_applied", f"board {e.get('board')}: the unit did not apply the ruling "
        f"\"{ruling_words.LABELS.get(e.get('ruling'), str(e.get('ruling')))}\" (irregularity at {e.get('at')}): "
        f"{e.get('reason') or 'no longer pending'}", at=e.get("at"),
        ruling=e.get("ruling"))])


def _auction_end(conn, unit, seq, e, row):
    contract, declarer, alerts = validator.check_auction_end(row["board"], row["mode"], e)
    conn.execute("UPDATE boards SET inputs = ?, contract = ?, declarer = ?, unit_contract = ?, unit_declarer = ?, "
                 "state = 'ended' WHERE id = ?",
                 (_dump(e.get("inputs")), contract, declarer, e.get("contract"), e.get("declarer"), row["id"]))
    insert_alerts(conn, unit, seq, dict(row), alerts)


def _lead(conn, unit, seq, e, row):
    conn.execute("UPDATE boards SET lead = ?, state = 'play' WHERE id = ?", (e.get("suit"), row["id"]))
    insert_alerts(conn, unit, seq, dict(row), validator.check_lead(conn, event_setup.load(conn), row["board"], e))


def _result(conn, unit, seq, e, row, received):
    contract, declarer, score, alerts = validator.check_result(row["board"], row["contract"], row["declarer"], e)
    tricks = e.get("tricks")
    held, expected = attribution.check(conn, event_setup.load(conn), fold(conn), unit, row, received)
    conn.execute("INSERT INTO results (unit, seq, board_id, board, section, table_no, round, ns, ew, contract, "
                 "declarer, tricks, score_ns, unit_contract, unit_declarer, unit_score_ns, entered_by, confirmed_by, "
                 "lead, t, held, expected) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (unit, seq, row["id"], row["board"], row["section"], row["table_no"], row["round"], row["ns"],
                  row["ew"], contract, declarer, tricks if isinstance(tricks, int) else None, score,
                  _text(e.get("contract")), _text(e.get("declarer")), e.get("score_ns"), e.get("entered_by"),
                  e.get("confirmed_by"), e.get("lead") or row["lead"], e.get("t"), _dump(held) if held else None,
                  _dump(expected) if expected else None))
    if held:
        alerts.append(validator.alert("held_result", f"board {row['board']}: result held for the director — "
                                      + "; ".join(held), reasons=held, expected=expected))
    conn.execute("UPDATE boards SET state = 'done' WHERE id = ?", (row["id"],))
    alerts += validator.check_result_unique(conn, unit, seq, dict(row))
    alerts += validator.check_double_dummy(conn, row["board"], contract, declarer, tricks)
    insert_alerts(conn, unit, seq, dict(row), alerts)


def check_stored_results(conn, numbers, only=None):
    """Check the stored results of boards `numbers` against the stored double-dummy analysis, as `_result`
    checks a result when it arrives: for the results stored before the analysis (it lands seconds after the
    event loads) and for a scorer's correction. Only the results in force are checked (in_force: not held or
    voided, corrected as corrected, not replaced by a later result of the same table and board, not under an
    adjustment), each raising its `suspicious_result` once: a result with that alert already
    (open or closed: alert key alert:U:S:suspicious_result) gets no second. `only`: one result (unit, seq).
    Returns the number of alerts raised."""
    numbers = sorted(set(numbers))
    if not numbers:
        return 0
    marks = ", ".join("?" * len(numbers))
    scored = [r for r in in_force.stored(conn, None, f" WHERE board IN ({marks})", numbers).values()
              if r["board"] in numbers and r["unit"] is not None]  # a director's entry is no unit's event
    alerted = {(a[0], a[1]) for a in conn.execute("SELECT unit, seq FROM alerts WHERE kind = 'suspicious_result'")}
    tables = {b: validator.stored_analysis(conn, b) for b in numbers}
    raised = 0
    for r in scored:
        if only is not None and (r["unit"], r["seq"]) != tuple(only) or (r["unit"], r["seq"]) in alerted:
            continue
        alerts = validator.check_double_dummy(conn, r["board"], r["contract"], r["declarer"], r["tricks"],
                                              tables[r["board"]])
        insert_alerts(conn, r["unit"], r["seq"], r, alerts)
        raised += len(alerts)
    return raised


# Event type -> (handler, whether it belongs to a board row). hello and note change no board.
HANDLERS = {
    "hello": (_hello, False),
    "board_start": (_board_start, False),
    "call": (_call, True),
    "irregularity": (_irregularity, True),
    "td_call": (_td_call, True),
    "td_end": (_td_end, True),
    "settled": (_settled, True),
    "ruling_applied": (_ruling_applied, True),
    "ruling_refused": (_ruling_refused, True),
    "auction_end": (_auction_end, True),
    "lead": (_lead, True),
    "result": (_result, True),
    "seated": (_seated, True),
    "note": (None, False),
}


def apply(conn, unit, seq, event, received):
    """Derive what one stored event implies. A failure here is an alert, never a lost or refused event."""
    conn.execute("INSERT INTO units (unit) VALUES (?) ON CONFLICT (unit) DO NOTHING", (unit,))
    last = conn.execute("SELECT last_seq FROM units WHERE unit = ?", (unit,)).fetchone()[0] or 0
    if seq > last + 1:  # events that never arrived: a unit's store that lost its tail, a replaced unit renumbering
        insert_alerts(conn, unit, seq, {"board": event.get("board") if isinstance(event.get("board"), int) else None},
                      [validator.alert("seq_gap", f"unit {unit}: events {last + 1}-{seq - 1} never arrived (the next "
                                       f"stored is {seq}); ask the unit's table what happened", first=last + 1,
                                       last=seq - 1)])
    conn.execute("UPDATE units SET events = events + 1, last_seq = ?, last_t = ?, last_received = ? WHERE unit = ?",
                 (seq, event.get("t"), received, unit))
    handler, on_board = HANDLERS.get(event.get("type"), (None, False))
    if handler is None:
        return
    conn.execute("SAVEPOINT derive")
    try:
        board = event.get("board")
        row = None
        if on_board and isinstance(board, int) and board >= 1:
            row = _current_board(conn, unit, seq, board)
        elif on_board and event["type"] not in ("td_call", "td_end", "irregularity", "ruling_applied",
                                                "ruling_refused", "settled"):
            raise ValueError(f"a {event['type']} event needs a board number")
        if handler is _result:
            handler(conn, unit, seq, event, row, received)
        else:
            handler(conn, unit, seq, event, row)
        conn.execute("RELEASE derive")
    except Exception as e:  # a bug or an event the derivation cannot read: say so, keep the raw event
        forget(conn)  # nothing kept from inside the savepoint outlives it (store.py)
        conn.execute("ROLLBACK TO derive")
        conn.execute("RELEASE derive")
        log.exception("deriving %s seq %d", unit, seq)
        insert_alerts(conn, unit, seq, {"board": event.get("board") if isinstance(event.get("board"), int) else None},
                      [validator.alert("not_derived", f"event {seq} ({event.get('type')}) of unit {unit} could not "
                                       f"be derived: {type(e).__name__}: {e}", type=event.get("type"))])


def open_store(data_dir):
    """The data directory's store, re-derived by `rebuild` when a migration changes a derived table."""
    return Store(data_dir, rebuild=rebuild)


def rebuild(conn):
    """Empty the derived tables and apply every stored event again, in arrival order; returns the event count.

    Runs in the caller's transaction (the writer's, or `bidwire rebuild`'s)."""
    for table in DERIVED:
        conn.execute(f"DELETE FROM {table}")
    count, last = 0, 0
    while True:
        rows = conn.execute("SELECT id, unit, seq, received, body FROM events WHERE id > ? ORDER BY id LIMIT 1000",
                            (last,)).fetchall()
        if not rows:  # and what the events alone do not give: corrections checked against double dummy
            check_stored_results(conn, [r[0] for r in conn.execute("SELECT DISTINCT board FROM analysis")])
            return count
        for r in rows:
            apply(conn, r["unit"], r["seq"], json.loads(r["body"]), r["received"])
        count += len(rows)
        last = rows[-1]["id"]
