"""The demo's scripted players bid from a small, sound system, so that a director watching believes the auctions:
openings by high-card points and length (1NT 15-17 balanced, a five-card major, else the longer minor), responses
that raise with support (three cards for a major) or show a major or notrump by strength, one-level overcalls on
five cards (two-level on six, or five with 11 points), simple rebids and invitations, game at 25 points together.

`auction(board, hands)` gives the calls from the dealer round the table, as the book in play.py writes them.
`stage(board, hands, kind)` makes one of those auctions irregular the way a player would: a call out of rotation
is the opening bid of the dealer's left-hand opponent made at the dealer's turn (Law 29 A: accepted by the next
call); an insufficient bid is a two-level bid pressed one level too low (Law 27 A: accepted by the next call).
"""
from bidwire.core import board as core_board

STRAINS = "CDHSN"  # lowest first
SEATS = "NESW"
_POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}
GAME = {"C": 5, "D": 5, "H": 4, "S": 4, "N": 3}
MAX_CALLS = 40  # a safety net: every rule passes sooner than this


def hcp(hand):
    return sum(_POINTS.get(card, 0) for suit in hand for card in suit)


def lengths(hand):
    """{suit: cards} of a hand as the hand record holds it (spades, hearts, diamonds, clubs)."""
    return dict(zip("SHDC", (len(s) for s in hand), strict=True))


def balanced(hand):
    return sorted(len(s) for s in hand) in ([3, 3, 3, 4], [2, 3, 4, 4], [2, 3, 3, 5])


def _text(level, strain):
    return f"{level}{'NT' if strain == 'N' else strain}"


def _parse(call):
    call = call.lstrip("~")
    if not call[:1].isdigit():
        return None
    return int(call[0]), ("N" if call[1:] == "NT" else call[1])


def _key(bid):
    return bid[0] * 5 + STRAINS.index(bid[1])


class _State:
    """The auction so far, as each player reads it: who bid what, the last bid."""

    def __init__(self, dealer, calls):
        self.made = []  # (seat, call, bid or None)
        for i, call in enumerate(calls):
            self.made.append((SEATS[(dealer + i) % 4], call, _parse(call)))
        self.last = next((b for _, _, b in reversed(self.made) if b), None)
        self.opener = next(((s, b) for s, _, b in self.made if b), None)

    def legal(self, level, strain):
        return level <= 7 and (self.last is None or _key((level, strain)) > _key(self.last))

    def bids_of(self, seat):
        return [b for s, _, b in self.made if s == seat and b]


def _partner(seat):
    return SEATS[(SEATS.index(seat) + 2) % 4]


def _first(state, *options):
    """The first of the (level, strain) options that is legal, as a call; else a pass."""
    for level, strain in options:
        if state.legal(level, strain):
            return _text(level, strain)
    return "P"


def _opening(hand):
    h, n = hcp(hand), lengths(hand)
    if 15 <= h <= 17 and balanced(hand):
        return "1NT"
    if h < 12 and not (h >= 10 and max(n.values()) >= 6):
        return "P"
    if n["S"] >= 5 and n["S"] >= n["H"]:
        return "1S"
    if n["H"] >= 5:
        return "1H"
    return "1D" if n["D"] > n["C"] or n["D"] == n["C"] >= 4 else "1C"


def _game_or_invite(state, total, fit):
    """Game with 25 points together, an invitation with 23-24, else a pass; in the fit when it is a major."""
    major = fit if fit in ("H", "S") else None
    if total >= 25:
        return _first(state, (4, major)) if major else _first(state, (3, "N"))
    if total >= 23:
        return _first(state, (3, major)) if major else _first(state, (2, "N"))
    return "P"


def _respond(state, hand, opened):
    h, n = hcp(hand), lengths(hand)
    strain = opened[1]
    if h < 6:
        return "P"
    if strain == "N":
        return _first(state, (3, "N")) if h >= 10 else _first(state, (2, "N")) if h >= 8 else "P"
    if strain in "HS" and n[strain] >= 3:
        level = 2 if h <= 9 else 3 if h <= 12 else 4
        return _first(state, *((x, strain) for x in range(level, 5)))
    for major in "HS":  # up the line: hearts first with four of each
        if STRAINS.index(major) > STRAINS.index(strain) and n[major] >= 4 and state.legal(1, major):
            return _text(1, major)
    if strain in "CD" and n[strain] >= 4:
        return _first(state, (2, strain)) if h <= 10 else _first(state, (3, "N") if balanced(hand) else (3, strain))
    return _first(state, (1, "N")) if h <= 10 else _first(state, (2, "N")) if h <= 12 else _first(state, (3, "N"))


def _rebid(state, hand, mine, theirs):
    """The opener's second call, after partner's first bid `theirs` on his opening `mine`."""
    h, n = hcp(hand), lengths(hand)
    if theirs[1] == mine[1]:  # partner raised
        if _key(theirs) >= _key((GAME[mine[1]], mine[1])) or mine[1] == "N":
            return "P" if mine[1] != "N" or h < 16 or theirs[0] != 2 else _first(state, (3, "N"))
        need = {2: 18, 3: 14}.get(theirs[0], 99)
        if h >= need:
            return _first(state, (4, mine[1])) if mine[1] in "HS" else _first(state, (3, "N"))
        if theirs[0] == 2 and h >= 16 and mine[1] in "HS":
            return _first(state, (3, mine[1]))
        return "P"
    if mine[1] == "N":
        return "P"
    if theirs[1] == "N":
        if theirs[0] == 1:
            return _first(state, (3, "N")) if h >= 18 else "P"
        return _first(state, (3, "N")) if theirs[0] == 2 and h >= 14 else "P"
    if theirs[0] == 1 and n[theirs[1]] >= 4:  # a fit for partner's major
        level = 2 if h <= 15 else 3 if h <= 18 else 4
        return _first(state, (level, theirs[1]))
    if theirs[0] == 1:  # the new suit is forcing: a call that describes the hand
        if n[mine[1]] >= 6:
            return _first(state, (2, mine[1]), (3, mine[1]))
        return _first(state, (2, "N")) if h >= 18 else _first(state, (1, "N"), (2, mine[1]), (2, "N"))
    return "P"


