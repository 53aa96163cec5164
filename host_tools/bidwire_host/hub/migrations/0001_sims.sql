-- The sim, its clubs, the results they upload and the organiser's audit log (docs/hub.md "Schema").
CREATE TABLE hub_secret (
    only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
    secret bytea NOT NULL  -- signs the organiser's session cookie: the same in every worker
);

CREATE TABLE sims (
    id text PRIMARY KEY,
    name text NOT NULL,
    release_at timestamptz NOT NULL,
    scoring text NOT NULL CHECK (scoring IN ('mp', 'neuberg')),
    winners text NOT NULL CHECK (winners IN ('one', 'two')),
    boards integer[] NOT NULL,
    hands jsonb NOT NULL DEFAULT '{}',  -- board number (text) -> PBN deal
    started boolean NOT NULL DEFAULT false,  -- set by the first result: the setup is fixed from then on
    changes bigint NOT NULL DEFAULT 0,  -- bumped by every change of the field (the readers' cache key)
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE clubs (
    sim_id text NOT NULL REFERENCES sims (id),
    club_id text NOT NULL,
    name text NOT NULL,
    secret bytea NOT NULL,  -- the HMAC key of the club's uploads
    last_upload bigint NOT NULL DEFAULT 0,  -- the highest upload number taken
    last_digest bytea,  -- and its body's SHA-256: a retry of it is answered again, anything else refused
    PRIMARY KEY (sim_id, club_id)
);

CREATE TABLE results (
    sim_id text NOT NULL,
    club_id text NOT NULL,
    section text NOT NULL,
    board integer NOT NULL,
    ns text NOT NULL,
    ew text NOT NULL,
    ns_names text NOT NULL DEFAULT '',
    ew_names text NOT NULL DEFAULT '',
    contract text,
    declarer text,
    tricks integer,
    score_ns integer,
    adjusted jsonb,  -- Law 12 C as the club gave it: {"ns": pct, "ew": pct} or {"ns_score": n, "ew_score": n}
    version integer NOT NULL DEFAULT 1,  -- 1, then one more for each correction the club sends
    upload bigint NOT NULL,  -- the upload that last set it
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (sim_id, club_id, section, board, ns, ew),
    FOREIGN KEY (sim_id, club_id) REFERENCES clubs (sim_id, club_id)
);
CREATE INDEX results_by_board ON results (sim_id, board);

CREATE TABLE audit (
    id bigserial PRIMARY KEY,
    sim_id text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    by text NOT NULL,  -- 'organiser' or 'club <id>'
    what text NOT NULL,
    detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_by_sim ON audit (sim_id, id);
