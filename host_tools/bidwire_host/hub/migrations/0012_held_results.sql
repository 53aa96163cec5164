-- A result first seen after the sim's release is held for the organiser (issue 39): stored and audited, but not
-- in the field, the ranking or the files until the organiser admits it (or rejects it, which deletes it). A
-- result the field already holds is never held: a club's correction of it is audited as before.
ALTER TABLE results ADD COLUMN held boolean NOT NULL DEFAULT false;
CREATE INDEX results_held ON results (sim_id) WHERE held;
