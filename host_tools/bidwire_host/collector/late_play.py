"""A board played late (docs/director.md "Slow play"): the director marks a board a table has not played as late
play, and says at which table its pairs play it (by default their own).

`late` (in the writer's transaction) records the decision (kind `late`) and queues an `assign` marked `late` for the
unit at that table: the board, and the section, table, round and pairs it belongs to in the movement. The unit keeps
it until the boards of the round in play are done and then plays it, before any next round, showing it as late play
(firmware: unit/app.py). Its result is credited to the table and round it belongs to (attribution.py accepts it from
the unit it was sent to). Meanwhile the board does not hold up its round (setup.round_complete) and stays withheld
from the public until it is played (withheld.py).
"""
from bidwire_host.collector import commands, in_force
from bidwire_host.collector.decisions.checks import where
from bidwire_host.collector.decisions.journal import ActionError, fold, insert


def late(conn, s, body, at):
    """Mark `body`'s board at its table as late play, at `body["at_table"]` (default: the same table); the stored
    action with the command queued."""
    a = where(s, body.get("section"), body["table"], body["board"])
    current = s.rounds.get(a["section"], 0)
    if a["round"] > current:
        raise ActionError(f"board {body['board']} is played at section {a['section']} table {a['table']} in round "
                          f"{a['round']}, and the section is in round {current}: a board is played late only once "
                          "its round has begun", 409)
    state = fold(conn)
    if in_force.done(conn, state, a["section"], a["table"], body["board"]):
        raise ActionError(f"board {body['board']} at section {a['section']} table {a['table']} has a result or an "
                          "adjusted score already: nothing to play late", 409)
    there = body.get("at_table") or a["table"]
    plan = s.section(a["section"]).movement_plan()
    if not isinstance(there, int) or isinstance(there, bool) or not 1 <= there <= plan.tables:
        raise ActionError(f"at_table: section {a['section']} has tables 1-{plan.tables}, not {there}", 404)
    unit = s.unit_at(a["section"], there)
    if unit is None:
        raise ActionError(f"at_table: no unit at section {a['section']} table {there}: give it one first", 409)
    move = f"Late play: bd {body['board']}, NS {a['ns']} v EW {a['ew']}"
    queued = commands.enqueue(conn, unit, dict(a, boards=[body["board"]], late=True, move=move[:96]))
    out = {"section": a["section"], "table": a["table"], "round": a["round"], "board": body["board"],
           "ns": str(a["ns"]), "ew": str(a["ew"]), "at_table": there, "unit": unit, "command": queued["seq"],
           "reason": (body.get("reason") or "").strip()}
    return insert(conn, "late", out, (body.get("by") or "").strip() or body.get("role") or "director", at, False)
