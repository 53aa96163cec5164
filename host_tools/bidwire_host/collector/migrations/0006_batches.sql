-- Liveness: the unit's sync count of its boot, so that a replayed body (nothing new) does not refresh last_seen.
ALTER TABLE unit_sync ADD COLUMN beat INTEGER NOT NULL DEFAULT 0;
-- Each batch as the unit signed it (raw, immutable): a stored event can be checked against its signature later
-- (`bidwire verify`). events.batch names the batch that brought the event.
CREATE TABLE batches (
    id INTEGER PRIMARY KEY,
    unit TEXT NOT NULL,
    received TEXT NOT NULL,
    signature TEXT NOT NULL,
    body BLOB NOT NULL
);
CREATE TRIGGER batches_immutable_update BEFORE UPDATE ON batches
    BEGIN SELECT RAISE(ABORT, 'batches are immutable'); END;
CREATE TRIGGER batches_immutable_delete BEFORE DELETE ON batches
    BEGIN SELECT RAISE(ABORT, 'batches are immutable'); END;
ALTER TABLE events ADD COLUMN batch INTEGER;
-- A stored seq sent again with other content: refused (409), both versions kept here for the director.
CREATE TABLE seq_conflicts (
    id INTEGER PRIMARY KEY,
    unit TEXT NOT NULL,
    seq INTEGER NOT NULL,
    stored TEXT NOT NULL,               -- the event as stored (JSON)
    sent TEXT NOT NULL,                 -- the other version
    first_at TEXT NOT NULL,
    times INTEGER NOT NULL DEFAULT 1,
    UNIQUE (unit, seq, sent)
);
