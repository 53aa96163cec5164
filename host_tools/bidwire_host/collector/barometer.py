"""A barometer's running percentages on the units (issue 37, docs/movements.md "Barometer"): once every table has
finished a round, each table is told its pairs' percentages so far ("After round 3: pair 16 54.17%, pair 1
47.92%"), on the next round's start screen (or the last round's, at the end), until the first call. Run in the
writer's transaction after a sync's results or a director's decision (after event_setup.advance); each table told
once a round."""
from bidwire_host.collector import commands, event_setup
from bidwire_host.collector.decisions.journal import fold
from bidwire_host.collector.standings import Standings
from bidwire_host.scoring.model import format_number


def after(conn, candidates=None):
    """Tell the tables of each barometer section whose round among `candidates` ((section, round) pairs; None:
    each section's current and last rounds) is complete."""
    s = event_setup.load(conn)
    if s is None:
        return
    state = None
    wanted = set(candidates) if candidates is not None else None
    for sec in s.event.session(s.session).sections:
        if sec.movement.type != "barometer":
            continue
        current = s.rounds.get(sec.name, 0)
        for r in sorted({r for name, r in wanted if name == sec.name} if wanted is not None else
                        {current - 1, current} - {0}):
            state = state if state is not None else fold(conn)
            if 1 <= r <= sec.movement_plan().rounds and event_setup.round_complete(conn, s, sec.name, r, state):
                tell(conn, s, sec.name, r)


def tell(conn, s, section, round_done):
    """Queue, for each table of the round after `round_done` (or of `round_done`, the last), its two pairs'
    percentages over the boards scored so far."""
    sec = s.section(section)
    plan = sec.movement_plan()
    seated = round_done + 1 if round_done < plan.rounds else round_done
    scored = Standings()
    scored.load(conn, section)
    pct = {(r["direction"], str(r["pair"])): r["pct"] for r in scored.ranking() if r["section"] == section}
    two = sec.keeps_lines
    for p in plan.in_round(seated):
        unit = s.unit_at(section, p.table)
        if unit is None or p.sit_out:
            continue
        parts = []
        for line, pair in (("NS", p.ns), ("EW", p.ew)):
            number = str(sec.entrant(pair).number)
            figure = pct.get((line if two else None, number))
            if figure is not None:
                parts.append(f"{line if two else 'pair'} {number} {format_number(figure)}%")
        said = f"After round {round_done}: {', '.join(parts)}"[:48]
        if parts:
            commands.tell_once(conn, unit, said)

