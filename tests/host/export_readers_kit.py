"""The demo's session through a collector, for the reader tests (issue 27): `make demo`'s event (named pairs, hand
records dealt for it) and its scripted tables (demo/play.py, irregular auctions included) synced into a collector
as its units report a board, and the exports downloaded into files, as a scorer does.

`declarer_of` is the test's own reading of Law 22 / the Laws' definition: the declarer is the player of the side
that made the final bid who first named its denomination. It is applied to the seats a reader gives each call,
so that a reader's seats, not bidwire's, decide the declarer the test checks.
"""
import json
from pathlib import Path

from collector_kit import ApiClient, played, query, sync, write_keyring
from waiting import wait_until

from bidwire_host.demo.play import _table_play, demo_event, write_event
from bidwire_host.event import seating
from bidwire_host.scoring.model import law77_score
from bidwire_host.server import create_app
from bidwire_host.unit_tools.simulator import auction_inputs

SEED = 2026
TABLES = {"T01": 1, "T02": 2, "T03": 3}
SEATS = "NESW"


def denomination(call):
    return call[1:] if call[:1].isdigit() else None


def declarer_of(seated):
    """[(seat, call)] -> the declarer's seat, or None when passed out."""
    bids = [(seat, call) for seat, call in seated if denomination(call)]
    if not bids:
        return None
    seat, final = bids[-1]
    side = {seat, SEATS[(SEATS.index(seat) + 2) % 4]}
    return next(s for s, c in bids if s in side and denomination(c) == denomination(final))


def play_demo(root):
    """Play the demo's 3-table session into a collector in `root`; {"dir": exports folder, "recorded": {(table,
    board): ["N:1H", ...]}, "contracts": {(table, board): (contract, declarer, tricks)}, "pairs": {(table, board):
    (NS pair, EW pair)}, "event": the event, "refused": {url: (status, body)} of exports asked wrongly, "hands":
    the hand-record file}."""
    root = Path(root)
    data = root / "data"
    data.mkdir()
    write_keyring(data / "keyring.json")
    event = demo_event({"type": "mitchell", "tables": 3}, 2, SEED)
    path = root / "event.json"
    deals = write_event(event, path, SEED)
    recorded, contracts, pairs = {}, {}, {}
    out = root / "exports"
    out.mkdir()
    with ApiClient(create_app(data, event=path, tables=TABLES)) as c:
        seqs = dict.fromkeys(TABLES, 1)
        for rnd in (1, 2, 3):
            for a in seating.assignments(event, rnd):
                unit = f"T0{a['table']}"
                for board in a["boards"]:
                    calls, tricks, _ = _table_play(board, a["table"], SEED, deals.tables.get(board))
                    inputs, contract, declarer = auction_inputs(board, calls)
                    recorded[a["table"], board] = inputs
                    pairs[a["table"], board] = (a["ns"], a["ew"])
                    if declarer is None:
                        tricks = None
                    contracts[a["table"], board] = (contract, declarer, tricks)
                    score = 0 if declarer is None else law77_score(board, contract, declarer, tricks)
                    events = played(0, board, inputs, contract, declarer, tricks, score, section="A",
                                    table=a["table"], round=rnd, ns=a["ns"], ew=a["ew"])
                    # each call's press with a tempo, as a unit sends them: tenths of a second, made up here
                    presses = [{"type": "call", "board": board, "input": t, "seat": t[0], "verdict": "legal",
                                "law": 0, "alert": False, "tempo": 7 * k + board, "t": 1000}
                               for k, t in enumerate(inputs) if ":" in t]
                    events = events[:1] + presses + events[1:]
                    for k, e in enumerate(events):
                        e["seq"] = seqs[unit] + k
                    r = sync(c, events, unit=unit)
                    assert r.status_code == 200, r.text
                    seqs[unit] += len(events)
        wait_until(lambda: len(query(data, "SELECT board FROM analysis")) >= len(deals.hands), 120, 0.2,
                   "the hand records analysed (in the background)")
        for name, url in (("bidwire.pbn", "/api/v1/export/pbn"),
                          ("bidwire-marks.pbn", "/api/v1/export/pbn?irregular=marks"),
                          ("bidwire-lin.zip", "/api/v1/export/lin"),
                          ("bidwire-board-3.lin", "/api/v1/export/lin?board=3")):
            r = c.get(url)
            assert r.status_code == 200, r.text
            (out / name).write_bytes(r.content)
        refused = {url: (r.status_code, r.json()) for url in ("/api/v1/export/lin?board=99",
                                                              "/api/v1/export/pbn?irregular=caret",
                                                              "/api/v1/export/pbn?board=3")
                   for r in [c.get(url)]}
    (out / "recorded.json").write_text(json.dumps({f"{t}:{b}": v for (t, b), v in recorded.items()}))
    return {"dir": out, "recorded": recorded, "contracts": contracts, "pairs": pairs, "event": event, "deals": deals,
            "refused": refused, "hands": root / "event-hands.pbn"}

