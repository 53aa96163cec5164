"""Event setup in the collector: the event file, which unit sits at which table, and the rounds (docs/collector.md).

The setup is kept in the store (table `setup`, one row, not derived): the event file's JSON, the unit -> table
map, the scoring method and the round each section has been sent. `start_round` queues a round's `assign`
commands (seating.assignments) for the units at those tables and a `message` for a table whose pair sits out;
`advance` (run in every sync's transaction) starts the next round of a section once every table of its round
has reported a result for its last board.
"""
import json

from bidwire_host.collector import commands, in_force, roster, team_events
from bidwire_host.collector.decisions.journal import fold
from bidwire_host.event import model as event_mod
from bidwire_host.event import seating, team_schedule

METHODS = ("mp", "neuberg", "cross-imps", "butler", "teams")  # scoring.session.METHODS
TEAM_METHODS = ("teams",)  # a two-table team match (movement "teams"); the others are for pairs


class SetupError(ValueError):
    """An event, table map or method the collector cannot use: the message says what is wrong."""


def parse_tables(text):
    """`T01=1,T02=2` (the only section) or `T01=A:1,T02=B:1` -> {unit: [section or None, table]}."""
    out = {}
    for part in (p.strip() for p in (text or "").split(",")):
        if not part:
            continue
        unit, sep, where = part.partition("=")
        section, _, table = where.rpartition(":")
        if not sep or not unit.strip() or not table.strip().isdecimal() or int(table) < 1:
            raise SetupError(f"--tables: {part!r} is not UNIT=TABLE or UNIT=SECTION:TABLE (e.g. T01=1)")
        out[unit.strip()] = [section.strip() or None, int(table)]
    return out


def check_tables(event, tables, session=None):
    """{unit: [section, table]} with the section filled in; SetupError for a table or section not in the event."""
    secs = {s.name: s for s in event.session(session).sections}
    out, seen = {}, {}
    for unit, where in tables.items():
        if isinstance(where, int):
            where = [None, where]
        if not isinstance(where, (list, tuple)) or len(where) != 2 or not isinstance(where[1], int):
            raise SetupError(f"tables: {unit}: a table number, or [section, table]")
        section, table = where
        if section is None:
            if len(secs) != 1:
                raise SetupError(f"tables: {unit}: say the section ({', '.join(secs)}), e.g. {unit}=A:{table}")
            section = next(iter(secs))
        if section not in secs:
            raise SetupError(f"tables: {unit}: no section {section!r} (sections: {', '.join(secs)})")
        tables_in = secs[section].movement_plan().tables
        if not 1 <= table <= tables_in:
            raise SetupError(f"tables: {unit}: section {section} has tables 1-{tables_in}, not {table}")
        if (section, table) in seen:
            raise SetupError(f"tables: {unit} and {seen[section, table]} both at section {section} table {table}")
        seen[section, table] = unit
        out[unit] = [section, table]
    return out


def seat_units(data, units, stored=None, session=None):
    """The table map for an event loaded with none given (`bidwire serve --event` alone): the map stored with the
    same event (a restart keeps the director's changes, a spare's table included), else the units in order at the
    event's tables in order, section by section, as many as there are of both (`units`: the keyring's, sorted)."""
    if stored is not None and stored.data == data:
        return dict(stored.tables)
    places = [[sec.name, t] for sec in event_mod.from_dict(data).session(session).sections
              for t in range(1, sec.movement_plan().tables + 1)]
    return dict(zip(units, places, strict=False))


