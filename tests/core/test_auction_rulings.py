"""One implementation of each rule the unit and the collector share: the rulings the director may give on each
irregularity (laws.md §4.19), Law 25 A "may this seat still change its call", and the identity (input index) and
settlement of each pending irregularity. Runs on both interpreters."""
from bidwire.core import codes, readback, record
from bidwire.core.auction import Auction
from bidwire.core.codes import rulings
from bidwire.core.readback import parse_call


def play(steps, dealer=0):
    a = Auction(dealer)
    verdicts = [readback.apply(a, s) for s in steps]
    return a, verdicts


def names(kind):
    return [codes.RULE_NAMES[r] for r in rulings(kind)]


def test_rulings_per_irregularity_laws_25_27_and_the_rest_reject():
    assert names(codes.CHANGE_OF_CALL) == ["25a", "25b_accept", "25b_stand", "25b_other"]  # Law 25 A / B
    assert names(codes.INSUFFICIENT) == ["reject", "reject_natural"]  # 27 B1(a) needs "natural" from the TD
    for kind in (codes.OUT_OF_ROTATION, codes.INADMISSIBLE_DOUBLE, codes.INADMISSIBLE_REDOUBLE,
                 codes.PASS_OBLIGATION, codes.ABOVE_SEVEN):  # Laws 30-32, 36, 37, 38
        assert names(kind) == ["reject"], kind
    for kind in (codes.LEGAL, codes.AFTER_CLOSE, codes.HELD, codes.REFUSED, codes.CANCELLED):
        assert names(kind) == [], kind  # never pending: nothing for the director to choose


def test_the_engine_refuses_a_ruling_the_irregularity_does_not_allow():
    a, v = play(["N:1S", "E:1H", "!reject_natural"])  # 27 B: allowed
    assert v[-1] == codes.LEGAL and not a.p_kind
    a, v = play(["E:1S", "!reject_natural"])  # out of rotation: "natural" means nothing there
    assert v[-1] == codes.REFUSED and a.p_kind == codes.OUT_OF_ROTATION and a.p_at == 0
    a, v = play(["N:1H", "N:1S", "!reject"])  # a change of call takes a Law 25 ruling, not a plain reject
    assert v[-1] == codes.REFUSED and a.p_kind == codes.CHANGE_OF_CALL
    a, v = play(["N:1H", "!25a"])  # nothing pending
    assert v[-1] == codes.REFUSED


def test_law25a_only_the_last_caller_until_lho_calls_never_in_play():
    a = Auction(0)
    assert not a.may_change(0)  # nobody has called
    a.call(0, parse_call("1H"))
    assert a.may_change(0) and not a.may_change(1) and not a.may_change(2)
    a.call(1, parse_call("P"))
    assert not a.may_change(0) and a.may_change(1)  # N's LHO has called: 25 A is over for N
    a.call(3, parse_call("1S"))  # W out of rotation: pending
    assert not a.may_change(3) and not a.may_change(1)  # not while an irregularity waits
    a, _ = play(["N:1H", "E:P", "S:P", "W:P", "*lead"])
    assert a.phase == codes.PLAY and not a.may_change(3)


def test_a_pending_irregularity_is_named_by_its_input_index():
    a, _ = play(["N:1H", "E@", "S@", "E:P", "W:1S"])  # W out of rotation at S's turn; S's alert marked N's 1H
    assert a.p_kind == codes.OUT_OF_ROTATION and a.p_at == 3  # E@ marked nothing: no input, so W:1S is input 3
    assert record.tokens(a)[a.p_at] == "W:1S"
    assert record.summary(a)["pending"]["at"] == 3
    readback.apply(a, "!reject")
    assert a.p_at == -1


def test_accepted_by_calling_law29b():
    a, _ = play(["E:1S", "S:2C"])  # S, E's LHO, calls over the 1S out of rotation
    assert a.settled == (0, "accepted", 29) and not a.p_kind


def test_accepted_insufficient_law27a_then_a_new_one_has_its_own_index():
    a, _ = play(["N:2H", "E:1S", "S:1D"])  # S accepts 1S (27 A), and 1D is insufficient over it
    assert a.settled == (1, "accepted", 27)
    assert a.p_kind == codes.INSUFFICIENT and a.p_at == 2


def test_condoned_inadmissible_double_law35a():
    a, _ = play(["N:1H", "E:P", "S:X", "W:P"])  # S doubles his partner's bid; W calls over it
    assert a.settled == (2, "condoned", 35) and len(a.eff) == 2  # X and W's pass cancelled


def test_condoned_bid_above_seven_law35c():
    a, _ = play(["N:7NT", "E:8C", "S:P"])
    assert a.settled == (1, "condoned", 35)
    assert record.summary(a)["auction"] == ["N:7NT", "E:P"]  # the offender's pass substituted


def test_cancelled_when_the_in_turn_player_calls_law28b():
    a, _ = play(["E:1S", "N:1C"])  # E (LHO of N) called at N's turn; N calls: E's 1S is cancelled
    assert a.settled == (0, "cancelled", 28) and record.summary(a)["auction"] == ["N:1C"]


def test_a_ruling_settles_nothing_at_the_table():
    a, _ = play(["E:1S", "!reject"])
    assert a.settled == (-1, "", 0)  # none yet
