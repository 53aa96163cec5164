"""What a round means at the tables of an event (docs/movements.md): `assignments` (the collector's `assign`
commands), `sit_outs` (the `message` to a table whose pair sits out), `check_board_start` (a unit's
board_start against the movement, Law 15) and `describe` (the session's movements as text). The event and
its movement plans are bidwire_host.event.model's.
"""
from __future__ import annotations

from bidwire_host.event import individual
from bidwire_host.event.model import EventError, Team
from bidwire_host.event.movecards import guide, move_text, sit_out_text

__all__ = ["ARROW_SWITCH", "assignments", "check_board_start", "describe", "round_notice", "sit_outs"]

ARROW_SWITCH = "Arrow switch: NS pair sits EW, EW pair sits NS"  # a unit's message (48 characters at most)


def assignments(event, round_no, session=None):
    """The `assign` commands of round `round_no` (no seq: the collector numbers them), table by table and
    section by section; a table whose pair sits out (against the phantom) gets none (see `sit_outs`)."""
    out = []
    for sec in _sections_in_round(event, round_no, session):
        plan = sec.movement_plan()
        for p in plan.in_round(round_no):
            if not p.sit_out:
                out.append({"type": "assign", "section": sec.name, "table": p.table, "round": round_no,
                            "boards": list(p.boards), "ns": sec.entrant(p.ns).number, "ew": sec.entrant(p.ew).number,
                            "move": move_text(plan, p.table, round_no)})
    return out


def round_notice(event, assign, session=None):
    """What a table is told as its round starts, beside its assign: at an arrow-switched round of a Mitchell, that
    the pairs change seats (ARROW_SWITCH); None for any other."""
    sec = next((c for c in event.session(session).sections if c.name == assign["section"]), None)
    if sec is not None and sec.movement.type == individual.KIND:  # each seat's player
        return individual.seat_text(sec.movement_plan(), assign["table"], assign["round"])
    here = sec.movement_plan().at(assign["table"], assign["round"]) if sec is not None else None
    return ARROW_SWITCH if here is not None and here.switched else None


def sit_outs(event, round_no, session=None):
    """The pairs sitting out round `round_no`: [{"section", "table", "round", "pair", "text"}], `text` fit for
    a unit's `message` command (48 characters at most)."""
    out = []
    for sec in _sections_in_round(event, round_no, session):
        plan = sec.movement_plan()
        for p in plan.in_round(round_no):
            for pair in p.pairs() if p.sit_out else ():
                out.append({"section": sec.name, "table": p.table, "round": round_no,
                            "pair": sec.entrant(pair).number, "text": sit_out_text(plan, pair, round_no)})
    return out


def check_board_start(event, table, round_no, board, ns, ew, *, section=None, session=None):
    """None if the movement has this board at this table in this round with these pairs (as the assign
    command numbered them; None: not said), else what is wrong (Law 15: a wrong board or wrong pairs)."""
    s = event.session(session)
    if section is None and len(s.sections) == 1:
        sec = s.sections[0]
    else:
        sec = next((c for c in s.sections if c.name == section), None)
        if sec is None:
            return (f"Law 15: board {board} started in section {section!r}, and session {s.name!r} has sections "
                    f"{', '.join(c.name for c in s.sections)}")
    plan = sec.movement_plan()
    where = f"section {sec.name}, table {table}, round {round_no}"
    if not 1 <= round_no <= plan.rounds:
        return f"Law 15: {where}: section {sec.name}'s movement has rounds 1-{plan.rounds}"
    here = plan.at(table, round_no)
    if here is None:
        return f"Law 15: {where}: section {sec.name} has tables 1-{plan.tables}"
    if here.sit_out:
        return (f"Law 15: {where}: {_label(sec, here.ns or here.ew)} sits out this round (the phantom is their "
                "opponent); no board is played here")
    problems = []
    if board not in here.boards:
        problems.append(f"board {board} is not played here (boards {_span(here.boards)}); "
                        f"{_whereabouts(plan, board, round_no)}")
    for said, due, line in ((ns, here.ns, "NS"), (ew, here.ew, "EW")):
        number = sec.entrant(due).number
        if said is not None and str(said) != str(number):
            problems.append(f"{line} should be {_label(sec, due)}, not {said}"
                            + _when_due(sec, plan, said, line, board, table))
    return f"Law 15: {where}: " + "; ".join(problems) if problems else None


def describe(event, session=None):
    """The session's movements as text, section by section, for `bidwire event create` and the director."""
    s = event.session(session)
    out = [f"{event.name}, {s.name}" + (f" ({s.date})" if s.date else "")]
    for sec in s.sections:
        lines = guide(sec.movement_plan(), lambda pair, sec=sec: _label(sec, pair))
        out.append(f"Section {sec.name}: {lines[0]}")
        out += lines[1:]
    return "\n".join(out)


def _sections_in_round(event, round_no, session):
    secs = [c for c in event.session(session).sections if 1 <= round_no <= c.movement_plan().rounds]
    if not secs:
        raise EventError(f"round {round_no}: no section of the session plays that round (rounds 1-"
                         f"{max(c.movement_plan().rounds for c in event.session(session).sections)})")
    return secs


def _label(sec, pair):
    """A pair as players know it: NS 3, pair 5, or a team's name and line."""
    who = sec.entrant(pair)
    if isinstance(who, Team):
        return f"{who.name} ({pair.line})"
    if sec.movement.type == individual.KIND:
        return f"players {who.number.replace('+', ' and ')}"
    return str(pair)


def _whereabouts(plan, board, round_no):
    if board not in plan.boards():
        return "it is not in play in this section"
    tables = plan.tables_playing((board - plan.first_board) // plan.boards_per_round + 1, round_no)
    return f"it is at table {' and '.join(str(t) for t in tables)} this round" if tables else \
        "it is on the relay this round"


def _span(boards):
    return f"{boards[0]}" if len(boards) == 1 else f"{min(boards)}-{max(boards)}"


def _when_due(sec, plan, said, line, board, table):
    """Where the pair that sat down here plays this board in the movement, if elsewhere (Law 15)."""
    for pid in plan.pairs():
        who = sec.entrant(pid)
        if who is None or str(who.number) != str(said) or (pid.line and pid.line != line):
            continue
        for r in range(1, plan.rounds + 1):
            there = plan.sitting(pid, r)
            if there is not None and not there.sit_out and board in there.boards and there.table != table:
                return f" ({_label(sec, pid)} plays board {board} at table {there.table} in round {r})"
    return ""

