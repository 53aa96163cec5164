"""The ids a sim's hub and its clubs share, as patterns: the club's event file is checked against them
(event/checks.py) and the hub parses every request with them (hub/inputs.py), so the two cannot disagree; and
the one text a pair's players travel in between them (`players_text`, `players_of`).

ASCII letters and digits only (a NUL, or a digit of another script, never reaches SQL: issue 39 finding 9). A
club's id has no hyphen, nor has a section's, so that a pair of the combined field, club-section-number
("C1-A-12"; scoring/field_tally.pair_id), names one pair only, whatever its number holds.
"""
SIM_ID = r"^[a-z0-9][a-z0-9-]{0,39}$"
CLUB_ID = r"^[A-Za-z0-9][A-Za-z0-9_]{0,31}$"
# one of the sessions a sim is played in ("aft", "eve", "Mon"): no hyphen either, so that a pair of a sim of
# several sessions, club-session-section-number ("C1-eve-A-12"), names one pair only
SESSION = r"^[A-Za-z0-9]{1,8}$"
# a pair's players' national numbers, in the order of its names: "1001 & EBU1002" ("" where one is not known)
PLAYER_IDS = r"^[A-Za-z0-9 &/._-]{0,100}$"


def players_text(players):
    """A pair's players [(name, national number or None)] as the hub keeps them: ("A & B", "1001 & 1002"), the
    unnamed left out, a number not known "" in its place, and no numbers at all "" ."""
    named = [(name, number) for name, number in players if name]
    numbers = [number or "" for _, number in named]
    return " & ".join(name for name, _ in named), " & ".join(numbers) if any(numbers) else ""


def players_of(names, numbers):
    """[(name, national number or None), (...)] of a pair named by its two players ("A & B", "1001 & 1002"), or None
    when the names are not two."""
    people = [x.strip() for x in (names or "").split(" & ")]
    if len(people) != 2 or not all(people):
        return None
    ids = [x.strip() or None for x in (numbers or "").split("&")]
    return list(zip(people, ids if len(ids) == 2 else [None, None], strict=True))
