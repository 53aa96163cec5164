-- What the director and scorer decided (not derived: raw like the events, and as immutable): adjusted and
-- assigned scores, procedural penalties, publications (collector/decisions/). The scores are the results
-- with these actions applied in order, so a rebuild or a restart replays them.
CREATE TABLE director_actions (
    id INTEGER PRIMARY KEY,             -- the order they are applied in
    kind TEXT NOT NULL,                 -- adjust, penalty, publish
    body TEXT NOT NULL,                 -- the action as accepted (JSON)
    by_whom TEXT,
    at TEXT NOT NULL,                   -- host clock, UTC ISO 8601
    post_period INTEGER NOT NULL DEFAULT 0   -- made after the correction period by a director's override
);
CREATE TRIGGER director_actions_immutable_update BEFORE UPDATE ON director_actions
    BEGIN SELECT RAISE(ABORT, 'director actions are append-only'); END;
CREATE TRIGGER director_actions_immutable_delete BEFORE DELETE ON director_actions
    BEGIN SELECT RAISE(ABORT, 'director actions are append-only'); END;
