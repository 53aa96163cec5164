-- Each result carries the id of the transaction that last set it (`xact`), in place of a number every change
-- took from the sim's row: a worker reads again only the results whose transaction had not finished when it
-- last read (hub/live_field.py: at or above that read's snapshot xmin), so uploads no longer queue on the sim's row
-- for their whole transaction. A board some change deleted results from carries that transaction's id in
-- `rebuilt_xact`: a worker reads that board again whole.
ALTER TABLE results ADD COLUMN xact xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX results_by_xact ON results (sim_id, xact);
DROP INDEX results_by_change;
ALTER TABLE results DROP COLUMN change;
ALTER TABLE board_changes ADD COLUMN rebuilt_xact xid8;
ALTER TABLE board_changes DROP COLUMN rebuilt;
ALTER TABLE board_changes DROP COLUMN changes;
-- What a club's changes add to the sim's `changes` (a worker's caches are keyed on the sum): counted on the
-- club's row, which a change of the club's results locks anyway, so that no change waits on a row all share.
ALTER TABLE clubs ADD COLUMN changes bigint NOT NULL DEFAULT 0;
-- Play has started once a club has changed a result (records.sim): `sims.started` is no longer set, so that
-- the first uploads do not wait on the sim's row either; a hub that set it before keeps it.
