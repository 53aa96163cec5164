"""Masterpoint awards from a session's standings: the EBU's local points (club scale), or a club's own scale.

The EBU's Club scale ("scale A" of its Licensing and Master Points Handbook), for a pairs session, as that
handbook words it and as salliere (a Debian duplicate scorer, `MasterPointScale.java`) implements it:

- no awards under 12 boards, nor unless the entry was at least 3 full tables in a single-winner event (Howell) or
  5 in a two-winner event (Mitchell, each line ranked apart: handbook 3.1.1);
- the top third of the field gets an award at 18-35 boards, the top quarter under 18, the top half at 36 or more,
  counted on full tables and rounded up: ceil(tables x fraction x 2) places in a single-winner field of
  2 x tables pairs, ceil(tables x fraction) places in each line of a two-winner event;
- the first award is 6 local points per place awarded, capped at 75 (12-17 boards), 100 (18-35) or 300 (36+); each
  next place 6 fewer;
- tied contestants share the awards of the places they fill, rounded up, and an award is never below 6.

100 local points make one master point, so the awards are whole numbers in hundredths of a master point: what
USEBIO's MASTER_POINTS_AWARDED carries (the ABF's importer divides it by 100).

A club's own scale is a list of awards by place (`{"scale": "Ladder", "awards": [12, 8, 5]}` in the event file):
the first place gets the first award, and so on; ties share as above (without the minimum of 6).
"""
from __future__ import annotations

from fractions import Fraction
from math import ceil

from bidwire_host.scoring.model import ScoringError
from bidwire_host.scoring.ranking import field_of

EBU_CLUB = "EBU club"  # the name an event file gives the built-in scale
_EBU_RATE = 6  # local points a place, and the smallest award, on the club scale
_EBU_MIN_TABLES = {False: 3, True: 5}  # full tables in the original entry: single-winner, two-winner (3.1.1)


def ebu_club_places(tables, boards, two_winner):
    """The EBU club scale's awards by place for one field: [first, second, ...] ([] when it awards none)."""
    if boards < 12 or tables < _EBU_MIN_TABLES[two_winner]:
        return []
    fraction = Fraction(1, 4) if boards < 18 else Fraction(1, 3) if boards < 36 else Fraction(1, 2)
    places = ceil(tables * fraction * (1 if two_winner else 2))
    cap = 75 if boards < 18 else 100 if boards < 36 else 300
    top = places * _EBU_RATE
    return [min(cap, top - _EBU_RATE * i) for i in range(places)]


def _share(standings, places, minimum):
    """{contestant: award} for one field's standings (best first): tied contestants share their places' awards."""
    out = {}
    i = 0
    while i < len(standings):
        j = i
        while j < len(standings) and standings[j].rank == standings[i].rank:
            j += 1
        pool = sum(places[k] for k in range(i, j) if k < len(places))
        award = ceil(Fraction(pool, j - i)) if pool else 0
        if 0 < award < minimum:
            award = minimum
        for s in standings[i:j]:
            out[s.contestant] = award
        i = j
    return out


def awards(scale, standings, *, boards, two_fields):
    """{contestant: whole-number award} for every ranked contestant (0 for no award) under `scale`: a dict
    {"scale": name, "awards": [...]} from the event file, EBU_CLUB without awards. None without a scale."""
    if not scale:
        return None
    name, own = scale.get("scale"), scale.get("awards")
    if own is None and name != EBU_CLUB:
        raise ScoringError(f"masterpoints: scale {name!r} needs its awards by place (\"awards\": [12, 8, 5]), "
                           f"or use the built-in {EBU_CLUB!r}")
    fields = {}
    for s in standings:
        fields.setdefault(field_of(s.contestant), []).append(s)
    out = {}
    for field in fields.values():
        if own is not None:
            out.update(_share(field, list(own), 0))
        else:
            tables = len(field) if two_fields else len(field) // 2  # full tables: a line's pairs, or half the field
            out.update(_share(field, ebu_club_places(tables, boards, two_fields), _EBU_RATE))
    return out
