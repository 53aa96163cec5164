"""The loaded event's hand records with their stored double-dummy analysis, board by board (for the travellers,
the public results and the exports; bidwire_host/event/analysis.py computes the analysis)."""
import json

from bidwire.core.board import VUL_NAMES
from bidwire_host.collector import event_setup
from bidwire_host.event import files as event_files
from bidwire_host.event import model as event_mod


def boards(conn):
    """{board: {"hands": {seat: (spades, hearts, diamonds, clubs)}, "analysis": {"dd", "par"} or None, "dealer": seat
    letter, "vul": None/NS/EW/Both (the file's, Law 2's when it does not say)}} for every
    board of the session's hand-record file ({} without one, or when it cannot be read)."""
    s = event_setup.load(conn)
    if s is None:
        return {}
    try:
        records = event_files.hand_records(s.event, s.session)
    except event_mod.EventError:
        return {}
    stored = {(r["board"], r["deal"]): json.loads(r["body"])
              for r in conn.execute("SELECT board, deal, body FROM analysis")}
    out = {}
    for board, h in records.items():
        if h.deal is None or any(h.deal.hands.get(seat) is None for seat in "NESW"):
            continue
        out[board] = {"hands": h.deal.hands, "analysis": stored.get((board, h.deal.pbn("N"))),
                      "dealer": h.dealer, "vul": VUL_NAMES[h.vulnerable]}
    return out
