-- The event loaded (not derived: set by the director): the event file's JSON, unit -> [section, table],
-- the scoring method, and the round each section was last sent (collector/event_setup.py).
CREATE TABLE setup (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    body TEXT NOT NULL,
    tables TEXT NOT NULL,
    method TEXT NOT NULL,
    session TEXT,
    rounds TEXT NOT NULL
);
