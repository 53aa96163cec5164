"""A unit's sync, protocol v1 (docs/architecture.md §4), as the collector service takes it in (service.py's
`sync`; the route is sync.py).

In order: the body is read whole by the app's body guard (body_limit.py: 413 over MAX_BODY, 408 too slow);
parsed far enough to name the unit (400); the unit looked up in the keyring (403); the X-Bidwire-Signature
checked, the hex HMAC-SHA256 of the raw body with the unit's secret, in constant time (401); the body validated
(400, an unknown event type included). Then, in one transaction of the single writer: events with a seq above
the unit's highest stored are stored and derived, those at or below it are acknowledged again and not stored
twice; a result for a board the unit's assignment does not hold is refused (409) and the whole batch with it.
Only after the commit is the answer sent: {"ack": highest seq stored, "commands": [commands with seq above the
cmd_ack reported]}.
"""
import json
import logging
import math
import re

from bidwire.core.auction import MAX_INPUTS
from bidwire_host import signing
from bidwire_host.collector import barometer, commands, derive, event_setup, match_scores, unit_traveller
from bidwire_host.collector.sync_body import Malformed, beat_of, check_body, event_of

log = logging.getLogger("bidwire.collector")

PATH = "/api/v1/sync"
SIGNATURE = "X-Bidwire-Signature"
MAX_BODY = 256 * 1024


class Rejected(Exception):
    def __init__(self, status, reason, conflict=None):
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.unit = None  # the unit the body names, once known
        self.conflict = conflict  # (seq, stored, sent) when a stored seq came again with other content


def _int(text):
    n = int(text)
    if not -2**63 <= n < 2**63:
        raise ValueError(f"integer {text if len(text) < 24 else text[:20] + '...'} is out of the 64-bit range")
    return n


def _float(text):
    x = float(text)
    if not math.isfinite(x):
        raise ValueError(f"number {text if len(text) < 24 else text[:20] + '...'} is out of range")
    return x


def _constant(name):
    raise ValueError(f"{name} is not a JSON number")


_LONG_DIGITS = re.compile(rb"[0-9]{19}")  # 2**63 has 19 digits: any shorter integer fits the store's 64 bits
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def unit_of(raw):
    """The parsed body and the unit it names, enough to find the key; 400 if it is not even that.

    Also refused: what the store could not keep (integers beyond 64 bits, strings with a lone UTF-16
    surrogate escape) and what is not JSON though Python's parser takes it (NaN, Infinity, 1e999)."""
    # The two checks below cost a Python call per integer and a second encoding of the whole body: on the bytes of
    # a request they run only when the text could hold what they look for (19 digits in a row, a \\uD800-\\uDFFF
    # escape); anything else passed in (a str) is always checked.
    text = raw if isinstance(raw, bytes | bytearray) else None
    careful = {"parse_int": _int} if text is None or _LONG_DIGITS.search(text) else {}
    try:
        body = json.loads(raw, parse_float=_float, parse_constant=_constant, **careful)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise Rejected(400, f"body is not JSON: {e}") from None
    if text is None or _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(body, ensure_ascii=False).encode()
        except UnicodeEncodeError as e:
            raise Rejected(400, f"body is not JSON text: a string holds a lone surrogate escape "
                                f"(\\u{ord(e.object[e.start]):04x}), not a character") from None
    if not isinstance(body, dict) or not isinstance(body.get("unit"), str):
        raise Rejected(400, "the body must be a JSON object with the unit id in 'unit'")
    return body, body["unit"]


def verify(key, raw, signature):
    if not signature:
        raise Rejected(401, f"missing {SIGNATURE} header: the hex HMAC-SHA256 of the body with the unit's secret")
    if not signing.valid(raw, key, signature):
        raise Rejected(401, f"bad signature: {SIGNATURE} is not the HMAC-SHA256 of the body with the unit's secret"
                            " (a wrong secret, or the body changed on the way)")


def _assigned(conn, unit, event):
    """Why a result is refused (409) under the unit's assignment, or None.

    The assignment is the one the unit played its last board_start under (section, table, round): a board
    started without one (no assign applied yet) is never refused, so events a unit made before its first
    assign cannot block its outbox."""
    row = conn.execute("SELECT board, section, table_no, round FROM boards WHERE unit = ? "
                       "ORDER BY start_seq DESC LIMIT 1", (unit,)).fetchone()
    if row is None or row["section"] is None:
        return None
    where = f"section {row['section']} table {row['table_no']} round {row['round']}"
    boards = commands.assignment(conn, unit, row["section"], row["table_no"], row["round"])
    if boards is None:
        return None  # an assignment this collector never sent: the validator alerts (unknown_assignment)
    if event["board"] not in boards:
        return f"event seq {event['seq']}: a result for board {event['board']}, not among the boards of " \
               f"the unit's assignment ({where}: boards {', '.join(map(str, boards))})"
    if event["board"] != row["board"]:
        return f"event seq {event['seq']}: a result for board {event['board']}, but the unit is playing " \
               f"board {row['board']} ({where})"
    return None


