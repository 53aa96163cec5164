"""Board number → dealer and vulnerability (Law 2, laws.md §2.2). Repeats every 16 boards."""

VUL_NAMES = ("None", "NS", "EW", "Both")
NONE = 0
NS = 1
EW = 2
BOTH = 3


def _check(board):
    if not isinstance(board, int) or board < 1:
        raise ValueError(f"board number must be a whole number from 1, not {board}")


def dealer(board):
    """Seat 0..3 (N E S W) that deals `board`."""
    _check(board)
    return (board - 1) & 3


def vulnerability(board):
    """0 None, 1 NS, 2 EW, 3 Both (the closed form of laws.md §2.2)."""
    _check(board)
    n = (board - 1) % 16
    return (n + n // 4) & 3


def is_vulnerable(vul, seat):
    """Is `seat`'s side vulnerable under vulnerability code `vul`?"""
    return vul == BOTH or vul == (EW if seat & 1 else NS)  # seat & 1: its side (calls.side)
