"""`bidwire verify`: every stored event checked against the batch its unit signed (docs/security.md).

The sync endpoint keeps each batch that brought events as the unit signed it (table `batches`: the raw body and
its X-Bidwire-Signature). Here each batch's signature is checked again with the unit's key, and each stored event
must be, field for field, the event of that seq in its batch. Events stored before batches were kept (schema 5 and
older) are counted apart: they cannot be checked.
"""
import hashlib
import hmac
import json


def verify(conn, keyring):
    """{"batches", "events", "unverifiable", "problems": [text]} for the store on `conn`."""
    problems, good = [], {}
    batches = 0
    for b in conn.execute("SELECT id, unit, signature, body FROM batches ORDER BY id"):
        batches += 1
        key = keyring.key(b["unit"])
        if key is None:
            problems.append(f"batch {b['id']}: unit {b['unit']} is not in the keyring, its signature cannot be checked")
            continue
        body = bytes(b["body"])
        expected = hmac.new(key, body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, (b["signature"] or "").strip().lower()):
            problems.append(f"batch {b['id']} of unit {b['unit']}: the signature does not match its body")
            continue
        try:
            events = json.loads(body)["events"]
        except (ValueError, KeyError, TypeError):
            problems.append(f"batch {b['id']} of unit {b['unit']}: the signed body is not a sync body")
            continue
        good[b["id"]] = {e.get("seq"): e for e in events if isinstance(e, dict)}
    events = unverifiable = 0
    for e in conn.execute("SELECT unit, seq, batch, body FROM events ORDER BY id"):
        events += 1
        if e["batch"] is None:
            unverifiable += 1
            continue
        if e["batch"] not in good:
            if not any(p.startswith(f"batch {e['batch']} ") or p.startswith(f"batch {e['batch']}:") for p in problems):
                problems.append(f"event {e['seq']} of unit {e['unit']}: its batch {e['batch']} is missing")
            continue
        signed = good[e["batch"]].get(e["seq"])
        if signed is None:
            problems.append(f"event {e['seq']} of unit {e['unit']}: not in the batch {e['batch']} that brought it")
        elif json.loads(e["body"]) != signed:
            problems.append(f"event {e['seq']} of unit {e['unit']}: the stored event differs from what the unit "
                            f"signed (batch {e['batch']})")
    return {"batches": batches, "events": events, "unverifiable": unverifiable, "problems": problems}
