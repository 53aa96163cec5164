"""laws.md §5.3: the multi-step rectification scenarios R01-R27, each turned into input steps.

Steps are readback.apply tokens: "N:1H" a press, "!reject" the director does not accept (the entitled
player declines), "!reject_natural" the same with the insufficient bid judged natural, "N~1S" a change of
call after UNDO, "!25a" the director allows it as a slip. Expectations come from the scenario's text.
"""
from cases import cases
from vectors import load

from bidwire.core import codes, readback, record
from bidwire.core.auction import Auction, order_simultaneous
from bidwire.core.readback import parse_call, parse_seat

IDS = [v["id"] for v in load("auction_scenarios.json")]


def play(steps, dealer="N"):
    a = Auction(parse_seat(dealer))
    verdicts = [readback.apply(a, s) for s in steps]
    return a, record.summary(a), verdicts


def restrictions(s):
    return sorted(r["seat"] + " " + r["kind"] + (" " + r["call"] if r["call"] else "") for r in s["restrictions"])


def leads(s):
    return sorted(x["seat"] + " " + (x["suit"] or "any") for x in s["lead_restrictions"])


def reviews(s):
    return [r["kind"] for r in s["reviews"]]


def r01():
    a, s, _ = play(["E:1S", "!reject", "N:P"])
    assert restrictions(s) == ["E MUST_REPEAT 1S"] and s["in_turn"] == "E"
    assert a.call(1, parse_call("2S")) == codes.REFUSED  # only the withdrawn bid may be made
    assert a.call(1, parse_call("1S")) == codes.LEGAL
    assert record.summary(a)["restrictions"] == []


def r02():
    _, s, _ = play(["E:1S", "!reject", "N:1H", "E:2S"])
    assert restrictions(s) == ["W PASS_NEXT_TURN"] and leads(s) == []


def r03():
    _, s, _ = play(["E:1S", "!reject", "N:1H", "E:1NT"])
    assert restrictions(s) == ["W PASS_THROUGHOUT"]
    assert leads(s) == ["W S"] and "LAW23_REVIEW" in reviews(s)


def r04():
    _, s, _ = play(["S:1NT", "!reject"])
    assert s["in_turn"] == "N" and restrictions(s) == ["N PASS_THROUGHOUT"] and leads(s) == ["N any"]


def r05():
    a, s, _ = play(["E:P", "!reject", "N:1H"])
    assert restrictions(s) == ["E PASS_NEXT_TURN"]
    assert a.call(1, parse_call("1S")) == codes.PASS_OBLIGATION
    a, s, _ = play(["E:P", "!reject", "N:1H", "E:P"])
    assert restrictions(s) == []


def r06():
    a, s, _ = play(["N:1H", "E:1S", "N:P", "!reject"])
    assert s["in_turn"] == "S" and restrictions(s) == ["N PASS_THROUGHOUT", "S NO_DOUBLE_THIS_TURN"]
    assert not a.may_call(2, parse_call("X")) and a.may_call(2, parse_call("2H"))


def r07():
    _, s, _ = play(["E:1S", "S:2H"])
    assert s["auction"] == ["E:1S", "S:2H"] and s["in_turn"] == "W"
    assert s["log"][0]["what"] == "accepted" and s["log"][0]["law"] == 29


def r08():
    _, s, v = play(["N:1H", "S:2H", "E:1S"])
    assert v == [codes.LEGAL, codes.OUT_OF_ROTATION, codes.LEGAL]
    assert s["auction"] == ["N:1H", "E:1S"] and s["in_turn"] == "S" and restrictions(s) == []
    assert s["log"][0]["what"] == "cancelled" and s["log"][0]["law"] == 28


def r09():
    _, s, v = play(["N:1S", "E:1H", "S:1S"])
    assert v[2] == codes.LEGAL and s["auction"] == ["N:1S", "E:1H", "S:1S"]


def r10():
    _, s, _ = play(["N:1S", "E:1H", "!reject_natural", "E:2H"])
    assert s["auction"] == ["N:1S", "E:2H"] and restrictions(s) == [] and leads(s) == []


def r11():
    _, s, _ = play(["N:1S", "E:1H", "!reject_natural", "E:2D"])
    assert restrictions(s) == ["W PASS_THROUGHOUT"] and leads(s) == ["W H"] and "LAW23_REVIEW" in reviews(s)


def r12():
    a, s, v = play(["N:1S", "E:1H", "!reject_natural", "E:X"])
    assert v[-1] == codes.CANCELLED and s["auction"] == ["N:1S"]
    assert restrictions(s) == ["E MUST_REPLACE", "W PASS_THROUGHOUT"]
    assert a.call(1, parse_call("1D")) == codes.REFUSED  # still a sufficient bid or a pass


def r13():
    _, s, v = play(["N:1H", "E:P", "S:X", "W:2C"])
    assert v[-1] == codes.CANCELLED and s["auction"] == ["N:1H", "E:P"] and s["in_turn"] == "S"
    assert restrictions(s) == [] and leads(s) == []


def r14():
    _, s, _ = play(["N:1H", "E:P", "S:X", "!reject"])
    assert s["in_turn"] == "S" and restrictions(s) == ["N PASS_THROUGHOUT", "S MUST_REPLACE"]
    assert leads(s) == ["N any"]


