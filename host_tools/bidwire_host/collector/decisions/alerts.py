"""The director's decision on an alert (docs/collector.md, "Alerts").

* `close`: the director closes an alert (an irregularity, a director call, a validator finding) with a note.
"""
from bidwire_host.collector.decisions.journal import ActionError, fold, insert


def close(conn, s, body, at):
    """The director closes an alert (its key, state.alert_key) with a note; refused if closed already."""
    key = body.get("alert")
    if not isinstance(key, str) or not key:
        raise ActionError("alert: which alert (its id on the page)")
    state = fold(conn)
    if key in state.closed:
        raise ActionError(f"alert {key} was closed already ({state.closed[key]['at']})", 409)
    return insert(conn, "close", {"alert": key, "note": str(body.get("note") or "")[:500]}, body.get("by"), at,
                  False)
