"""Which result counts: the one rule for the result in force at a table and board (docs/collector.md "The result
in force"). Standings, the double-dummy recheck, the withheld boards, a round's completion, the unit's traveller
and the director's grid all read it here.

A stored `results` row counts as decisions.journal.State.effective gives it (held and not accepted, or voided: it does
not; accepted: where the director credited it; corrected: as the scorer corrected it) when it has a section and a
host score. Of the rows that count for one section, table and board, the latest (rowid order: the writer's commit
order) is the one in force, in the place on the traveller of the first. A result the director entered for the table
and board (`enter`) stands instead of them, unless he accepted a held result for it after entering his; a director's
adjusted score for that table and board stands instead of any of them. A row with no table is a result of its own.
"""
from bidwire_host.collector.decisions.journal import fold


def counts(state, row):
    """The row as it counts (State.effective), or None: held and not accepted, voided, no section or no score."""
    r = state.effective(row)
    if r is None or r["section"] is None or r["score_ns"] is None:
        return None
    return r


def table_key(r):
    """(section, table, board) of a row as it counts; None for a row with no table."""
    return None if r["table_no"] is None else (r["section"], r["table_no"], r["board"])


def entered_row(item, state):
    """A result the director entered (an `enter` action) as a `results` row: no unit, `entered` the action; its
    pairs who sat there (State.pairs) unless the entry named them."""
    ns, ew = state.pairs(item)
    return {"unit": None, "seq": None, "rowid_": 0, "section": item["section"], "table_no": item["table"],
            "round": item["round"], "board": item["board"], "ns": ns, "ew": ew,
            "contract": item["contract"], "declarer": item["declarer"], "tricks": item["tricks"],
            "lead": item["lead"], "score_ns": item["score_ns"], "held": None, "entered": item}


def in_force(state, rows):
    """{key: the row in force} for `rows` in rowid order, in traveller order, and every result the director
    entered. The key is (section, table, board), or ("row", n) for the n-th row, which has no table; a table and
    board under an adjusted score is left out (`state.adjustments` holds it)."""
    out, accepted = {}, {}  # accepted: key -> (the id of the latest accept of a held result for it, that row)
    for n, row in enumerate(rows):
        r = counts(state, row)
        if r is None:
            continue
        key = table_key(r) or ("row", n)
        if key not in state.adjustments:
            out[key] = r
            res = state.resolutions.get((r["unit"], r["seq"]))
            if res is not None and res["decision"] == "accept" and res["id"] > accepted.get(key, (-1, None))[0]:
                accepted[key] = (res["id"], r)
    for key, item in state.entered.items():
        if key in state.adjustments:
            continue
        later = accepted.get(key)
        out[key] = later[1] if later is not None and later[0] > item["id"] else entered_row(item, state)
    return out


def candidates(conn, state, where="", args=()):
    """The stored rows that can be in force where `where` (" WHERE ...", with `args`) selects, in rowid order
    (each with `rowid_`): those rows, and every result a director's decision moved, which can land anywhere."""
    found = {r["rowid_"]: dict(r) for r in conn.execute(f"SELECT rowid AS rowid_, * FROM results{where}", args)}
    for unit, seq in state.resolutions:
        r = conn.execute("SELECT rowid AS rowid_, * FROM results WHERE unit = ? AND seq = ?", (unit, seq)).fetchone()
        if r is not None:
            found.setdefault(r["rowid_"], dict(r))
    return [found[k] for k in sorted(found)]


def stored(conn, state=None, where="", args=()):
    """in_force over the store's rows that `where` selects (candidates); `state`: the fold, read if not given.
    Filter the keys: a moved result may be in force elsewhere than the rows selected."""
    state = state if state is not None else fold(conn)
    return in_force(state, candidates(conn, state, where, args))


def done(conn, state, section, table, board):
    """Whether the table has a result in force for the board, or an adjusted score."""
    key = (section, table, board)
    return key in state.adjustments or key in state.entered or key in stored(
        conn, state, " WHERE section = ? AND table_no = ? AND board = ?", key)
