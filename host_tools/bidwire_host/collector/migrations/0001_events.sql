-- bidwire: rebuild the derived tables (a derived table changed)
CREATE TABLE events (
    id INTEGER PRIMARY KEY,             -- arrival order: derived tables are built in this order
    unit TEXT NOT NULL,
    seq INTEGER NOT NULL,               -- the unit's own numbering, strictly increasing
    type TEXT NOT NULL,
    board INTEGER,                      -- NULL for events without a board (hello)
    boot INTEGER NOT NULL,              -- the unit's boot count in the sync that carried the event
    received TEXT NOT NULL,             -- host clock, UTC ISO 8601
    body TEXT NOT NULL,                 -- the event as the unit sent it (JSON)
    UNIQUE (unit, seq)
);
CREATE TRIGGER events_immutable_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'raw events are immutable'); END;
CREATE TRIGGER events_immutable_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'raw events are immutable'); END;

-- What each unit last told the sync endpoint (not derived: heartbeats carry no events).
CREATE TABLE unit_sync (
    unit TEXT PRIMARY KEY,
    boot INTEGER NOT NULL,
    cmd_ack INTEGER NOT NULL,           -- the last command the unit reports applied
    last_seen TEXT NOT NULL
);

-- Commands for the units (host -> unit), numbered per unit; delivered while seq > the unit's cmd_ack.
CREATE TABLE commands (
    unit TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,                 -- the command as sent, seq included (JSON)
    created TEXT NOT NULL,
    PRIMARY KEY (unit, seq)
);

-- Derived from events ------------------------------------------------------------------------------------
CREATE TABLE units (
    unit TEXT PRIMARY KEY,
    firmware TEXT, hardware TEXT, boot INTEGER, battery, rssi, backlog INTEGER,   -- from the last hello
    hello_seq INTEGER,
    events INTEGER NOT NULL DEFAULT 0,
    last_seq INTEGER, last_t INTEGER, last_received TEXT,
    board INTEGER                       -- the board the unit last started
);
-- One row per board played at a table (a board_start, or the first event of a board without one).
CREATE TABLE boards (
    id INTEGER PRIMARY KEY,
    unit TEXT NOT NULL,
    start_seq INTEGER NOT NULL,
    board INTEGER NOT NULL,
    section TEXT, table_no INTEGER, round INTEGER, ns TEXT, ew TEXT,
    dealer TEXT, vul TEXT, mode TEXT,
    calls INTEGER NOT NULL DEFAULT 0,
    inputs TEXT,                        -- the auction's input tokens from the last auction_end (JSON)
    contract TEXT, declarer TEXT,       -- derived on the host from those inputs
    unit_contract TEXT, unit_declarer TEXT,   -- what the unit claimed
    lead TEXT,
    state TEXT NOT NULL,                -- auction, ended, play, done
    UNIQUE (unit, start_seq)
);
CREATE INDEX boards_by_board ON boards (board, section, table_no);
CREATE TABLE results (
    unit TEXT NOT NULL, seq INTEGER NOT NULL,
    board_id INTEGER NOT NULL,
    board INTEGER NOT NULL, section TEXT, table_no INTEGER, round INTEGER, ns TEXT, ew TEXT,
    contract TEXT, declarer TEXT,       -- the host's, from the replayed auction
    tricks INTEGER,
    score_ns INTEGER,                   -- Law 77 on the host (NULL when it cannot be computed: see alerts)
    unit_contract TEXT, unit_declarer TEXT, unit_score_ns INTEGER,
    entered_by TEXT, confirmed_by TEXT, lead TEXT, t INTEGER,
    PRIMARY KEY (unit, seq)
);
CREATE INDEX results_by_board ON results (board, section, table_no);
CREATE TABLE irregularities (
    unit TEXT NOT NULL, seq INTEGER NOT NULL, board_id INTEGER, board INTEGER,
    kind TEXT, law INTEGER, offender TEXT, call TEXT, entitled TEXT, options TEXT, t INTEGER,
    PRIMARY KEY (unit, seq)
);
CREATE TABLE rulings (
    unit TEXT NOT NULL, seq INTEGER NOT NULL, board_id INTEGER, board INTEGER,
    ruling TEXT, seat TEXT, by_whom TEXT, verdict TEXT, law INTEGER, t INTEGER,
    PRIMARY KEY (unit, seq)
);
CREATE TABLE director_calls (
    unit TEXT NOT NULL, seq INTEGER NOT NULL, board_id INTEGER, board INTEGER, seat TEXT, t INTEGER,
    PRIMARY KEY (unit, seq)
);
-- What the validator found: for the director, never a silent overwrite.
CREATE TABLE alerts (
    id INTEGER PRIMARY KEY,
    unit TEXT NOT NULL, seq INTEGER NOT NULL,   -- the event that raised it
    board INTEGER, section TEXT, table_no INTEGER,
    kind TEXT NOT NULL, law INTEGER,
    detail TEXT NOT NULL,
    data TEXT                           -- JSON: the facts compared
);
CREATE INDEX alerts_by_unit ON alerts (unit, seq);
