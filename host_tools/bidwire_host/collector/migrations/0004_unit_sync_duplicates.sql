-- Per unit: events that arrived again after they were stored (a retry whose acknowledgement was lost, a
-- duplicated request) and were acknowledged without being stored twice.
ALTER TABLE unit_sync ADD COLUMN duplicates INTEGER NOT NULL DEFAULT 0;
