"""laws.md §5.1 and §5.2: each vector is one case (its ID is in the test id). Runs on CPython and MicroPython."""
from cases import cases
from vectors import load

from bidwire.core import codes, record, rectify
from bidwire.core.auction import Auction
from bidwire.core.calls import call_name, lowest_in_strain, strain_of
from bidwire.core.readback import parse_call, parse_seat

SINGLE = load("auction_single_call.json")
CONTRACTS = load("auction_contracts.json")

# The vectors' verdict names → the engine's (laws.md §4.1 calls row 7 VIOLATES_PASS_OBLIGATION; row 3 is
# a deemed pass followed by a call in rotation).
VERDICT = {
    "LEGAL": codes.LEGAL, "OUT_OF_ROTATION": codes.OUT_OF_ROTATION, "INSUFFICIENT": codes.INSUFFICIENT,
    "INADMISSIBLE_DOUBLE": codes.INADMISSIBLE_DOUBLE, "INADMISSIBLE_REDOUBLE": codes.INADMISSIBLE_REDOUBLE,
    "VIOLATES_PASS_OBLIGATION": codes.PASS_OBLIGATION, "CHANGE_OF_CALL": codes.CHANGE_OF_CALL,
    "AFTER_CLOSE": codes.AFTER_CLOSE, "ABOVE_SEVEN": codes.ABOVE_SEVEN, "IN_ROTATION_28A": codes.LEGAL,
}
RESTRICTION = {"PASS_THROUGHOUT": codes.PASS_THROUGHOUT, "PASS_NEXT_TURN": codes.PASS_NEXT_TURN}
R, P, L = codes.RHO_TURN, codes.PARTNER_TURN, codes.LHO_TURN
BEFORE, INADM, ALSO_INS = codes.F_BEFORE_BID, codes.F_INADMISSIBLE, codes.F_ALSO_INSUFFICIENT

# What each vector's verdict text adds to the verdict: (law, whose turn, flags that must be set, flags that
# must not) for calls out of rotation; the law alone otherwise. Transcribed from laws.md §5.1.
DETAIL = {
    "A02": (31, R, BEFORE, 0), "A03": (31, P, BEFORE, 0), "A04": (31, L, BEFORE, 0),
    "A16": (30, R, BEFORE, 0), "A17": (30, P, 0, BEFORE), "A18": (30, R, 0, BEFORE),
    "A25": (31, R, ALSO_INS, BEFORE), "A26": (32, P, 0, INADM), "A27": (32, R, 0, INADM),
    "A28": (32, R, INADM, 0), "A39": (31, R, BEFORE, 0),
    "A05": 27, "A06": 27, "A08": 36, "A09": 36, "A10": 36, "A11": 36, "A19": 25, "A20": 37, "A21": 38,
    "A22": 39, "A24": 27, "A30": 37, "A32": 27, "A37": 36, "A38": 39,
}
# Lowest sufficient bid in the same strain, for the insufficient-bid vectors (Law 27 B1(a)).
LOWEST = {"A05": "2H", "A06": "2H", "A24": "2H", "A32": "3C"}
# Auctions the vector says are over after the new call: (contract, declarer).
ENDS = {"A14": ("Pass", None), "A15": ("1C", "N"), "A23": ("1HX", "N"), "A34": ("Pass", None)}


def build(dealer, calls):
    a = Auction(parse_seat(dealer))
    for seat, call in calls:
        v = a.call(parse_seat(seat), parse_call(call))
        assert v == codes.LEGAL, "prior call " + seat + ":" + call + " not legal: " + str(v)
    return a


def with_restriction(a, text):
    """'E `PASS_NEXT_TURN` (…)' → the restriction the vector says is in force before the new call."""
    seat = parse_seat(text[0])
    kind = text.split("`")[1]
    rectify.restrict(a, seat, RESTRICTION[kind], 0, 0)
    return seat, RESTRICTION[kind]


@cases(SINGLE)
def test_single_call_classification(case):
    a = build(case["dealer"], case["prior"])
    restricted = with_restriction(a, case["restrictions"]) if case["restrictions"] else None
    seat, call = parse_seat(case["call"][0]), parse_call(case["call"][1])
    v = a.call(seat, call)
    want = VERDICT[case["verdict"]]
    assert v == want, case["id"] + ": got " + codes.VERDICT_NAMES[v] + ", want " + case["verdict"]
    d = DETAIL.get(case["id"])
    if isinstance(d, tuple):
        law, rel, on, off = d
        assert a.p_law == law, case["id"] + " law " + str(a.p_law)
        assert (a.p_seat - a.p_turn) & 3 == rel, case["id"] + " whose turn"
        assert a.p_flags & on == on and a.p_flags & off == 0, case["id"] + " flags " + str(a.p_flags)
    elif d is not None:
        assert a.law == d, case["id"] + " law " + str(a.law)
    if case["id"] in LOWEST:
        low = lowest_in_strain(strain_of(call), a.last_bid())
        assert call_name(low) == LOWEST[case["id"]], case["id"]
    if case["id"] in ENDS:
        contract, declarer = ENDS[case["id"]]
        s = record.summary(a)
        assert s["contract"] == contract and s["declarer"] == declarer, case["id"] + " " + str(s["contract"])
    if v == codes.LEGAL and restricted:  # A29, A31: the pass obligation is discharged (deemed pass in A31)
        assert a.restriction(restricted[0], restricted[1]) is None, case["id"]
    if case["verdict"] == "IN_ROTATION_28A":
        assert record.summary(a)["auction"] == ["N:1H", "E:P", "S:2H"], case["id"]
        assert a.log[0][0] == codes.LOG_DEEMED_PASS and a.log[0][3] == 28, case["id"]




@cases(CONTRACTS)
def test_end_of_auction_contract_and_declarer(case):
    a = Auction(parse_seat(case["dealer"]))
    for seat, call in case["calls"]:
        a.call(parse_seat(seat), parse_call(call))
    s = record.summary(a)
    assert a.ended() == case["ended"], case["id"] + " ended " + str(a.ended())
    assert s["contract"] == case["contract"], case["id"] + " contract " + str(s["contract"])
    assert s["declarer"] == case["declarer"], case["id"] + " declarer " + str(s["declarer"])
    if not case["ended"]:  # C12: Law 34 — the skipped player (E) is to call
        assert s["in_turn"] == "E", case["id"]