class Setup:
    """The loaded event: `event` (event.Event), `tables` {unit: [section, table]}, `method`, `rounds` sent."""

    def __init__(self, data, tables, method, session, rounds):
        self.data, self.tables, self.method, self.session, self.rounds = data, tables, method, session, rounds
        self.event = event_mod.from_dict(data)
        self.units = {tuple(w): u for u, w in tables.items()}
        self._plays = None  # (section, table, round) -> the assign the movement gives that table
        self._boards = None  # (section, table, round) -> the boards of that assign

    def plays(self):
        """{(section, table, round): assign} for every round of the session's movement (computed once)."""
        if self._plays is None:
            out, r = {}, 1
            while True:
                try:
                    assigns = seating.assignments(self.event, r, self.session)
                except event_mod.EventError:
                    break
                if not assigns and r > max((sec.movement_plan().rounds for sec in
                                            self.event.session(self.session).sections), default=0):
                    break
                for a in assigns:
                    out[a["section"], a["table"], r] = a
                r += 1
            self._plays = out
        return self._plays

    def round_boards(self):
        """{(section, table, round): [boards]} of `plays`, read from the sections' plans alone (computed once):
        what the withheld boards, the lateness and the director's checks need, without building every table's
        assign and move text, which on a 400-section event took `bidwire export` seconds."""
        if self._boards is None:
            out = {}
            for sec in self.event.session(self.session).sections:
                plan = sec.movement_plan()
                for r in range(1, plan.rounds + 1):
                    for p in plan.in_round(r):
                        if not p.sit_out:
                            out[sec.name, p.table, r] = list(p.boards)
            self._boards = out
        return self._boards

    def unit_at(self, section, table):
        return self.units.get((section, table))

    def section(self, name):
        return next((s for s in self.event.session(self.session).sections if s.name == name), None)

    def two_fields(self, section):
        """NS k and EW k are different pairs (a Mitchell; the two lines of a team match), not in a Howell."""
        sec = self.section(section)
        # the movement's type, not its plan: building a plan walks every round of it, and the exports ask this for
        # every pair (collector/roster.key), which made one section's publication 5 times slower
        return sec is not None and (sec.is_teams or sec.keeps_lines) and not sec.one_winner

    def contestants(self, section, table, round_no, ns, ew):
        """(NS, EW) as the standings key a result's pairs: as the table named them, except in an arrow-switched
        Mitchell (one field, each pair keeping its line): "3NS", "5EW", the line the movement gives the pair that
        sat NS (an EW pair at a switched round) and EW, found from the table and round (the NS and EW lines when
        the result has none)."""
        sec = self.section(section)
        if sec is None or not sec.one_winner or ns is None or ew is None:
            return ns, ew
        here = sec.movement_plan().at(table, round_no) if table is not None and round_no is not None else None
        lines = (here.ns.line, here.ew.line) if here is not None and here.ns and here.ew else ("NS", "EW")
        return f"{ns}{lines[0]}", f"{ew}{lines[1]}"


_cache = {}


def load(conn):
    """The Setup in the store, or None (no event loaded)."""
    row = conn.execute("SELECT body, tables, method, session, rounds FROM setup WHERE id = 1").fetchone()
    if row is None:
        return None
    key = tuple(row)
    s = _cache.get(key)
    if s is None:
        _cache.clear()
        s = _cache[key] = Setup(json.loads(row["body"]), json.loads(row["tables"]), row["method"], row["session"],
                                json.loads(row["rounds"]))
    return s


def prepare(data, tables, method="neuberg", session=None, register=None):
    """Check an event (its file's JSON), the unit -> table map and the method, the players completed from
    `register` (a register's CSV text) if given: (the event's JSON to store, the table map). Builds every
    section's movement, so it runs before the writer's transaction (collector/service.load_event): a large event
    never holds a sync up. SetupError says what is wrong."""
    if method not in METHODS:
        raise SetupError(f"method: one of {', '.join(METHODS)}, not {method!r}")
    try:
        event = event_mod.from_dict(data, register=register)
        event.session(session)
    except event_mod.EventError as e:
        raise SetupError(f"event: {e}") from None
    if event.register is not None or register is not None:  # kept with the register's names and numbers filled in
        data = {k: v for k, v in event_mod.to_dict(event).items() if k != "register"}
    for sec in event.session(session).sections:
        teams = sec.is_teams
        if teams != (method in TEAM_METHODS):
            raise SetupError(f"method: section {sec.name} is a {sec.movement_plan().title}: score it with "
                             + ("teams" if teams else "mp, neuberg, cross-imps or butler") + f", not {method}")
        if event.session(session).across_field and method not in ("mp", "neuberg"):
            raise SetupError(f"method: the session's sections are matchpointed across the field: score them with mp "
                             f"or neuberg, not {method}")
        if sec.movement.type == "swiss-pairs" and method != "butler":
            raise SetupError(f"method: section {sec.name} is a Swiss pairs: each board is scored across the field in "
                             f"Butler IMPs, then each match in VPs: score it with butler, not {method}")
    return data, check_tables(event, tables, session)


