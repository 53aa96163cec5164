"""The traveller a unit shows once a board's result is confirmed (docs/unit.md "The score screen"): the board's results
in force in its section (in_force.py), sent as a `traveller` command.

What it shows is the club's choice (the event's `evening.unit_results`): "scores", each table's pairs, contract and
NS score; "percent", each result's contract, NS score and NS matchpoint percentage so far (Law 78 A among the results
in force; rounded half up to a whole per cent); "off", nothing. A decision that changes a board's results sends the
traveller again to the units whose results are in force on it.
"""
from bidwire_host.collector import commands, event_setup, in_force
from bidwire_host.scoring.matchpoints import units as mp_units

LIMIT = 40  # rows a traveller command carries at most


def _in_force_on(conn, section, board):
    """The board's results in force in the section (in_force), by table."""
    return sorted((r for r in in_force.stored(conn, None, " WHERE board = ?", (board,)).values()
                   if r["section"] == section and r["board"] == board),
                  key=lambda r: (r["table_no"] is None, r["table_no"] or 0, r["rowid_"]))


def _contract(r):
    return (r["contract"] or "") + (r["declarer"] or "") if r["contract"] != "Pass" else "Pass"


def traveller_rows(conn, section, board, mode="scores"):
    """The rows of a `traveller` command: [ns, ew, contract, NS score] by table; with `mode` "percent" a fifth, NS's
    matchpoint percentage among the results so far (50 for a lone result)."""
    rows = _in_force_on(conn, section, board)[:LIMIT]
    if mode != "percent":
        return [[r["ns"], r["ew"], _contract(r), r["score_ns"]] for r in rows]
    scores = [r["score_ns"] for r in rows]
    top = 2 * (len(scores) - 1)
    got = mp_units(scores)
    return [[r["ns"], r["ew"], _contract(r), r["score_ns"], (100 * u + top // 2) // top if top else 50]
            for r, u in zip(rows, got, strict=True)]


def send_traveller(conn, section, board, units=None):
    """Queue the board's traveller for `units`, by default every unit whose result is in force on it: after a
    scorer's correction or a director's decision their score screens follow the traveller that counts (a unit shows a
    traveller only while it is on that board). Nothing when the event's evening.unit_results is "off"."""
    s = event_setup.load(conn)
    mode = s.event.night().unit_results if s is not None else "scores"
    if mode == "off":
        return
    rows = traveller_rows(conn, section, board, mode)
    if units is None:
        units = sorted({r["unit"] for r in _in_force_on(conn, section, board) if r["unit"] is not None})
    for unit in units:
        commands.enqueue(conn, unit, {"type": "traveller", "board": board, "rows": rows})
