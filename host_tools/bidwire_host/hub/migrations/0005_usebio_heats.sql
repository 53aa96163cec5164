-- A club that does not use bidwire uploads its whole heat as one USEBIO file (records.replace_heat): the SHA-256
-- of the last file taken, so the same file sent again changes nothing and is answered "again".
ALTER TABLE clubs ADD COLUMN usebio_digest bytea;
