"""`bidwire verify` on an event stored without a signed batch (collector/verify.py): a store made at schema 6 or
later kept a batch for every event, so such an event is a problem, however the seconds its migrations were
applied in fell (a fresh store's migrations can straddle a second: the check once took that for an upgrade and
let a forged event pass as unverifiable); in a store that took schema 6 as an upgrade, days after it was made, an
event received before then is counted as unverifiable, not as a problem."""
import json
import sqlite3

import pytest

from bidwire_host.collector import derive, verify
from bidwire_host.collector.store import DB_NAME

FORGED = json.dumps({"seq": 1, "type": "note", "text": "x"})


def _store(tmp_path, made, kept):
    derive.open_store(tmp_path).close()
    db = sqlite3.connect(tmp_path / DB_NAME)
    db.row_factory = sqlite3.Row
    db.execute("UPDATE schema_version SET applied = CASE WHEN version < 6 THEN ? ELSE ? END", (made, kept))
    db.execute("INSERT INTO events (unit, seq, type, board, boot, received, body, batch) VALUES "
               "('T01', 1, 'note', NULL, 1, '2026-11-20T19:00:00.000+00:00', ?, NULL)", (FORGED,))
    return db


@pytest.mark.parametrize(("made", "kept", "problem"), [
    ("2026-12-03 10:00:00", "2026-12-03 10:00:00", True),  # made afresh, every migration in one second
    ("2026-12-03 10:00:00", "2026-12-03 10:00:01", True),  # made afresh across a second
    ("2026-11-01 09:00:00", "2026-12-01 09:00:00", False),  # upgraded a month later: the event came before
])
def test_an_event_without_a_batch(tmp_path, made, kept, problem):
    db = _store(tmp_path, made, kept)
    try:
        out = verify.verify(db, {"units": {}})
    finally:
        db.close()
    named = [p for p in out["problems"] if "stored without a batch" in p]
    assert (len(named), out["unverifiable"]) == ((1, 0) if problem else (0, 1)), out
