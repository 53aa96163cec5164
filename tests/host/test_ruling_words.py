"""The rulings in words (issue 36; collector/ruling_words.py): every sentence the director reads is checked against
laws.md, not against the code's own strings. The auctions are laws.md §5.1's single-call vectors
(tests/vectors/auction_single_call.json, copied from ../shared/vectors); what each sentence must say is read from the
vector's own text: the law and branch it cites ("(L31 A)"), each seat it restricts ("W `PASS_THROUGHOUT`"), the bid
to repeat ("E must bid 1S again"), the lowest sufficient bid ("lowest same-strain sufficient = 2H"), and for the
vectors that say "as A08" laws.md §4.14 (Law 36: the offender's partner passes throughout).
"""
import json
import re
from pathlib import Path

import pytest

from bidwire.core import calls, readback
from bidwire.core.auction import Auction
from bidwire_host.collector import ruling_words

VECTORS = json.loads((Path(__file__).parents[1] / "vectors" / "auction_single_call.json").read_text())["vectors"]
PENDING = ("OUT_OF_ROTATION", "INSUFFICIENT", "INADMISSIBLE_DOUBLE", "INADMISSIBLE_REDOUBLE", "ABOVE_SEVEN")
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "NT": "NT"}
CASES = [v for v in VECTORS if v["verdict"] in PENDING and v["restrictions"] is None]


def pending(v):
    a = Auction(calls.SEATS.index(v["dealer"]))
    for seat, call in v["prior"]:
        readback.apply(a, f"{seat}:{call}")
    readback.apply(a, f"{v['call'][0]}:{v['call'][1].split()[0]}")  # "X (at E's turn)": the call alone
    assert a.p_kind, v["id"]
    return a


def words(call):
    return call[0] + SUITS[call[1:]]


def test_every_pending_vector_of_laws_md_is_covered():
    assert len(CASES) >= 15


@pytest.mark.parametrize("v", CASES, ids=[v["id"] for v in CASES])
def test_the_reject_sentence_says_what_laws_md_gives(v):
    a = pending(v)
    name = "reject_natural" if v["verdict"] == "INSUFFICIENT" else "reject"
    said = ruling_words.sentence(a, name)
    assert "_" not in said and "reject" not in said  # no code word
    text = v["verdict_text"] + " " + (v["options_1987"] or "")
    cited = re.search(r"\(L(\d+)(?: ([A-D]\d?))?\)|\) L(\d+)", v["verdict_text"])
    if cited is not None:
        law = cited.group(1) or cited.group(3)
        branch = cited.group(2)
        assert f"Law {law}" + (f" {branch}" if branch else "") in said, said
    offender = v["call"][0]
    if v["verdict"] in ("INADMISSIBLE_DOUBLE", "INADMISSIBLE_REDOUBLE") or "INADMISSIBLE" in v["verdict_text"]:
        # laws.md §4.14: cancelled, the offender makes a legal call, his partner passes throughout (Law 36)
        partner = calls.seat_name(calls.partner(calls.SEATS.index(offender)))
        assert "Law 36" in said and re.search(rf"{partner} must pass throughout", said), said
    for seats, kind in re.findall(r"([NESW](?: and [NESW])?) `(PASS_THROUGHOUT|PASS_NEXT_TURN)`", text):
        for seat in seats.split(" and "):
            if kind == "PASS_THROUGHOUT":
                assert re.search(rf"\b{seat}\b[^.;]*throughout", said), (seat, said)
            else:
                assert re.search(rf"\b{seat} must (then )?pass at his next turn", said), (seat, said)
    again = re.search(r"([NESW]) must (bid (\w+)|double) again", text)
    if again is not None:
        assert (f"bid {words(again.group(3))} again" if again.group(3) else "double again") in said, said
    if "NO_DOUBLE_THIS_TURN" in text:
        assert "may not double" in said, said
    lowest = re.search(r"(?:lowest same-strain sufficient = |→ )(\d(?:NT|[CDHS]))", v["verdict_text"])
    if lowest is not None:
        assert f"if not {words(lowest.group(1))}" in said, said
        partner = calls.seat_name(calls.partner(calls.SEATS.index(offender)))
        plain = ruling_words.sentence(a, "reject")  # not known to be natural: any replacement bars partner (27 B2)
        assert "if not" not in plain and f"{partner} must then pass throughout" in plain and "27 B2" in plain


def test_a_change_of_call_reads_as_law_25_gives_each_reading():
    """laws.md §4.4, vector A19 (N:1H then N:P): 25 A, 25 B1 (LHO accepts), 25 B2(b)(1) (first call stands, partner
    passes once), 25 B2(b)(2) (1987 reading: partner passes throughout)."""
    a = Auction(0)
    readback.apply(a, "N:1H")
    readback.apply(a, "N~P")
    assert a.p_kind
    said = {r: ruling_words.sentence(a, r) for r in ("25a", "25b_accept", "25b_stand", "25b_other")}
    assert "Law 25 A" in said["25a"] and "pass replaces 1♥" in said["25a"]
    assert "E accepts" in said["25b_accept"] and "Law 25 B1" in said["25b_accept"]
    assert "1♥ stands" in said["25b_stand"] and "S must pass at his next turn" in said["25b_stand"]
    assert "25 B2(b)(1)" in said["25b_stand"]
    assert "S must pass throughout" in said["25b_other"] and "25 B2(b)(2)" in said["25b_other"]
