-- A sim played in several sessions (issue 39): the organiser names them when setting the sim up (one hand set,
-- played in each: a club's afternoon and evening heats, or Monday's to Friday's), every upload names its session
-- under its signature, and a pair of the field is its club, session, section and number. A sim of one session
-- names none ('{}'), and its results keep the session ''.
ALTER TABLE sims ADD COLUMN sessions text[] NOT NULL DEFAULT '{}';
ALTER TABLE results ADD COLUMN session text NOT NULL DEFAULT '';
ALTER TABLE results DROP CONSTRAINT results_pkey;
ALTER TABLE results ADD PRIMARY KEY (sim_id, club_id, session, section, board, ns, ew);
-- A club's uploads are numbered in each session apart (each heat is a collector store of its own, counting from
-- 1): the highest number taken, its body's SHA-256 (a retry of it is answered again, anything else refused) and
-- the last USEBIO file taken, per club and session. A club's row is still what an upload locks first.
CREATE TABLE club_sessions (
    sim_id text NOT NULL,
    club_id text NOT NULL,
    session text NOT NULL,
    last_upload bigint NOT NULL DEFAULT 0,
    last_digest bytea,
    usebio_digest bytea,
    PRIMARY KEY (sim_id, club_id, session),
    FOREIGN KEY (sim_id, club_id) REFERENCES clubs (sim_id, club_id) ON DELETE CASCADE
);
INSERT INTO club_sessions (sim_id, club_id, session, last_upload, last_digest, usebio_digest)
    SELECT sim_id, club_id, '', last_upload, last_digest, usebio_digest FROM clubs
    WHERE last_upload > 0 OR usebio_digest IS NOT NULL;
ALTER TABLE clubs DROP COLUMN last_upload;
ALTER TABLE clubs DROP COLUMN last_digest;
ALTER TABLE clubs DROP COLUMN usebio_digest;
