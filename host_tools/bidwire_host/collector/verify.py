"""`bidwire verify`: every stored event checked against the batch its unit signed (docs/security.md).

The sync endpoint keeps each batch that brought events as the unit signed it (table `batches`: the raw body and
its X-Bidwire-Signature). Here each batch's signature is checked again with the key the unit had when the batch
came (the keyring's key history: `bidwire provision --force` keeps a rotated secret under `retired` with the dates
it was in force), and each stored event must be, field for field and column for column (unit, type, board), the
event of that seq in its batch. Every event must have a batch, and each unit's seqs must run 1, 2, 3 ... without a
gap. Events stored before batches were kept (before schema 6 was applied) are counted apart: they cannot be
checked.

Not covered: the director's and scorer's decisions (`director_actions`: adjustments, corrections, publication)
are not signed by anybody, so nothing here can tell a forged decision from a real one; nor can it tell a gap the
unit made (a journal that lost its tail, alerted `seq_gap` when it came) from events deleted from the store.
"""
import json
from datetime import datetime, timedelta, timezone

from bidwire_host import signing
from bidwire_host.collector.store import schema_problems

NOT_COVERED = ("not checked: the director's and scorer's decisions (adjusted scores, corrections, publication) "
               "are signed by nobody; a seq gap may be the unit's own (a seq_gap alert when it came)")


