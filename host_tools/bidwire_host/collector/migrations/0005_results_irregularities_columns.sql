-- bidwire: rebuild the derived tables (a derived table changed)
-- The event decides who played what (collector/attribution.py): a result whose section, table, round, board or
-- pairs differ from the event, or that came after publication, is held for the director, not scored.
ALTER TABLE results ADD COLUMN held TEXT;          -- JSON list of what differs (NULL: the result is scored)
ALTER TABLE results ADD COLUMN expected TEXT;      -- JSON: what the event has at that table (or NULL)
-- Every alert has a lifecycle: open, then settled at the table or superseded (the board redone); the director's
-- own resolutions are director_actions (kind close).
ALTER TABLE irregularities ADD COLUMN at INTEGER;  -- its position in the board's input log (the unit's identity)
ALTER TABLE irregularities ADD COLUMN state TEXT NOT NULL DEFAULT 'open';
ALTER TABLE irregularities ADD COLUMN outcome TEXT;
ALTER TABLE irregularities ADD COLUMN closed_seq INTEGER;
ALTER TABLE director_calls ADD COLUMN state TEXT NOT NULL DEFAULT 'open';
ALTER TABLE director_calls ADD COLUMN outcome TEXT;
ALTER TABLE director_calls ADD COLUMN closed_seq INTEGER;
ALTER TABLE rulings ADD COLUMN at INTEGER;
-- A change's idempotency key and its answer (not derived): a retried request is answered again, not redone.
CREATE TABLE idempotency (
    key TEXT PRIMARY KEY,               -- operation:key
    request TEXT NOT NULL,              -- sha256 of the request, so a key reused for another one is refused
    response TEXT NOT NULL,
    at TEXT NOT NULL
);
