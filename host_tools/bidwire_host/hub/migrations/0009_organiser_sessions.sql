-- The organiser's sessions, kept on the server (access.py): a page's cookie names one, signed. A session ends at
-- its logout, after COOKIE_HOURS, or when the organiser's password changes: each holds the fingerprint of the
-- password it was opened with, and a session whose fingerprint is not the running password's is refused.
CREATE TABLE organiser_sessions (
    id text PRIMARY KEY,
    password text NOT NULL,
    created timestamptz NOT NULL DEFAULT now(),
    ended timestamptz
);
CREATE INDEX organiser_sessions_by_created ON organiser_sessions (created);
-- The wrong-password table is swept by time on every failure: an index on the time alone (issue 39, finding 9)
CREATE INDEX login_failures_by_time ON login_failures (at);
