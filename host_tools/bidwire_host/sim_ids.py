"""The ids a sim's hub and its clubs share, as patterns: the club's event file is checked against them
(event/checks.py) and the hub parses every request with them (hub/inputs.py), so the two cannot disagree.

ASCII letters and digits only (a NUL, or a digit of another script, never reaches SQL: issue 39 finding 9). A
club's id has no hyphen, nor has a section's, so that a pair of the combined field, club-section-number
("C1-A-12"; hub/tally.pair_id), names one pair only, whatever its number holds.
"""
SIM_ID = r"^[a-z0-9][a-z0-9-]{0,39}$"
CLUB_ID = r"^[A-Za-z0-9][A-Za-z0-9_]{0,31}$"
# a pair's players' national numbers, in the order of its names: "1001 & EBU1002" ("" where one is not known)
PLAYER_IDS = r"^[A-Za-z0-9 &/._-]{0,100}$"
