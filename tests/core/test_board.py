"""Law 2: dealer and vulnerability from the board number (laws.md §2.2 vectors)."""
from cases import cases
from vectors import load

from bidwire.core import board, readback
from bidwire.core.calls import SEATS

BOARDS = load("boards.json")


@cases(BOARDS, "board")
def test_law2_dealer_and_vulnerability(case):
    n = case["board"]
    assert SEATS[board.dealer(n)] == case["dealer"], n
    assert board.VUL_NAMES[board.vulnerability(n)] == case["vul"], n


def test_law2_cycle_repeats_every_16_boards():
    for n in range(1, 17):
        for k in (16, 32, 48, 400):
            assert board.dealer(n) == board.dealer(n + k)
            assert board.vulnerability(n) == board.vulnerability(n + k)


def test_law2_rejects_board_zero():
    for bad in (0, -3):
        try:
            board.dealer(bad)
        except ValueError as e:
            assert "board number" in str(e)
        else:
            raise AssertionError("board " + str(bad) + " accepted")


def test_vulnerable_seat():
    assert board.is_vulnerable(board.NS, 0) and board.is_vulnerable(board.NS, 2)
    assert not board.is_vulnerable(board.NS, 1)
    assert board.is_vulnerable(board.BOTH, 3) and not board.is_vulnerable(board.NONE, 0)
    assert readback.parse_vul("All") == board.BOTH
