"""Helpers for the collector tests: a keyring, signed sync bodies, events that tell a board, row counts."""
import hashlib
import hmac
import json
import sqlite3

from fastapi.testclient import TestClient

from bidwire.core import readback, record
from bidwire.core.auction import Auction
from bidwire.core.board import VUL_NAMES, dealer, vulnerability
from bidwire.core.calls import seat_name
from bidwire_host.collector import commands
from bidwire_host.collector.store import DB_NAME

SECRETS = {"T01": "5a" * 32, "T02": "a5" * 32, "T03": "3c" * 32}
TABLES = ("events", "unit_sync", "commands", "units", "boards", "results", "irregularities", "rulings",
          "director_calls", "alerts", "setup", "director_actions", "idempotency", "batches", "seq_conflicts",
          "analysis", "hub_outbox", "hub_sent", "store_event")


class ApiClient(TestClient):
    """The app in process, calling the director's API with the collector's API token (apiauth.py)."""

    def __init__(self, app, **kw):
        super().__init__(app, **kw)
        self.headers["Authorization"] = f"Bearer {app.state.api_token}"


def write_keyring(path, units=SECRETS):
    path.write_text(json.dumps({"units": {u: {"secret": s} for u, s in units.items()}}))
    return path


def sign(raw, unit="T01", secret=None):
    return hmac.new(bytes.fromhex(secret or SECRETS[unit]), raw, hashlib.sha256).hexdigest()


def body(events, unit="T01", boot=1, cmd_ack=0):
    return json.dumps({"unit": unit, "boot": boot, "cmd_ack": cmd_ack, "events": events}).encode()


def post(client, raw, unit="T01", signature=None, headers=None):
    """POST raw bytes (or a dict, dumped) to the sync endpoint, signed with the unit's secret unless given."""
    if isinstance(raw, dict):
        raw = json.dumps(raw).encode()
    h = {"X-Bidwire-Signature": signature if signature is not None else sign(raw, unit)}
    h.update(headers or {})
    return client.post("/api/v1/sync", content=raw, headers=h)


def store_event(client):
    """The event id of the client's collector store (commands.store_event): what its assigns carry."""
    return commands.store_event(client.app.state.service.store.reader())


def sync(client, events, unit="T01", boot=1, cmd_ack=0):
    """The events as a unit that has this collector's assigns sends them: a board_start under an assignment (a
    section) names this store's event unless the test gives one (the unit copies it from the assign)."""
    def unbound(e):
        return e.get("type") == "board_start" and e.get("section") is not None and "event" not in e
    if any(unbound(e) for e in events):
        tonight = store_event(client)
        events = [{**e, "event": tonight} if unbound(e) else e for e in events]  # the caller's list kept as it was
    return post(client, body(events, unit, boot, cmd_ack), unit)


def counts(data_dir):
    """Rows in every table: the store compared before and after a refused sync."""
    conn = sqlite3.connect(data_dir / DB_NAME)
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        conn.close()


def query(data_dir, sql, *args):
    conn = sqlite3.connect(data_dir / DB_NAME)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, args)]
    finally:
        conn.close()


def assign(client, unit="T01", section="A", table=1, round=1, boards=(1, 2), ns=None, ew=None):
    """Queue an assign command for the unit through the API; returns its seq."""
    command = {"type": "assign", "section": section, "table": table, "round": round, "boards": list(boards)}
    command.update({k: v for k, v in (("ns", ns), ("ew", ew)) if v is not None})
    r = client.post(f"/api/v1/units/{unit}/commands", json=command)
    assert r.status_code == 201, r.text
    return r.json()["command"]["seq"]


def hello(seq, boot=1, backlog=0, battery=87):
    return {"seq": seq, "type": "hello", "boot": boot, "backlog": backlog, "firmware": "bidwire-unit 0.3",
            "board": "unix_sim", "battery": battery, "rssi": -61, "t": 1000}


def board_start(seq, board, **assignment):
    a = {"section": None, "table": None, "round": None, "ns": None, "ew": None}
    a.update(assignment)
    return {"seq": seq, "type": "board_start", "board": board, "dealer": seat_name(dealer(board)),
            "vul": VUL_NAMES[vulnerability(board)], "mode": "record", **a, "t": 1000}


def auction_end(seq, board, inputs, contract=None, declarer=None):
    """The unit's auction_end: contract and declarer as the core gives them, unless forged."""
    a = Auction(dealer(board))
    for token in inputs:
        readback.apply(a, token)
    s = record.summary(a)
    return {"seq": seq, "type": "auction_end", "board": board, "inputs": list(inputs), "auction": s["auction"],
            "contract": contract if contract is not None else s["contract"],
            "declarer": declarer if declarer is not None else s["declarer"], "reviews": [], "log": [], "t": 1000}


def result(seq, board, contract, declarer, tricks, score_ns):
    return {"seq": seq, "type": "result", "board": board, "contract": contract, "declarer": declarer,
            "tricks": tricks, "score_ns": score_ns, "entered_by": declarer, "confirmed_by": "E", "t": 1000}


# Board 1 (dealer N, nobody vulnerable): 4S by North making ten tricks, +420 (Law 77).
FOUR_SPADES = ["N:1S", "E:P", "S:2S", "W:P", "N:4S", "E:P", "S:P", "W:P"]


def played(seq, board=1, inputs=FOUR_SPADES, contract="4S", declarer="N", tricks=10, score_ns=420, **assignment):
    """A whole board as a unit reports it: board_start, auction_end, lead, result (seqs from `seq`)."""
    leader = "NESW"[("NESW".index(declarer) + 1) % 4] if declarer else None
    events = [board_start(seq, board, **assignment), auction_end(seq + 1, board, inputs)]
    if leader:
        events.append({"seq": seq + 2, "type": "lead", "board": board, "seat": leader, "suit": "C", "t": 1000})
    events.append(result(seq + len(events), board, contract, declarer, tricks, score_ns))
    return events