R15_START = ["S:1NT", "!reject", "N:P", "E:P", "S:1NT", "W:P", "N:2C"]  # N barred by Law 31 B


def r15():
    _, s, v = play(R15_START + ["E:P"])
    assert v[6] == codes.PASS_OBLIGATION
    assert s["auction"] == ["N:P", "E:P", "S:1NT", "W:P", "N:2C", "E:P"]
    assert restrictions(s) == ["N PASS_THROUGHOUT"] and len(s["lead_restrictions"]) == 1  # none added


def r16():
    _, s, _ = play(R15_START + ["!reject"])
    assert s["auction"][-1] == "N:P" and restrictions(s) == ["N PASS_THROUGHOUT", "S PASS_THROUGHOUT"]
    assert len(s["lead_restrictions"]) == 2


def r17():
    _, s, _ = play(["N:1H", "S:P", "W:P", "N:P"])
    assert s["phase"] == "auction" and s["auction"] == ["N:1H"] and s["in_turn"] == "E"
    assert [x["seat"] for x in s["log"] if x["law"] == 34] == ["N", "W", "S"]


def r18():
    _, s, v = play(["N:1H", "E:P", "S:P", "W:P", "N:2H"])
    assert v[-1] == codes.AFTER_CLOSE and s["contract"] == "1H" and leads(s) == []


def r19():
    _, s, v = play(["N:1H", "E:P", "S:P", "W:P", "E:X"])
    assert v[-1] == codes.AFTER_CLOSE and leads(s) == ["W any"] and s["contract"] == "1H"


def r20():
    _, s, v = play(["N:7NT", "E:8C", "S:P"])
    assert v[1] == codes.ABOVE_SEVEN and s["auction"] == ["N:7NT", "E:P"] and s["in_turn"] == "S"
    assert restrictions(s) == []


def r21():
    _, s, v = play(["N:1H", "N~1S", "!25a"])
    assert v[1] == codes.CHANGE_OF_CALL and s["auction"] == ["N:1S"] and restrictions(s) == []
    _, s, v = play(["N:1H", "N:1S", "!25a"])  # record mode: a press by the last caller is the change
    assert v[1] == codes.CHANGE_OF_CALL and s["auction"] == ["N:1S"]
    _, s, v = play(["N:1H", "E:P", "N~1S"])  # 1987: too late once LHO has called
    assert v[-1] == codes.REFUSED and s["auction"] == ["N:1H", "E:P"]


def r22():
    a, _, _ = play(["N:1H"])
    presses = order_simultaneous(a, [(2, parse_call("1NT")), (1, parse_call("2C"))])
    assert [a.call(seat, call) for seat, call in presses] == [codes.LEGAL, codes.INSUFFICIENT]
    assert a.call(3, parse_call("P")) == codes.LEGAL  # W accepts the insufficient 1NT (27 A)
    assert record.summary(a)["auction"] == ["N:1H", "E:2C", "S:1NT", "W:P"]


def r23():
    _, s, v = play(["!pass_next_turn:E", "N:1H", "S:2H"])
    assert v[-1] == codes.LEGAL and s["auction"] == ["N:1H", "E:P", "S:2H"] and restrictions(s) == []


def r24():
    a, s, _ = play(["N:1H", "E:P", "W:X", "!reject", "S:P"])
    assert restrictions(s) == ["W MUST_REPEAT X"]
    assert a.call(3, parse_call("X")) == codes.LEGAL and record.summary(a)["restrictions"] == []


def r25():
    _, s, _ = play(["N:1H", "E:P", "W:X", "!reject", "S:2H"])
    assert restrictions(s) == ["E PASS_THROUGHOUT"] and s["in_turn"] == "W"


def r26():
    _, s, _ = play(["N:1H", "W:X", "!reject"])
    assert s["in_turn"] == "E" and restrictions(s) == ["E PASS_THROUGHOUT"]


def r27():
    _, s, _ = play(["N:1H", "S:X", "!reject"])
    assert s["in_turn"] == "E" and restrictions(s) == ["N PASS_THROUGHOUT", "S MUST_REPLACE"]
    _, s, v = play(["N:1H", "S:X", "W:P"])  # never acceptable: 35 A, everything back to E
    assert v[-1] == codes.CANCELLED and s["auction"] == ["N:1H"] and s["in_turn"] == "E"


STEPS = {
    "R01": r01, "R02": r02, "R03": r03, "R04": r04, "R05": r05, "R06": r06, "R07": r07, "R08": r08,
    "R09": r09, "R10": r10, "R11": r11, "R12": r12, "R13": r13, "R14": r14, "R15": r15, "R16": r16,
    "R17": r17, "R18": r18, "R19": r19, "R20": r20, "R21": r21, "R22": r22, "R23": r23, "R24": r24,
    "R25": r25, "R26": r26, "R27": r27,
}


def test_every_scenario_has_steps():
    assert sorted(STEPS) == sorted(IDS)


@cases(sorted(STEPS), None)
def test_rectification_scenario(case):
    STEPS[case]()