def _when(text):
    """A stored or keyring timestamp as an aware datetime (UTC when it names no zone); None if unreadable."""
    try:
        t = datetime.fromisoformat(str(text).replace(" ", "T"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


class KeyHistory:
    """Each unit's secrets with the dates they were in force, from the keyring file.

        {"units": {"T01": {"secret": hex, "created": iso,
                           "retired": [{"secret": hex, "from": iso, "until": iso}, ...]}}}
    """

    def __init__(self, ring):
        self._keys = {}
        for unit, entry in (ring.get("units") or {}).items():
            periods = []
            for old in entry.get("retired") or []:
                try:
                    periods.append((_when(old.get("from")), _when(old.get("until")), bytes.fromhex(old["secret"])))
                except (KeyError, TypeError, ValueError, AttributeError):
                    continue
            try:
                current = bytes.fromhex(entry["secret"])
            except (KeyError, TypeError, ValueError):
                continue
            since = max((u for _, u, _ in periods if u is not None), default=None)
            periods.append((since, None, current))
            self._keys[unit] = periods

    def known(self, unit):
        return unit in self._keys

    def in_force(self, unit, at):
        """The key the unit had at `at` (its only key when it was never rotated), or None."""
        periods = self._keys.get(unit, [])
        if len(periods) == 1:
            return periods[0][2]
        for start, until, key in periods:
            if at is not None and (start is None or start <= at) and (until is None or at < until):
                return key
        return None

    def period_of(self, unit, key):
        for start, until, k in self._keys.get(unit, []):
            if k == key:
                return start, until
        return None


def _signs(key, body, signature):
    return signing.valid(body, key, signature)


def _iso(t):
    return t.isoformat(timespec="seconds") if t else "the start"


def _check_batch(history, b):
    """(the batch's events by seq, its unit) or a problem's text."""
    unit, body, at = b["unit"], bytes(b["body"]), _when(b["received"])
    if not history.known(unit):
        return f"batch {b['id']}: unit {unit} is not in the keyring, its signature cannot be checked"
    key = history.in_force(unit, at)
    if key is None or not _signs(key, body, b["signature"]):
        other = next((k for _, _, k in history._keys[unit] if k != key and _signs(k, body, b["signature"])), None)
        if other is not None:
            start, until = history.period_of(unit, other)
            return (f"batch {b['id']} of unit {unit}: received {b['received']}, but signed with the key in force from "
                    f"{_iso(start)} until {_iso(until) if until else 'now'}")
        return f"batch {b['id']} of unit {unit}: the signature does not match its body"
    try:
        signed = json.loads(body)
        events = signed["events"]
    except (ValueError, KeyError, TypeError):
        return f"batch {b['id']} of unit {unit}: the signed body is not a sync body"
    if signed.get("unit") != unit:
        return f"batch {b['id']}: stored as unit {unit}'s, but signed for unit {signed.get('unit')}"
    return {e.get("seq"): e for e in events if isinstance(e, dict)}


# A store made afresh runs its migrations one after another in well under this; one that took schema 6 later, as
# an upgrade, took it when a newer bidwire first opened it, after its sessions had been played
MADE_WITHIN = timedelta(minutes=1)


def _batches_from(conn):
    """When batches began to be kept (schema 6 applied), or None if the store always kept them: made at schema 6
    or later, its migrations applied together (their times, to the second, may straddle a second or two)."""
    rows = dict(conn.execute("SELECT version, applied FROM schema_version").fetchall())
    if rows.get(6) is None:
        return None
    kept, made = _when(rows[6]), _when(rows[min(rows)])
    if kept is None or made is None or kept - made < MADE_WITHIN:
        return None  # every event came with its batch
    return kept


def verify(conn, ring):
    """{"batches", "events", "unverifiable", "problems": [text], "not_covered"} for the store on `conn`; `ring` is
    the keyring's JSON."""
    history = KeyHistory(ring)
    good, units_of = {}, {}
    # the schema first: a trigger no migration wrote can rewrite what the checks below read (issue 39 finding 8)
    problems = [f"schema: {p}" for p in schema_problems(conn)]
    ids = []
    for b in conn.execute("SELECT id, unit, received, signature, body FROM batches ORDER BY id"):
        ids.append(b["id"])
        units_of[b["id"]] = b["unit"]
        checked = _check_batch(history, b)
        if isinstance(checked, str):
            problems.append(checked)
        else:
            good[b["id"]] = checked
    for before, after in zip(ids, ids[1:], strict=False):
        if after > before + 1:
            problems.append(f"batches {before + 1}-{after - 1} are missing (batch ids run {before}, then {after})")
    kept_from = _batches_from(conn)
    events = unverifiable = 0
    seen = {}  # batch id -> seqs stored from it
    seqs = {}  # unit -> its stored seqs
    for e in conn.execute("SELECT id, unit, seq, type, board, received, batch, body FROM events ORDER BY id"):
        events += 1
        seqs.setdefault(e["unit"], []).append(e["seq"])
        name = f"event {e['seq']} of unit {e['unit']}"
        if e["batch"] is None:
            at = _when(e["received"])
            if kept_from is not None and at is not None and at < kept_from:
                unverifiable += 1
            else:
                problems.append(f"{name}: stored without a batch (no unit signed it)")
            continue
        if e["batch"] not in good:
            if e["batch"] not in units_of:
                problems.append(f"{name}: its batch {e['batch']} is missing")
            continue
        if units_of[e["batch"]] != e["unit"]:
            problems.append(f"{name}: stored as unit {e['unit']}'s, but its batch {e['batch']} was signed by unit "
                            f"{units_of[e['batch']]}")
            continue
        seen.setdefault(e["batch"], set()).add(e["seq"])
        signed = good[e["batch"]].get(e["seq"])
        if signed is None:
            problems.append(f"{name}: not in the batch {e['batch']} that brought it")
            continue
        board = signed.get("board")
        if json.loads(e["body"]) != signed:
            problems.append(f"{name}: the stored event differs from what the unit signed (batch {e['batch']})")
        elif e["type"] != signed.get("type"):
            problems.append(f"{name}: stored as type {e['type']}, signed as {signed.get('type')} (batch {e['batch']})")
        elif e["board"] != (board if isinstance(board, int) else None):
            problems.append(f"{name}: stored as board {e['board']}, signed as board {board} (batch {e['batch']})")
    for unit, stored in sorted(seqs.items()):
        stored.sort()
        expected = 1
        for seq in stored:
            if seq > expected:
                problems.append(f"unit {unit}: seqs {expected}-{seq - 1} are missing (deleted from the store, or "
                                "never sent by the unit)" if seq - 1 > expected else
                                f"unit {unit}: seq {expected} is missing (deleted from the store, or never sent by "
                                "the unit)")
            expected = seq + 1
    return {"batches": len(ids), "events": events, "unverifiable": unverifiable, "problems": problems,
            "not_covered": NOT_COVERED}
