"""Hand records and their double-dummy analysis (docs/scorer.md, "Hand records and analysis").

The analysis of a deal is endplay's DDS (the library Bridgemate and most scoring programs use, through Bo
Haglund's solver): `tables` gives, for each deal, the tricks each seat takes as declarer in each strain with best
play by everybody, and the par score and contracts for the board's vulnerability and dealer (Law 2). They are
computed once per deal, in one batch (DDS solves up to 32 deals per call), and stored with the event.

`deal_session` deals a session's boards with endplay's dealer (a seed makes it repeatable) and writes them as a
PBN hand-record file the event refers to, for duplimating machines and for the exports.

Uses (collector/validator.py): a lead of a suit the leader does not hold is a fouled board (Law 13 A: the cards
are not those of the hand record); a result more than `SUSPICIOUS_TRICKS` tricks away from double dummy is flagged
for the scorer, as Bridgemate's "suspicious contracts" does (a wrong entry, more often than a great defence).
"""
import os

from bidwire.core import board as boards

SEATS = "NESW"
STRAINS = ("C", "D", "H", "S", "NT")  # as shown: low to high
# endplay's order: Denom spades, hearts, diamonds, clubs, nt; Player north, east, south, west
_DENOMS = ("S", "H", "D", "C", "NT")
SUSPICIOUS_TRICKS = int(os.environ.get("BIDWIRE_SUSPICIOUS_TRICKS") or 3)
_VULS = ("none", "ns", "ew", "both")


def _endplay_deal(deal):
    from endplay.types import Deal

    return Deal(deal.pbn("N"))


def tables(hands):
    """{board: {"dd": {seat: {strain: tricks}}, "par": {"score": NS's score, "contracts": [text]}}} for the
    hand records given ({board: pbn_import.HandRecord}); boards without a whole deal are left out."""
    from endplay.dds import calc_all_tables, par
    from endplay.types import Player, Vul

    whole = {b: h for b, h in sorted(hands.items()) if h.deal is not None and all(
        h.deal.hands.get(s) is not None for s in SEATS)}
    out = {}
    items = list(whole.items())
    for start in range(0, len(items), 32):  # DDS takes up to 32 deals a call
        chunk = items[start:start + 32]
        results = calc_all_tables([_endplay_deal(h.deal) for _, h in chunk])
        for (board, h), table in zip(chunk, results, strict=True):
            rows = table.to_list()
            dd = {seat: {_DENOMS[d]: rows[d][p] for d in range(5)} for p, seat in enumerate(SEATS)}
            vul = getattr(Vul, _VULS[h.vulnerable])
            dealer = getattr(Player, {"N": "north", "E": "east", "S": "south", "W": "west"}[h.dealer])
            pars = par(table, vul, dealer)
            out[board] = {"dd": dd, "par": {"score": pars.score, "contracts": [str(c) for c in pars]}}
    return out


def tricks_for(analysis, contract, declarer):
    """Double-dummy tricks for declarer in the contract's strain (None for a pass-out or without analysis)."""
    if analysis is None or not contract or contract == "Pass" or not declarer:
        return None
    strain = contract.rstrip("X")[1:]
    return analysis["dd"].get(declarer, {}).get(strain)


def holds_suit(hand_record, seat, suit):
    """Whether `seat` holds a card of `suit` (C D H S) in the hand record (None when the hand is unknown)."""
    if hand_record is None or hand_record.deal is None:
        return None
    hand = hand_record.deal.hands.get(seat)
    if hand is None:
        return None
    return bool(hand["SHDC".index(suit)])


def deal_session(board_numbers, seed=None):
    """Random deals for the boards (endplay's dealer; `seed` repeats them): PBN text of hand records, each with
    the board's Law 2 dealer and vulnerability."""
    import random

    from endplay.dealer import generate_deal

    rng = random.Random(seed)
    out = ["% bidwire hand records, dealt with endplay's dealer\n"]
    for b in board_numbers:
        deal = generate_deal(seed=rng.getrandbits(32))
        dealer = "NESW"[boards.dealer(b)]
        vul = boards.VUL_NAMES[boards.vulnerability(b)]
        out.append(f'[Event "?"]\n[Board "{b}"]\n[Dealer "{dealer}"]\n[Vulnerable "{vul}"]\n'
                   f'[Deal "{deal.to_pbn()}"]\n')
    return "\n".join(out)
