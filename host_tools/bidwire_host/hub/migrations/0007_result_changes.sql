-- Each result carries the sim's `changes` number of the change that last set it (records._begin), so that a
-- worker reads again only the results set since the field it holds (hub/live_field.py). Changes are numbered in the
-- order they commit: each takes the sim's row first and holds it to its commit. A board some change deleted
-- results from carries that change's number in `rebuilt`: a worker reads that board again whole.
ALTER TABLE results ADD COLUMN change bigint NOT NULL DEFAULT 0;
CREATE INDEX results_by_change ON results (sim_id, change);
ALTER TABLE board_changes ADD COLUMN rebuilt bigint NOT NULL DEFAULT 0;
