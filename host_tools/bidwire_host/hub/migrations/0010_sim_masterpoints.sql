-- The masterpoint scale a sim awards on its combined ranking, as an event file names it ({"scale": ..., "awards":
-- [...]}: scoring/masterpoints.py), or NULL for none. The hub's USEBIO then carries each pair's award.
ALTER TABLE sims ADD COLUMN masterpoints jsonb;