# Events whose derivation can open, settle or supersede an alert of the director's queue (derive.py): a sync that
# stores none of them, raises no alert and moves no cmd_ack leaves the queue as it was (the live pages skip it).
QUEUE_EVENTS = frozenset({"board_start", "irregularity", "td_call", "td_end", "settled", "ruling_applied",
                          "ruling_refused", "result"})


class Stored:
    """What a sync's writer job did: the ack, the unit's commands, and what changed for the after-commit step."""
    __slots__ = ("ack", "commands", "results", "alerts", "calls", "stale")

    def __init__(self, ack, cmds, results, alerts, calls, stale):
        self.ack, self.commands, self.results, self.alerts, self.calls, self.stale = \
            ack, cmds, results, alerts, calls, stale


# A board's call events: its input log holds at most MAX_INPUTS (an auction of 319 calls and its corrections, the
# core's bound); a call event is also sent for each alert and each press the unit refused, so a board may carry a
# few times that, never thousands.
CALLS_PER_BOARD = 4 * MAX_INPUTS


def _bounded(conn, unit, event):
    """Refuse (409) a call beyond what a board can hold: a unit gone wrong (or hostile) cannot flood the store."""
    row = conn.execute("SELECT id, board, calls FROM boards WHERE unit = ? ORDER BY start_seq DESC LIMIT 1",
                       (unit,)).fetchone()
    if row is not None and row["board"] == event.get("board") and row["calls"] >= CALLS_PER_BOARD:
        raise Rejected(409, f"event seq {event['seq']}: board {row['board']} already holds {row['calls']} calls, "
                            f"more than any auction can (at most {CALLS_PER_BOARD}: {MAX_INPUTS} inputs and the "
                            "alerts and refused presses beside them); call the director to the table")


def _same(stored_body, event):
    return json.loads(stored_body) == event