def _responder_again(state, hand, opened, rebid, mine):
    h, n = hcp(hand), lengths(hand)
    if _key(state.last) >= _key((GAME[state.last[1]], state.last[1])):
        return "P"
    shown = 18 if rebid[1] == "N" and rebid[0] == 2 or rebid[0] >= 3 else 13
    fit = mine[1] if rebid[1] == mine[1] else opened[1] if n.get(opened[1], 0) >= 3 and opened[1] != "N" else None
    return _game_or_invite(state, h + shown, fit)


def _opener_again(state, hand, invited):
    """The opener's answer to an invitation: game with a good hand (14 or more), else a pass."""
    if hcp(hand) < 14 or invited[0] != (GAME[invited[1]] - 1):
        return "P"
    return _first(state, (GAME[invited[1]], invited[1]))


def _defend(state, seat, hand):
    h, n = hcp(hand), lengths(hand)
    partner = state.bids_of(_partner(seat))
    if state.bids_of(seat):
        return "P"
    if partner:  # advance partner's overcall: a raise with three cards and 7-11 points, game with 12 or more
        strain = partner[0][1]
        if h >= 12:
            if strain in "HS" and n[strain] >= 3:
                return _first(state, (4, strain))
            return _first(state, (3, "N"), *((x, strain) for x in (4, 5) if strain in "CD" and n[strain] >= 3))
        if strain != "N" and n[strain] >= 3 and 7 <= h <= 11:
            return _first(state, *((x, strain) for x in (2, 3)))
        return "P"
    if 15 <= h <= 18 and balanced(hand) and state.legal(1, "N"):
        return "1NT"
    if h < 8:
        return "P"
    theirs = {b[1] for s, _, b in state.made if b and s not in (seat, _partner(seat))}
    for strain in sorted("SHDC", key=lambda s: (-n[s], -STRAINS.index(s))):
        if n[strain] < 5:
            break
        if strain in theirs:  # a suit the opponents bid is theirs: no natural overcall in it
            continue
        if state.legal(1, strain):
            return _text(1, strain)
        if state.legal(2, strain) and (n[strain] >= 6 or h >= 11):
            return _text(2, strain)
    return _first(state, (3, "N")) if h >= 19 else "P"  # too strong to pass, no suit to show


def decide(dealer, calls, hands):
    """The next player's call after `calls` (from `dealer`, a seat number)."""
    state = _State(dealer, calls)
    seat = SEATS[(dealer + len(calls)) % 4]
    hand = hands[seat]
    if state.opener is None:
        return _opening(hand)
    opener, opened = state.opener
    mine = state.bids_of(seat)
    if seat == opener:
        theirs = state.bids_of(_partner(seat))
        if len(mine) == 1 and len(theirs) == 1:
            return _rebid(state, hand, opened, theirs[0])
        if len(mine) == 2 and len(theirs) == 2 and theirs[1] == state.last:
            return _opener_again(state, hand, theirs[1])
        return "P"
    if seat == _partner(opener):
        theirs = state.bids_of(opener)
        if not mine:
            return _respond(state, hand, opened) if len(theirs) == 1 else "P"
        if len(mine) == 1 and len(theirs) == 2:
            return _responder_again(state, hand, opened, theirs[1], mine[0])
        return "P"
    return _defend(state, seat, hand)


def _ended(calls):
    if calls == ["P"] * 4:
        return True
    return len(calls) >= 4 and calls[-3:] == ["P"] * 3 and any(_parse(c) for c in calls)


def _as_dealt(dealer, calls):
    """(the seat that called first, the calls): an accepted opening out of rotation by the dealer's left-hand
    opponent ("~1S") leaves the auction as if he had dealt (Law 29 A: the dealer's turn is lost)."""
    if calls and calls[0].startswith("~"):
        return (dealer + 1) % 4, [calls[0][1:], *calls[1:]]
    return dealer, list(calls)


def auction(board, hands, calls=()):
    """The whole auction of `board` with `hands` ({seat: (spades, hearts, diamonds, clubs)}), from the dealer;
    `calls`: the calls made already (a staged irregularity), the rest bid by the system."""
    calls = list(calls)
    while not _ended(calls):
        if len(calls) >= MAX_CALLS:
            return calls + ["P"] * 3
        calls.append(decide(*_as_dealt(core_board.dealer(board), calls), hands))
    return calls


def stage(board, hands, kind):
    """The auction with an irregularity of `kind` ("out_of_rotation", "insufficient") where a player would make
    it; None when the cards give it no place (the table then bids as usual)."""
    calls = auction(board, hands)
    if kind == "out_of_rotation":
        if len(calls) > 1 and calls[0] == "P" and _parse(calls[1]):
            return auction(board, hands, ["~" + calls[1]])  # LHO opens at the dealer's turn; the dealer's pass lost
        return None
    last = None
    for i, call in enumerate(calls):
        bid = _parse(call)
        if bid is None:
            continue
        if last is not None and bid[0] >= 2 and _key((bid[0] - 1, bid[1])) <= _key(last):
            return auction(board, hands, [*calls[:i], _text(bid[0] - 1, bid[1])])  # meant one level higher
        last = bid
    return None
