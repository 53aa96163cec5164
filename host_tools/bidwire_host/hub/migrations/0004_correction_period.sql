-- The correction period: for this many minutes after the release a club may still correct its results; after it,
-- only the organiser changes a result (records.organiser_correct), each change in the audit log.
ALTER TABLE sims ADD COLUMN correction_minutes integer NOT NULL DEFAULT 60
    CHECK (correction_minutes BETWEEN 0 AND 10080);
