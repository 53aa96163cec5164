-- The double-dummy analysis of each hand record (bidwire_host/event/analysis.py): computed once per deal, in the
-- background after the event is loaded (not derived from events: kept across a rebuild).
CREATE TABLE analysis (
    board INTEGER NOT NULL,
    deal TEXT NOT NULL,                 -- the deal analysed (PBN, North first)
    body TEXT NOT NULL,                 -- JSON {"dd": {seat: {strain: tricks}}, "par": {"score", "contracts"}}
    at TEXT NOT NULL,
    PRIMARY KEY (board, deal)
);
