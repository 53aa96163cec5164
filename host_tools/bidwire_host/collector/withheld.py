"""Which boards the club's public pages and exports withhold now: one rule, read by every one of them
(docs/collector.md "What the public sees"; issue 24 item 5, and the sim embargo of docs/hub.md).

A board is withheld, its deal, frequencies and every result of it, while

* a table still has to play it: the movement gives it to that table in some round, and the table has no result
  in force for it (in_force: held and not accepted, or voided, is none) and no adjusted score; so an early publication
  shows only the boards every table has finished, and the rest appear as the tables finish them; or
* it is a board of the event's sim and the sim's hub has not released it (`Service.embargoed`: every board while
  the hub has never been reached, or its secret cannot be read).

`to_play` is worked from the store (the writer's publication check uses it); `boards` from the service (pages).
"""
from bidwire_host.collector import in_force
from bidwire_host.collector.decisions.journal import fold

TO_PLAY = "still to be played"
SIM = "a board of the sim, until its hub releases it"


def to_play(conn, s, state=None):
    """{(section, table, board)} the movement still has a table play: no result counts for it, no adjusted score."""
    if s is None:
        return set()
    state = state if state is not None else fold(conn)
    done = set(state.adjustments) | set(in_force.stored(conn, state))
    return {(sec, table, b) for (sec, table, _), boards in s.round_boards().items() for b in boards
            if (sec, table, b) not in done}


def event_boards(s):
    return {b for boards in s.round_boards().values() for b in boards} if s is not None else set()


def boards(service):
    """{board: why it is withheld from the public now} for the service's store and event."""
    conn = service.store.reader()
    s = service.standings.setup
    out = {}
    for _, _, b in to_play(conn, s):
        out[b] = TO_PLAY
    if s is not None and s.event.sim is not None:
        for b in event_boards(s) | {b for sess in list(service.standings.sessions.values()) for b in sess.travellers}:
            if b not in out and service.embargoed(b):
                out[b] = SIM
    return out


def boards_stored(conn, s):
    """{board: why} as `boards`, from the store alone (`bidwire export`, no hub link): every board of a sim is
    withheld, since only the running collector's link knows whether the hub has released it."""
    out = {b: TO_PLAY for _, _, b in to_play(conn, s)}
    if s is not None and s.event.sim is not None:
        for b in event_boards(s):
            out.setdefault(b, SIM)
    return out


def describe(pending):
    """A short text of the tables still to play: 'section A table 2: boards 3, 4; ...' (at most 6 tables)."""
    tables = {}
    for sec, table, b in sorted(pending, key=lambda x: (str(x[0]), x[1], x[2])):
        tables.setdefault((sec, table), []).append(b)
    parts = [f"section {sec} table {t}: board{'s' if len(bs) > 1 else ''} {', '.join(map(str, bs))}"
             for (sec, t), bs in list(tables.items())[:6]]
    more = len(tables) - 6
    return "; ".join(parts) + (f"; and {more} tables more" if more > 0 else "")
