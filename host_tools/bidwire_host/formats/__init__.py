"""The files bidwire reads and writes for other programs: PBN in and out, USEBIO, CSV, and JSON Lines."""
