-- the sim's hub (collector/uplink.py): each upload's exact bytes, kept until the hub acknowledges them, and what
-- the hub holds of each result (its digest), so that only a changed result is sent again
CREATE TABLE hub_outbox (
    number INTEGER PRIMARY KEY,
    body BLOB NOT NULL,
    made TEXT NOT NULL,
    acked TEXT
);
CREATE TABLE hub_sent (
    section TEXT NOT NULL,
    board INTEGER NOT NULL,
    ns TEXT NOT NULL,
    ew TEXT NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (section, board, ns, ew)
);
