"""What the players are told: the end-of-round move shown on a unit, and the movement as a printable guide.

A unit shows an assign command's `move` on four 16-character lines, cut every 16 characters
(firmware/bidwire/unit/screens.py, the MOVE screen), so `move_text` pads each line to 16 characters:

    NS stay         |EW to table 3   |Boards: table 2
"""
from __future__ import annotations

from bidwire_host.event import individual
from bidwire_host.event.team_schedule import KINDS as TEAM_EVENTS
from bidwire_host.event.team_schedule import match_of

COLS = 16
MOVE_LINES = 4


def move_text(plan, table, round_no):
    """Where the pairs and boards of `table` go after `round_no`, as the unit's MOVE screen shows it."""
    here = plan.at(table, round_no)
    if here is None:
        raise ValueError(f"table {table} does not play round {round_no} of the {plan.title}")
    if plan.kind in TEAM_EVENTS:
        return wrap(_match_move(plan, here, round_no))
    if plan.kind == "individual":
        return wrap(_player_moves(plan, here, round_no) if round_no < plan.rounds else ["End of session",
                                                                                          "Thank you"])
    if plan.kind == "swiss-pairs" and plan.rounds <= round_no < plan.full_rounds:
        return wrap([f"Match {round_no} over", "Next match: see the draw"])
    if round_no >= plan.rounds:
        return wrap(["End of session", "Thank you"])
    phrases = [_pair_move(plan, here, pair, round_no) for pair in here.pairs()]
    return wrap([*phrases, _board_move(plan, here, round_no)])


def _match_move(plan, here, round_no):
    """A teams event's table after a half: the boards go to the match's other table at half time; after the
    match, where the pairs go (a round robin's next match), or the wait for a Swiss's draw, or the end."""
    match, _, half = match_of(here.table, round_no)
    if half == 1:
        other = here.table + 1 if here.table % 2 else here.table - 1
        return ["Half time", f"Swap boards with table {other}", "Pairs stay"]
    if round_no >= plan.full_rounds:
        return [f"Match {match} over", "End of session", "Thank you"]
    if round_no >= plan.rounds:
        return [f"Match {match} over", "Next match: see the draw"]
    return [f"Match {match} over", *(_pair_move(plan, here, pair, round_no) for pair in here.pairs())]


def _player_moves(plan, here, round_no):
    """An individual's table after a round: where each of its four players sits next ("16>T1N 1>T4E ...")."""
    out = []
    nxt = {p: f"T{there.table}{seat}" for there in plan.in_round(round_no + 1)
           for seat, p in zip("NSEW", individual.seated_at(there), strict=True)}
    for p in individual.seated_at(here):
        out.append(f"{p}>{nxt.get(p, 'out')}")  # a player no table seats next round sits it out
    return [" ".join(out)]


def _seat(play, pair):
    return "NS" if play.ns == pair else "EW"


def _pair_move(plan, here, pair, round_no):
    seat, there = _seat(here, pair), plan.sitting(pair, round_no + 1)
    if there is None or there.sit_out:
        return f"{seat} sit out"
    to = _seat(there, pair)
    if there.table == here.table:
        return f"{seat} stay" if to == seat else f"{seat} stay, as {to}"
    return f"{seat} to table {there.table}" if to == seat else f"{seat} to {there.table} as {to}"


def _board_move(plan, here, round_no):
    tables = plan.tables_playing(here.set, round_no + 1)
    if not tables:
        later = any(plan.tables_playing(here.set, r) for r in range(round_no + 2, plan.rounds + 1))
        return "Boards: relay" if later else "Boards: finished"
    if tables == (here.table,):
        return "Boards stay"
    if len(tables) == 1:
        return f"Boards: table {tables[0]}"
    return "Boards: " + "+".join(f"T{t}" for t in tables)


def sit_out_text(plan, pair, round_no):
    """What a pair sitting out `round_no` (its opponents are the phantom) does next; at most 48 characters."""
    there = plan.sitting(pair, round_no + 1)
    then = "" if there is None else f", then table {there.table} {_seat(there, pair)}"
    return f"{pair}: sit out round {round_no}{then}"


def wrap(phrases):
    """Phrases on 16-character lines (a phrase longer than a line is word-wrapped); lines padded but the last.
    If they need more than four lines, the phrases run on, separated by semicolons."""
    lines = []
    for phrase in phrases:
        lines += _words(phrase)
    if len(lines) > MOVE_LINES:
        lines = _words("; ".join(phrases))
    return "".join(line.ljust(COLS) for line in lines[:-1]) + (lines[-1] if lines else "")


def _words(text):
    lines, line = [], ""
    for word in text.split():
        while len(word) > COLS:  # a word longer than a line is cut
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:COLS])
            word = word[COLS:]
        if line and len(line) + 1 + len(word) > COLS:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def _span(boards):
    return f"{boards[0]}" if len(boards) == 1 else f"{min(boards)}-{max(boards)}"


def guide(plan, name=lambda pair: str(pair)):
    """The movement round by round, one line per table: text for a director's printout or a terminal.
    `name(pair)` labels a pair (default "NS 3", "pair 5")."""
    board_list = list(plan.boards())
    per = f"{plan.boards_per_round} board{'s' if plan.boards_per_round > 1 else ''}"
    if plan.kind == "swiss-pairs":
        out = [f"{plan.title}: {plan.full_rounds} matches of {per}, every table on the same boards (boards "
               f"{_span(board_list)})" + (f"; {plan.rounds} drawn so far" if plan.rounds < plan.full_rounds else "")]
    elif plan.kind in TEAM_EVENTS:
        out = [f"{plan.title}: {plan.full_rounds // 2} matches of {2 * plan.boards_per_round} boards, in halves of "
               f"{per} (boards {_span(board_list)})"
               + (f"; {plan.rounds // 2} drawn so far" if plan.rounds < plan.full_rounds else "")]
    else:
        out = [f"{plan.title}: {plan.rounds} rounds of {per} "
               f"(boards {_span(board_list)}, {plan.sets} sets)"
               + ("" if plan.rounds == plan.full_rounds else f", curtailed from {plan.full_rounds} rounds")]
    for r in range(1, plan.rounds + 1):
        out.append(f"Round {r}" if plan.kind not in TEAM_EVENTS else
                   f"Round {r}: match {(r + 1) // 2}, {'first' if r % 2 else 'second'} half")
        for p in plan.in_round(r):
            ns = "phantom" if p.ns is None else name(p.ns)
            ew = "phantom" if p.ew is None else name(p.ew)
            share = f" (shared with table {', '.join(str(t) for t in p.shared_with)})" if p.shared_with else ""
            out.append(f"  table {p.table}: {ns} v {ew}, boards {_span(p.boards)}{share}")
        # a match round plays its own sets, duplicated at every table
        relay = plan.relay(r) if plan.kind not in (*TEAM_EVENTS, "swiss-pairs") and \
            not plan.kind.startswith("barometer") else ()
        if relay:
            out.append("  relay: boards " + ", ".join(_span(plan.board_numbers(s)) for s in relay))
    return out