def save(conn, data, tables, method="neuberg", session=None, start=True, register=None, prepared=False):
    """Check (unless `prepared`: `prepare` gave data and tables) and store an event, the unit -> table map and
    the method; queue round 1 unless `start` is False. Returns what start_round queued. In the writer's
    transaction."""
    if not prepared:
        data, tables = prepare(data, tables, method, session, register)
    old = load(conn)
    rounds = old.rounds if old is not None and old.data == data else {}
    conn.execute("INSERT INTO setup (id, body, tables, method, session, rounds) VALUES (1, ?, ?, ?, ?, ?) "
                 "ON CONFLICT (id) DO UPDATE SET body = excluded.body, tables = excluded.tables, "
                 "method = excluded.method, session = excluded.session, rounds = excluded.rounds",
                 (json.dumps(data), json.dumps(tables), method, session, json.dumps(rounds)))
    if start and not rounds:
        return start_round(conn, 1)
    return {"round": max(rounds.values(), default=None), "queued": [], "no_unit": []}


def add_draw(conn, section, matches):
    """Add a Swiss's next match round ([[home, away], ...]) to the stored event's section (its first round, made
    by the movement before any draw was pushed, written down with it); the rounds sent stay as they are. In the
    writer's transaction (decisions/draws.py, the one path)."""
    s = load(conn)
    data = json.loads(json.dumps(s.data))
    names = [x["name"] for x in data["sessions"]]
    session = data["sessions"][names.index(s.session) if s.session is not None else 0]
    sec = next(x for x in session["sections"] if x["name"] == section)
    kind = sec["movement"]["type"]
    entrants = len(sec.get("pairs" if kind == "swiss-pairs" else "teams", []))
    drawn = sec.get("draws") or [[list(m) for m in team_schedule.first_round(kind, entrants)]]
    sec["draws"] = [*drawn, [list(m) for m in matches]]
    event_mod.from_dict(data)  # checked as any event is
    conn.execute("UPDATE setup SET body = ? WHERE id = 1", (json.dumps(data),))