def store_batch(unit, boot, beat, cmd_ack, events, heard, received, raw=None, signature=None):
    """The writer job for one sync: a Stored. Rejected rolls the whole batch back.

    Liveness (`unit_sync.last_seen`) moves only with a batch that brings something new: an event stored, or a sync
    count (`beat`) above the one recorded for this boot. A batch with nothing new that does not move the count (a
    replayed body, a late duplicate) is a stale copy: acknowledged and counted, but it refreshes nothing (its answer
    carries the commands, as any: a duplicated request's answer may be the one that reaches the unit). `raw` and
    `signature`: the batch as signed, kept when it brings events (`bidwire verify`). `heard`: the event whose
    commands `cmd_ack` counts (the body's, signed with it): another one than the store's (last week's, or none yet)
    has applied none of this store's commands, which it is sent from the first (a unit that hears the store's
    event numbers its commands afresh); None (firmware that sends none) takes `cmd_ack` as it comes."""
    def job(conn):
        applied = cmd_ack if heard is None or heard == commands.store_event(conn) else 0
        highest = conn.execute("SELECT coalesce(max(seq), 0) FROM events WHERE unit = ?", (unit,)).fetchone()[0]
        alerts_before = conn.execute("SELECT coalesce(max(id), 0) FROM alerts").fetchone()[0]
        first = highest
        stored = duplicates = calls = 0
        batch = None
        queue_moved = False  # an event that opens, settles or supersedes an alert
        for event in events:
            seq = event["seq"]
            if seq <= highest:
                row = conn.execute("SELECT body FROM events WHERE unit = ? AND seq = ?", (unit, seq)).fetchone()
                if row is not None and not _same(row[0], event):
                    raise Rejected(409, f"event seq {seq} was stored with other content: a seq names one event "
                                        "for good (both versions are kept for the director)",
                                   conflict=(seq, row[0], json.dumps(event, separators=(",", ":"),
                                                                     ensure_ascii=False)))
                duplicates += 1
                continue  # stored already: acknowledged again, not stored twice
            if event["type"] == "result":
                why = _assigned(conn, unit, event)
                if why is not None:
                    raise Rejected(409, why)
            elif event["type"] == "call":
                _bounded(conn, unit, event)
            if batch is None and raw is not None:
                batch = conn.execute("INSERT INTO batches (unit, received, signature, body) VALUES (?, ?, ?, ?)",
                                     (unit, received, signature or "", raw)).lastrowid
            board = event.get("board")
            conn.execute("INSERT INTO events (unit, seq, type, board, boot, received, body, batch) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (unit, seq, event["type"], board if isinstance(board, int) else None, boot, received,
                          json.dumps(event, separators=(",", ":"), ensure_ascii=False), batch))
            derive.apply(conn, unit, seq, event, received)
            highest = seq
            stored += 1
            calls += event["type"] == "call"
            queue_moved = queue_moved or event["type"] in QUEUE_EVENTS
        before = conn.execute("SELECT boot, cmd_ack, beat FROM unit_sync WHERE unit = ?", (unit,)).fetchone()
        count = beat if beat is not None else 0
        if before is None:
            fresh = True
        elif beat is not None:
            fresh = (boot, beat) > (before["boot"], before["beat"])
        else:  # firmware without a sync count: only a moved (boot, cmd_ack) tells a new sync from a copy
            fresh = (boot, applied) > (before["boot"], before["cmd_ack"])
        stale = before is not None and not stored and not fresh
        if stale:
            conn.execute("UPDATE unit_sync SET duplicates = duplicates + ? WHERE unit = ?", (duplicates, unit))
        else:
            conn.execute("INSERT INTO unit_sync (unit, boot, cmd_ack, last_seen, duplicates, beat) "
                         "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (unit) DO UPDATE SET "
                         "boot = excluded.boot, cmd_ack = excluded.cmd_ack, last_seen = excluded.last_seen, "
                         "duplicates = duplicates + excluded.duplicates, beat = excluded.beat",
                         (unit, boot, applied, received, duplicates, count))
        results = []
        if highest > first:
            results = [dict(r) for r in conn.execute("SELECT * FROM results WHERE unit = ? AND seq > ? ORDER BY seq",
                                                     (unit, first))]
        if results and event_setup.load(conn) is not None:
            for r in results:  # the board's traveller so far, for the unit's score screen
                if r["section"] is not None and r["held"] is None:
                    unit_traveller.send_traveller(conn, r["section"], r["board"], [unit])
            match_scores.send(conn, event_setup.load(conn), results)
            event_setup.advance(conn, [(r["section"], r["round"]) for r in results if r["held"] is None])
            barometer.after(conn, [(r["section"], r["round"]) for r in results if r["held"] is None])
        alerts = conn.execute("SELECT coalesce(max(id), 0) FROM alerts").fetchone()[0] != alerts_before
        # The queue shows a ruling as on its way until the unit reports its command applied: a cmd_ack that passes
        # a ruling moves it (one that passes only assigns or travellers does not); so does a Law 26 lead choice, whose
        # alert closes once the unit has it
        acked = not stale and conn.execute(
            "SELECT 1 FROM commands WHERE unit = ? AND type IN ('ruling', 'lead_choice') AND seq > ? AND seq <= ? "
            "LIMIT 1",
            (unit, before["cmd_ack"] if before is not None else 0, applied)).fetchone() is not None
        # a copy still gets the unit's commands: the answer to the first may have been lost on the way while the
        # copy's arrives (a duplicated request), and only the unit itself can apply them
        return Stored(highest, commands.pending(conn, unit, applied), bool(results),
                      alerts or queue_moved or acked or bool(results), calls, stale)
    return job


def conflict_job(unit, seq, stored, sent, received):
    """Keep both versions of a seq sent again with other content (raw: the director's queue shows it)."""
    def job(conn):
        conn.execute("INSERT INTO seq_conflicts (unit, seq, stored, sent, first_at) VALUES (?, ?, ?, ?, ?) "
                     "ON CONFLICT (unit, seq, sent) DO UPDATE SET times = times + 1", (unit, seq, stored, sent,
                                                                                       received))
    return job


def admit(keyring, raw, signature, body, unit):
    """The unit known, the signature good, the body valid: (unit, boot, beat, cmd_ack, events, heard); else
    Rejected."""
    key = keyring.key(unit)
    if key is None:
        raise Rejected(403, f"unknown unit {unit!r}: provision it first (`bidwire provision`), "
                            "then give the collector that keyring")
    verify(key, raw, signature)
    try:
        unit, boot, cmd_ack, events = check_body(body)
    except Malformed as e:
        raise Rejected(400, str(e)) from None
    return unit, boot, beat_of(body), cmd_ack, events, event_of(body)
