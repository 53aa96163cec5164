"""A spare unit takes a table (docs/deploy.md "A spare unit"; docs/director.md): the director gives a table of the
movement to any provisioned unit, in the middle of the session.

`give_table` (in the writer's transaction) puts the unit in the table map in place of the unit that had the table,
records the decision (kind `table`, for the audit), and queues for the spare the table's current round with only the
boards that the table has still to play (in_force.done: a result in force, entered or adjusted counts as played),
so nothing stored for the table is played again. The unit it replaces is told so by a message; from then on the
event gives the table to the spare, so whatever the old unit still sends for it is stored and held for the director
with that reason (attribution.py), and nothing it sent before is lost; the boards it had been sent for late play
and has not played go to the spare. A unit that has a table already is refused: give that table another unit first.
"""
import json

from bidwire_host.collector import commands, event_setup, in_force
from bidwire_host.collector.decisions.checks import pick_section
from bidwire_host.collector.decisions.journal import ActionError, fold, insert
from bidwire_host.event import seating


def _round_of(s, section):
    """The round the section has been sent (1 before any)."""
    return max(1, s.rounds.get(section, 1))


def give_table(conn, s, body, at):
    """Give `body`'s section and table to its unit; the stored action with the commands queued."""
    unit = body["unit"]
    if s is None:
        raise ActionError("no event loaded: a unit is given a table of the event's movement", 409)
    sec = pick_section(s, body.get("section"))
    table = body.get("table")
    tables = sec.movement_plan().tables
    if not isinstance(table, int) or isinstance(table, bool) or not 1 <= table <= tables:
        raise ActionError(f"table: section {sec.name} has tables 1-{tables}, not {table}", 404)
    old = s.unit_at(sec.name, table)
    if old == unit:
        raise ActionError(f"unit {unit} has section {sec.name} table {table} already", 409)
    if unit in s.tables:
        have = s.tables[unit]
        raise ActionError(f"unit {unit} has section {have[0]} table {have[1]}: give that table another unit first, "
                          "or choose a spare", 409)
    round_no = _round_of(s, sec.name)
    mapped = {u: w for u, w in s.tables.items() if u != unit and tuple(w) != (sec.name, table)}
    mapped[unit] = [sec.name, table]
    conn.execute("UPDATE setup SET tables = ? WHERE id = 1", (json.dumps(mapped),))
    state = fold(conn)
    queued = []
    a = next((x for x in seating.assignments(s.event, round_no, s.session)
              if x["section"] == sec.name and x["table"] == table), None)
    left = [] if a is None else [b for b in a["boards"] if (sec.name, table, b) not in state.late
                                 and not in_force.done(conn, state, sec.name, table, b)]
    if left:
        [a] = event_setup.ask_who_sits(conn, s, [a])
        queued.append(commands.enqueue(conn, unit, dict(a, boards=left)))
    else:
        text = f"Table {table}: round {round_no} played. Wait for the next round."
        queued.append(commands.enqueue(conn, unit, {"type": "message", "text": text[:48]}))
    if old is not None:
        text = f"Unit {unit} has table {table} now"
        commands.enqueue(conn, old, {"type": "message", "text": text[:48]})
        for (lsec, ltable, board), item in sorted(state.late.items()):  # its boards for late play, still to play
            if item["unit"] == old and not in_force.done(conn, state, lsec, ltable, board):
                sent = json.loads(conn.execute("SELECT body FROM commands WHERE unit = ? AND seq = ?",
                                               (old, item["command"])).fetchone()[0])
                queued.append(commands.enqueue(conn, unit, {k: v for k, v in sent.items() if k != "seq"}))
    out = {"unit": unit, "section": sec.name, "table": table, "replaces": old, "round": round_no, "boards": left,
           "reason": (body.get("reason") or "").strip()}
    item = insert(conn, "table", out, (body.get("by") or "").strip() or body.get("role") or "director", at, False)
    return dict(item, commands=queued)
