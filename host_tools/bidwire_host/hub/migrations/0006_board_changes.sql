-- A change counter per board, bumped with the sim's `changes` in the same transaction (records._bump): a worker
-- rescoring the live field reads again only the boards whose counter moved (hub/live_field.py).
CREATE TABLE board_changes (
    sim_id text NOT NULL REFERENCES sims (id),
    board integer NOT NULL,
    changes bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (sim_id, board)
);
