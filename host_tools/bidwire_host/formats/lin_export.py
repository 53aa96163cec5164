"""LIN, BBO's hand viewer format (the `.lin` files results sites embed): one file per board, one line per table
whose auction is known, each with the players' names, the deal, the board number and vulnerability, the auction
with its alerts, and the tricks declarer took (`mc`).

A LIN line is `key|value|` pairs: `pn` the names from South round the table (S, W, N, E), `md` the dealer (1 South,
2 West, 3 North, 4 East) and the hands from South as `S..H..D..C..`, `sv` the vulnerability (o, n, e, b), `ah`
"Board N", `mb` a call (`p`, `d`, `r`, `1N`...) with `!` when alerted and `an` its explanation, `mc` the tricks.
LIN has no mark for an irregularity: a call out of rotation that was accepted gets, for each player it skipped, a
`p` explained as PBN's default form writes it (pbn_export.auction_lines), and an insufficient bid its note, so a
viewer replays the auction the table played. `|` ends a value and `,` separates the names, so neither is written
inside one (each becomes a space). There is no play: a unit records the lead's suit, not the cards.
"""
from __future__ import annotations

import re

from bidwire.core.calls import SEATS
from bidwire_host.formats import pbn_export
from bidwire_host.formats.publish import players_of

LIN_SEATS = "SWNE"  # the order of md's hands and pn's names; md's dealer digit is 1 + the index here
LIN_VUL = "oneb"  # sv|: none, NS, EW, both, by Law 2's vulnerability code
_NOT_LIN = re.compile(r"[|\x00-\x1f\x7f]")  # a LIN value ends at "|"; a line break ends the record


def _text(value):
    return _NOT_LIN.sub(" ", str(value or "")).strip()


def _call(name):
    n = name.strip().upper()
    if n in ("P", "PASS"):
        return "p"
    if n in ("X", "XX"):
        return "d" if n == "X" else "r"
    return n.replace("NT", "N")


def seat_names(pub, record, row_index):
    """{seat: name} of the players at the table, from the board's players or the pairs' (NS: N, S; EW: E, W)."""
    named = dict(record.players.get(row_index, {}))
    if named or pub.method == "teams":
        return named
    r = record.rows[row_index].result
    for line, seats, pid in (("NS", "NS", r.ns), ("EW", "EW", r.ew)):
        players = players_of(pub, (line, pid) if pub.two_fields else pid)
        for seat, player in zip(seats, players, strict=False):
            named[seat] = player.name
    return named


def auction_pairs(dealer, calls):
    """The auction as LIN pairs, accepted irregularities explained as PBN's default form (pbn_export)."""
    pairs = []
    for c, name, skipped, insufficient in pbn_export.replay(dealer, calls):
        for seat in skipped:
            pairs += [("mb", "p!"), ("an", pbn_export.SKIPPED_NOTE.format(seat=pbn_export.SEAT_NAMES[seat]))]
        notes = [pbn_export.INSUFFICIENT_NOTE] if insufficient else []
        if c.explanation:
            notes.append(c.explanation)
        pairs.append(("mb", _call(name) + ("!" if insufficient or c.alert or c.explanation else "")))
        if notes:
            pairs.append(("an", _text("; ".join(notes))))
    return pairs


def game_line(pub, record, row_index):
    """One table's play of the board as a LIN line (without its line end): with `mc`, the tricks declarer took,
    after the auction's `pg||` as BBO orders them, when the deal is known (`md`, which says the dealer too: a
    reader places the contract from it, and endplay refuses a claim in a line without one)."""
    r = record.rows[row_index].result
    names = seat_names(pub, record, row_index)
    # pn's names are separated by commas: a comma inside a name would move the names after it to other seats
    pairs = [("pn", ",".join(_text(names.get(s, "")).replace(",", " ") for s in LIN_SEATS)), ("st", "")]
    deal = record.deal
    dealt = deal is not None and all(deal.hands.get(s) for s in SEATS)
    if dealt:
        hands = ",".join("".join(suit + cards for suit, cards in zip("SHDC", deal.hands[s], strict=True))
                         for s in LIN_SEATS)
        pairs += [("md", f"{LIN_SEATS.index(record.dealer_seat) + 1}{hands}"), ("rh", "")]
    pairs += [("ah", f"Board {record.board}"), ("sv", LIN_VUL[record.vul])]
    pairs += auction_pairs(record.dealer_seat, record.auctions[row_index])
    pairs.append(("pg", ""))  # the auction's page ends; the play (none recorded) would follow it
    if dealt and r.tricks is not None and (r.contract or "").upper() not in ("PASS", "P", ""):
        pairs.append(("mc", str(r.tricks)))  # the claim comes after the play, as BBO writes it (issue 40)
    return "".join(f"{k}|{v}|" for k, v in pairs)


def board_lin(pub, record):
    """The board's LIN file: a line per table whose auction is known."""
    return "".join(game_line(pub, record, i) + "\n" for i in sorted(record.auctions))


def boards(pub):
    """{file name: text}: board-1.lin, board-2.lin... for every board with a known auction."""
    return {f"board-{r.board}.lin": board_lin(pub, r) for r in pub.boards if r.auctions}
