"""The event decides who played what (docs/collector.md, "Held results").

A unit's result is a claim: it is credited to the pairs the movement seats at the unit's table in that round,
for a board of that round. `check` compares the claim with the event; whatever differs holds the result (stored,
not scored, shown to the director, who accepts it as played — re-attributed — or voids it: decisions.results.resolve).
A result that arrives after the results were published is held too when its table already has a result for that
board (a board played again, a changed result), so that a published traveller never changes without a recorded
decision (Law 79 C); the first result of a board a table still had to play (an early publication, withheld.py)
is scored, so that the rounds go on. A result for a table and board the director has entered a result for
(decisions.results.enter) is held too: it never silently replaces his. So is a result of a board started under an
assign of another event than the store's (its board_start's `event`, commands.store_event): a unit's batch from
last week, replayed or late, never counts tonight. With no event loaded there is nothing to check a
claim against: results are then scored as the units report them (until publication).
"""
import json
from datetime import datetime

from bidwire_host.collector import commands


def _text(x):
    return None if x is None else str(x)


def _replaces(conn, unit, row):
    """Whether a result is stored already for the board row's section, table and board (with no table: for its
    unit and board). Checked before the new result is stored, so every row found is another result."""
    if row["table_no"] is None:
        return conn.execute("SELECT 1 FROM results WHERE unit = ? AND board = ? LIMIT 1",
                            (unit, row["board"])).fetchone() is not None
    return conn.execute("SELECT 1 FROM results WHERE section IS ? AND table_no = ? AND board = ? LIMIT 1",
                        (row["section"], row["table_no"], row["board"])).fetchone() is not None


def _started_under(conn, unit, row):
    """The event the board row's board_start names (the assign it was played under), or None."""
    body = conn.execute("SELECT body FROM events WHERE unit = ? AND seq = ?", (unit, row["start_seq"])).fetchone()
    return None if body is None else json.loads(body[0]).get("event")


def check(conn, s, state, unit, row, received):
    """(reasons, expected) for the result of board row `row` (its section, table, round, board and pairs as
    the unit reported them): reasons [] when the event agrees. `s`: the loaded setup (setup.Setup) or None;
    `state`: the director's decisions folded (decisions.journal.State), for the publication."""
    reasons = []
    if state.period.published_at is not None and state.period.published_at <= datetime.fromisoformat(received) \
            and _replaces(conn, unit, row):
        reasons.append(f"the results were published at {state.period.published_at.isoformat(timespec='seconds')}:"
                       " a result that comes later changes them only by a decision")
    section, table, round_no, board = row["section"], row["table_no"], row["round"], row["board"]
    entered = state.entered.get((section, table, board))
    if entered is not None:
        reasons.append(f"the director entered a result for section {section} table {table} board {board} "
                       f"({entered['by']}, {entered['at']}): a unit's result replaces it only by a decision")
    if s is None:  # nothing to check a claim against (a practice table, a test): scored as reported
        return reasons, None
    if section is None:
        reasons.append(f"unit {unit} played board {board} without an assignment (no section, table or round)")
        return reasons, None
    started = _started_under(conn, unit, row)
    tonight = commands.store_event(conn)
    if started != tonight:
        reasons.append(f"board {board} was started under an assignment of another event "
                       f"({started or 'none named'}), not this one ({tonight}): a batch from another session")
    sec = s.section(section)
    if sec is None:
        names = ", ".join(x.name for x in s.event.session(s.session).sections)
        reasons.append(f"section {section!r} is not in the event (sections: {names})")
        return reasons, None
    plan = sec.movement_plan()
    if not isinstance(table, int) or not 1 <= table <= plan.tables:
        reasons.append(f"section {section} has tables 1-{plan.tables}, not {table}")
        return reasons, None
    owner = s.unit_at(section, table)
    sent = commands.assignment(conn, unit, section, table, round_no)
    late = commands.late_boards(conn, unit, section, table, round_no)  # boards sent to this unit for late play
    if owner != unit and board not in late:
        reasons.append(f"the event gives section {section} table {table} to "
                       f"{'unit ' + owner if owner else 'no unit'}, not to unit {unit}")
    plays = s.plays()
    expected = plays.get((section, table, round_no))
    in_event = {b for (sn, _, _), a in plays.items() if sn == section for b in a["boards"]}
    if expected is None:
        reasons.append(f"section {section} table {table} plays no round {round_no} "
                       f"(rounds 1-{plan.rounds})")
    elif sent is None and board not in late:
        reasons.append(f"round {round_no} was never sent to unit {unit} at table {table}: the round has not "
                       "been reached")
    if board not in in_event:
        reasons.append(f"board {board} is not in the event (section {section} plays boards "
                       f"{min(in_event, default=0)}-{max(in_event, default=0)})")
    elif expected is not None and board not in expected["boards"]:
        reasons.append(f"board {board} is not played at table {table} in round {round_no} (its boards: "
                       f"{', '.join(map(str, expected['boards']))})")
    if expected is not None:
        claimed = (_text(row["ns"]), _text(row["ew"]))
        seated = (_text(expected["ns"]), _text(expected["ew"]))
        sat = state.seated.get((section, table, round_no))  # the director recorded who sat there: it counts for them
        if claimed != seated and (sat is None or claimed != (sat["ns"], sat["ew"])):
            reasons.append(f"the unit names NS {claimed[0] or '?'} / EW {claimed[1] or '?'}; the movement seats "
                           f"NS {seated[0]} / EW {seated[1]} at table {table} in round {round_no}")
    want = None if expected is None else {"section": section, "table": table, "round": round_no,
                                          "boards": expected["boards"], "ns": _text(expected["ns"]),
                                          "ew": _text(expected["ew"])}
    return reasons, want
