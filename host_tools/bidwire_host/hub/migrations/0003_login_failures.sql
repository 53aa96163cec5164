-- Wrong organiser passwords, by client address: every worker counts the same failures (app.py's limiter).
CREATE TABLE login_failures (
    id bigserial PRIMARY KEY,
    source text NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_by_source ON login_failures (source, at);
