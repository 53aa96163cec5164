"""A scripted 32-board session for the virtual unit, and the records it must produce.

Auctions come from laws.md §5.2 (tests/vectors/auction_contracts.json: contract and declarer given there),
turned to each board's dealer, plus irregular boards worked by hand below. Scores are endplay's (an
independent Law 77 implementation), vulnerability is laws.md §2.2's table (tests/vectors/boards.json).
Every line of the script changes the unit's state, so a driver can resume after a restart from the count
of journaled keys the unit reports.
"""
import json
from pathlib import Path

from endplay.types import Contract, Denom, Penalty, Player, Vul

VECTORS = Path(__file__).parents[1] / "vectors"
SEATS = "NESW"
DENOMS = {"C": Denom.clubs, "D": Denom.diamonds, "H": Denom.hearts, "S": Denom.spades, "NT": Denom.nt}
PLAYERS = (Player.north, Player.east, Player.south, Player.west)
PIN = ["TD", "TD", "1", "2", "3", "4"]  # raise the call, then the director opens the menu with PIN 1234

# Irregular boards, written for dealer N: (name, lines, contract, declarer). Lines are "<seat> <key>" with
# bids as "<seat> 1S". Worked from the Laws (1987) and laws.md §4.
IRREGULAR = [
    ("call out of rotation not accepted, repeated (Law 31 A1, R01)",
     ["E 1S", *("N " + k for k in PIN), "N 1", "N P", "E 1S", "S P", "W P", "N P"], "1S", "E"),
    ("insufficient bid corrected to the lowest sufficient bid in its strain (Law 27 B1a)",
     ["N 2H", "E 1S", *("N " + k for k in PIN), "N 1", "E 2S", "S P", "W P", "N P"], "2S", "E"),
    ("insufficient bid replaced by another sufficient bid: partner passes throughout (Law 27 B1b)",
     ["N 2H", "E 1S", *("N " + k for k in PIN), "N 1", "E 3C", "S P", "W P", "N P"], "3C", "E"),
    ("double attempted instead of correcting an insufficient bid: cancelled, then a pass (Law 27 B3)",
     ["N 2H", "E 1S", *("N " + k for k in PIN), "N 1", "E X", "E P", "S P", "W P"], "2H", "N"),
    ("insufficient bid replaced by a pass: partner passes throughout (Law 27 B2)",
     ["N 2H", "E 1S", *("S " + k for k in PIN), "S 1", "E P", "S P", "W P"], "2H", "N"),
    ("inadmissible double of partner's bid, replaced by a pass (Law 36)",
     ["N 1H", "E P", "S X", *("W " + k for k in PIN), "W 1", "S P", "W P", "N P", "E P"], None, None),
    ("call by a player obliged to pass (Law 37) after an insufficient bid",
     ["N 2H", "E 1S", *("N " + k for k in PIN), "N 1", "E P", "S P", "W 3C", *("N " + k for k in PIN), "N 1"],
     "2H", "N"),
    ("change of call after UNDO, director rules a slip (Law 25 A)",
     ["N 1H", "N UNDO", "N 1S", *("E " + k for k in PIN), "E 1", "E P", "S P", "W P"], "1S", "N"),
    ("call after the auction closed, cancelled (Law 39)",
     ["N 1H", "E P", "S P", "W P", "E X", *("S " + k for k in PIN), "S 1"], "1H", "N"),
]


def _load(name):
    return json.loads((VECTORS / name).read_text())


def vulnerability(board):
    table = {b["board"]: b["vul"] for b in _load("boards.json")["boards"]}
    return table[(board - 1) % 16 + 1]


def endplay_score_ns(contract, declarer, board, tricks):
    """North-South's score from endplay: Law 77, declarer's vulnerability from laws.md §2.2."""
    if contract == "Pass":
        return 0
    doubled = 2 if contract.endswith("XX") else 1 if contract.endswith("X") else 0
    body = contract.rstrip("X")
    c = Contract(level=int(body[0]), denom=DENOMS[body[1:]], declarer=PLAYERS[SEATS.index(declarer)],
                 penalty=(Penalty.passed, Penalty.doubled, Penalty.redoubled)[doubled],
                 result=tricks - (int(body[0]) + 6))
    vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "Both": Vul.both}[vulnerability(board)]
    s = c.score(vul)  # endplay scores from declarer's side
    return s if SEATS.index(declarer) % 2 == 0 else -s


def _turn(seat, k):
    return SEATS[(SEATS.index(seat) + k) % 4]


def _key_lines(seat, call):
    if call in ("P", "PASS"):
        return [f"{seat} PASS"]
    if call in ("X", "XX", "TD", "UNDO", "ALERT") or call.isdigit():
        return [f"{seat} {call}"]
    return [f"{seat} {call[0]}", f"{seat} {call[1:]}"]


def _finish(board, contract, declarer, tricks):
    """Lead, result entry by declarer, confirmation by declarer's LHO, then on to the next board."""
    lines = []
    if contract != "Pass":
        leader = _turn(declarer, 1)
        lines.append(f"{leader} C")
        level = int(contract[0])
        if tricks >= 7 and tricks != level + 6:
            lines.append(f"{declarer} {tricks - 6}")
        elif tricks < 7:
            lines += [f"{declarer} X"] * (level + 6 - tricks)
        lines += [f"{declarer} PASS", f"{leader} PASS"]
    lines.append("N PASS")
    return lines


def session(n_boards=32):
    """(script lines, expected records by board number)."""
    contracts = [v for v in _load("auction_contracts.json")["vectors"] if v["ended"] and v["contract"]]
    lines = ["N PASS"]  # set-up: play without a collector assignment, from board 1
    expected = {}
    tricks_cycle = [9, 8, 10, 7, 11, 6, 12, 5, 13, 4]
    ci = ii = 0
    for board in range(1, n_boards + 1):
        dealer = (board - 1) % 4
        tricks = tricks_cycle[board % len(tricks_cycle)]
        if board % 3 == 0 and ii < len(IRREGULAR):
            name, calls, contract, declarer = IRREGULAR[ii]
            ii += 1
            k = dealer  # written for dealer N
            for item in calls:
                seat, call = item.split()
                lines += _key_lines(_turn(seat, k), call)
            if contract is None:  # Law 36 board: the auction N:1H E:P S:P W:P, so N plays 1H
                contract, declarer = "1H", "N"
            declarer = _turn(declarer, k)
        else:
            v = contracts[ci % len(contracts)]
            ci += 1
            k = (dealer - SEATS.index(v["dealer"])) % 4
            for seat, call in v["calls"]:
                lines += _key_lines(_turn(seat, k), call)
            contract = v["contract"]
            declarer = _turn(v["declarer"], k) if v["declarer"] else None
        if contract == "Pass":
            tricks = None
        lines += _finish(board, contract, declarer, tricks)
        expected[board] = {"board": board, "contract": contract, "declarer": declarer, "tricks": tricks,
                           "score_ns": endplay_score_ns(contract, declarer, board, tricks)}
    return lines, expected
