"""Law 77: duplicate scoring (laws.md §6.1 values, §7 vectors)."""
from cases import cases
from vectors import load

from bidwire.core import board, score
from bidwire.core.readback import parse_seat

SCORES = load("scores.json")


def _raises(fn, *args, text=""):
    try:
        fn(*args)
    except ValueError as e:
        assert text in str(e), str(e)
    else:
        raise AssertionError(f"accepted {args}")


@cases(SCORES)
def test_law77_score_vector(case):
    c = score.parse_contract(case["contract"])
    if c is None:  # S35: passed out, Law 22 — both sides score zero
        assert case["score"] == 0
        for seat in range(4):
            for vul in range(4):
                assert score.score_ns(case["contract"], seat, vul, None) == 0
                assert score.score_ns(None, seat, vul, 7) == 0
        return
    got = score.score(c[0], c[1], c[2], case["vulnerable"], case["tricks"])
    assert got == case["score"], f"{case['id']} {case['contract']}: {got} != {case['score']}"
    assert score.contract_name(c[0], c[1], c[2]) == case["contract"]


def test_law77_score_ns_board4_east_4sx_down4():
    # board 4: both vulnerable, dealer W; E declares 4SX and takes 6 tricks
    vul = board.vulnerability(4)
    assert vul == board.BOTH and board.dealer(4) == parse_seat("W")
    assert score.score_ns("4SX", parse_seat("E"), vul, 6) == 1100


def test_law77_score_ns_board1_south_3nt_making_10():
    vul = board.vulnerability(1)
    assert vul == board.NONE
    assert score.score_ns("3NT", parse_seat("S"), vul, 10) == 430


def test_law77_score_ns_uses_declarers_vulnerability():
    assert score.score_ns("4S", 0, board.NS, 10) == 620
    assert score.score_ns("4S", 1, board.NS, 10) == -420
    assert score.score_ns("4S", 3, board.EW, 10) == -620
    assert score.score_ns("4S", 2, board.EW, 9) == -50


def test_law77_parse_contract_forms():
    assert score.parse_contract("4S") == (4, 3, 0)
    assert score.parse_contract("4sx") == (4, 3, 1)
    assert score.parse_contract("3NTXX") == (3, 4, 2)
    assert score.parse_contract("1N") == (1, 4, 0)
    assert score.parse_contract(" 2H X ") == (2, 2, 1)
    assert score.parse_contract("7C") == (7, 0, 0)
    for text in ("Pass", "PASS", "P", "p"):
        assert score.parse_contract(text) is None


def test_law77_contract_name():
    assert score.contract_name(4, 3, 1) == "4SX"
    assert score.contract_name(3, 4, 2) == "3NTXX"
    assert score.contract_name(1, 0, 0) == "1C"


def test_law77_rejects_bad_score_input():
    _raises(score.score, 4, 3, 0, False, 14, text="tricks")
    _raises(score.score, 4, 3, 0, False, -1, text="tricks")
    _raises(score.score, 0, 3, 0, False, 7, text="level")
    _raises(score.score, 8, 3, 0, False, 7, text="level")
    _raises(score.score, 4, 5, 0, False, 10, text="strain")
    _raises(score.score, 4, 3, 3, False, 10, text="doubled")
    _raises(score.score, 4, 3, 0, None, 10, text="vulnerable")


def test_law77_rejects_bad_contract_text():
    _raises(score.parse_contract, "8S", text="level must be 1-7")
    _raises(score.parse_contract, "0S", text="level must be 1-7")
    _raises(score.parse_contract, "4Z", text="strain")
    _raises(score.parse_contract, "", text="contract")
    _raises(score.parse_contract, "X", text="contract")
    _raises(score.parse_contract, "S4", text="contract")
    _raises(score.parse_contract, "\u0664S", text="contract")  # a level in digits 0-9 only: not an Arabic-Indic 4
    _raises(score.parse_contract, None, text="contract")
    _raises(score.score_ns, "8S", 0, 0, 10, text="level")
    _raises(score.score_ns, "4S", 4, 0, 10, text="declarer")
    _raises(score.score_ns, "4S", 0, 4, 10, text="vulnerability")
