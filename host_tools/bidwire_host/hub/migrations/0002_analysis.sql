-- Each board's double-dummy table and par, worked once when the sim is set up (event/analysis.py, endplay's DDS):
-- board number (text) -> {"dd": {seat: {strain: tricks}}, "par": {"score", "contracts"}}
ALTER TABLE sims ADD COLUMN analysis jsonb NOT NULL DEFAULT '{}';
