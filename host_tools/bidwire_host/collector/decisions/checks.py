"""The checks the kinds of decision share: the section, table and board a decision names, the pairs of a section,
and the correction period (Law 79 C) that a correction made after it must override."""
from bidwire_host.collector.decisions.journal import ActionError, iso
from bidwire_host.event import seating


def _sections(s):
    return {sec.name: sec for sec in s.event.session(s.session).sections}


def pick_section(s, section):
    """The section `section` of the loaded event, or its only one when `section` is None; ActionError if none."""
    secs = _sections(s)
    if section is None:
        if len(secs) != 1:
            raise ActionError(f"section: say which section ({', '.join(secs)})")
        return next(iter(secs.values()))
    if section not in secs:
        raise ActionError(f"section: no section {section!r} (sections: {', '.join(secs)})", 404)
    return secs[section]


def _assignments(s, sec):
    plan = sec.movement_plan()
    for r in range(1, plan.rounds + 1):
        for a in seating.assignments(s.event, r, s.session):
            if a["section"] == sec.name:
                yield a


def where(s, section, table, board):
    """The assignment (section, table, round, ns, ew) that plays `board` at `table`; ActionError if none."""
    if s is None:
        raise ActionError("no event loaded: adjusted scores need the movement (POST /api/v1/event)", 409)
    sec = pick_section(s, section)
    tables = sec.movement_plan().tables
    if not 1 <= table <= tables:
        raise ActionError(f"table: section {sec.name} has tables 1-{tables}, not {table}", 404)
    boards = []
    for a in _assignments(s, sec):
        if a["table"] == table:
            if board in a["boards"]:
                return a
            boards += a["boards"]
    raise ActionError(f"board: board {board} is not played at section {sec.name} table {table} "
                      f"(its boards: {', '.join(map(str, sorted(boards))) or 'none'})", 404)


def contestants(s, sec):
    """The pairs (or teams) of a section as the standings key them: (line, number) in two fields, else number
    ("3NS", "3EW" in an arrow-switched Mitchell: roster.key)."""
    if sec.one_winner:
        return {f"{p.number}{p.line}" for p in sec.pairs}, False
    two = s.two_fields(sec.name) and s.method != "teams"
    out = set()
    for a in _assignments(s, sec):
        for line in ("NS", "EW"):
            pair = str(a[line.lower()])
            out.add((line, pair) if two else pair)
    return out, two


def pair_of(s, sec, line, value):
    """The pair number `value` sitting `line` (NS or EW) in section `sec`, as text; ActionError if there is none."""
    pairs, two = contestants(s, sec)
    pair = str(value).strip()
    if (((line, pair) if two else pair)) not in pairs:
        raise ActionError(f"{line.lower()}: no pair {line + ' ' if two else ''}{pair} in section {sec.name}", 404)
    return pair


def period_ended(state):
    return (f"the correction period ended at {iso(state.period.ends_at)} (Law 79 C: {state.period.minutes} minutes "
            f"after publication)")


def period_check(state, at, body):
    """Law 79 C: after the period only the director (`body["role"]`, as the login proved it), with the override;
    returns whether it is post-period. A republication after the period does not reopen it."""
    if state.period.is_open(at):
        return False
    if body.get("role", "director") != "director":
        raise ActionError(f"{period_ended(state)}; only the director can correct the scores now, from the "
                          "director's login", 403)
    if not body.get("override"):
        raise ActionError(f"{period_ended(state)}; only the director can correct the scores now: send it again "
                          "with \"override\": true and \"by\"", 409)
    if not body.get("by"):
        raise ActionError("by: a correction after the correction period needs the director's name")
    return True


def sat(state, a):
    """(ns, ew) who sat at assignment `a`'s table in its round, as text: the director's `seated` record if any, else
    the movement's pairs."""
    rec = state.seated.get((a["section"], a["table"], a["round"]))
    return (rec["ns"], rec["ew"]) if rec is not None else (str(a["ns"]), str(a["ew"]))
