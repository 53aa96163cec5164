-- Tonight's event as the units hear it (issue 39, finding 7): a random id made with the store, once. Every command
-- the collector queues carries it, a unit's board_start repeats the one of the assign it plays under, and a result
-- of a board started under another event's assign (last week's batch replayed into tonight's fresh store) is held
-- for the director (attribution.py). A unit that hears a new event numbers its commands afresh (unit/app.py).
CREATE TABLE store_event (id TEXT NOT NULL);
INSERT INTO store_event VALUES (lower(hex(randomblob(8))));