def start_round(conn, round_no, section=None, table=None):
    """Queue round `round_no`'s assign commands (and sit-out messages) for the units at its tables: of `section`
    (every section when None), and of its table `table` alone when given (the director moves one table on; the
    section's round stays where it is until the others follow).

    A command already queued for that unit, section, table and round is not queued again. Returns
    {"round", "queued": [{"unit", "command"}], "no_unit": [tables with no unit mapped]}."""
    s = load(conn)
    if s is None:
        raise SetupError("no event loaded: `bidwire serve --event FILE --tables ...` or POST /api/v1/event")
    try:
        assigns = seating.assignments(s.event, round_no, s.session)
        sits = seating.sit_outs(s.event, round_no, s.session)
    except event_mod.EventError as e:
        raise SetupError(str(e)) from None
    queued, missing, sections = [], [], set()
    if table is not None and section is None and len(s.event.session(s.session).sections) > 1:
        raise SetupError("section: say which section the table is in")
    if table is not None and not any(a["table"] == table and section in (None, a["section"]) for a in assigns + sits):
        raise SetupError(f"table: no table {table} plays round {round_no}")
    assigns = ask_who_sits(conn, s, assigns)
    for a in assigns:
        if section is not None and a["section"] != section or table is not None and a["table"] != table:
            continue
        sections.add(a["section"])
        unit = s.unit_at(a["section"], a["table"])
        if unit is None:
            missing.append({"section": a["section"], "table": a["table"]})
        elif commands.assignment(conn, unit, a["section"], a["table"], round_no) is None:
            queued.append({"unit": unit, "command": commands.enqueue(conn, unit, a)})
            said = team_events.match_message(s.section(a["section"]), a) or seating.round_notice(s.event, a, s.session)
            if said is not None:  # a teams event's match begins (the unit says which, and who is home), or an
                # arrow-switched round (the pairs change seats)
                queued.append({"unit": unit, "command": commands.enqueue(conn, unit, {"type": "message",
                                                                                        "text": said})})
    for so in sits:
        if section is not None and so["section"] != section or table is not None and so["table"] != table:
            continue
        sections.add(so["section"])
        unit = s.unit_at(so["section"], so["table"])
        if unit is not None:
            queued.append({"unit": unit, "command": commands.enqueue(conn, unit, {"type": "message",
                                                                                    "text": so["text"][:48]})})
    rounds = dict(s.rounds)
    for name in sections if table is None else ():
        rounds[name] = max(rounds.get(name, 0), round_no)
    conn.execute("UPDATE setup SET rounds = ? WHERE id = 1", (json.dumps(rounds),))
    return {"round": round_no, "queued": queued, "no_unit": missing}


def ask_who_sits(conn, s, assigns):
    """The assigns as sent: with the event's evening.confirm_pairs, each asks the sides to confirm who sits there
    (`confirm`) and carries the pairs' names, NS then EW (docs/unit.md "Who is at the table")."""
    if not s.event.night().confirm_pairs:
        return assigns
    said = roster.by_line(conn, s)
    out = [dict(a, confirm=True, names=[_short(said, a["section"], line, a[line.lower()]) for line in ("NS", "EW")])
           for a in assigns]
    if s.event.night().member_numbers:  # each player's membership number, in the order of the names
        out = [dict(a, ids=[_ids(said, a["section"], line, a[line.lower()]) for line in ("NS", "EW")]) for a in out]
    return out


def _ids(said, section, line, pair):
    """The membership numbers of a pair's named players, in the order _short names them ("" for one with none)."""
    _, players = said.get((section, line, str(pair)), ("", []))
    return [str(p.id)[:12] if p.id else "" for p in players if p.name][:4]


def _short(said, section, line, pair):
    """A pair's names as a unit's row shows them: surnames, "Smith/Jones" (at most 40 characters)."""
    _, players = said.get((section, line, str(pair)), ("", []))
    return "/".join(p.name.split()[-1] for p in players if p.name)[:40]


def round_complete(conn, s, section, round_no, state=None):
    """Every table of the section's round has played every board of its assignment (a result in force, one the
    director entered, or an adjusted score: in_force.done) or has it marked for late play (late_play.py): nothing of
    a round is left behind without a record. `state`: the decisions folded, read if not given."""
    state = state if state is not None else fold(conn)
    played = in_force.stored(conn, state, " WHERE section = ? AND round = ?", (section, round_no))  # one read
    return all(key in state.late or key in state.adjustments or key in played
               for a in seating.assignments(s.event, round_no, s.session) if a["section"] == section
               for key in ((section, a["table"], b) for b in a["boards"]))


def advance(conn, candidates=None):
    """Start the next round of every section whose current round is complete; the start_round answers.
    `candidates`: the (section, round) pairs a sync's new results belong to (only those can have completed);
    None looks at every section (after a director's decision)."""
    s = load(conn)
    if s is None:
        return []
    out = []
    wanted = None if candidates is None else set(candidates)
    for section, r in sorted(s.rounds.items()):
        if wanted is not None and (section, r) not in wanted:
            continue
        sec = s.section(section)
        if sec is None or not round_complete(conn, s, section, r):
            continue
        if r < sec.movement_plan().rounds:
            out.append(start_round(conn, r + 1, section))
            s = load(conn)
    return out
