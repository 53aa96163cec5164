"""Small-integer codes shared by the auction engine, the unit and the host: verdicts, restrictions, rulings.
The names the auction's summary gives phases, restrictions, reviews and log entries are record.py's.

Names follow laws.md §4.1 (verdicts), §4.2 (restrictions) and §4.19 (director rulings).
"""
from bidwire.core.compat import const

# Modes (laws.md §4.0)
RECORD = const(0)
ENFORCE = const(1)

# Phases (laws.md §3.6)
AUCTION = const(0)
ENDED = const(1)  # contract known, opening lead not yet faced
PASSED_OUT = const(2)
PLAY = const(3)

# Verdicts returned for each press (laws.md §4.1), plus what the engine did with presses it could not take
LEGAL = const(0)
OUT_OF_ROTATION = const(1)
INSUFFICIENT = const(2)
INADMISSIBLE_DOUBLE = const(3)
INADMISSIBLE_REDOUBLE = const(4)
PASS_OBLIGATION = const(5)
CHANGE_OF_CALL = const(6)
AFTER_CLOSE = const(7)
ABOVE_SEVEN = const(8)
HELD = const(9)  # an irregularity is pending: only the entitled player or the director may act
REFUSED = const(10)  # enforce mode, or a call that an obligation (repeat/replace) does not allow
CANCELLED = const(11)  # the press was cancelled by a law (35 A/C condonation, 27 B3 attempt)
FULL = const(12)  # the board's input log has no room for the press (auction.MAX_INPUTS): not taken, nothing logged
VERDICT_NAMES = (
    "legal", "out_of_rotation", "insufficient_bid", "inadmissible_double", "inadmissible_redouble",
    "pass_obligation", "change_of_call", "after_close", "above_seven", "held", "refused", "cancelled", "log_full",
)

# Secondary flags of an irregularity (laws.md §4.1 row 4 and the notes below the table)
F_INADMISSIBLE = const(1)
F_ALSO_INSUFFICIENT = const(2)
F_BEFORE_BID = const(4)
F_UNDER_OBLIGATION = const(8)
F_L30B2 = const(16)  # double/redouble at a turn where Law 30 B2 forbids it
F_ABOVE_SEVEN = const(32)  # a bid above seven out of rotation: never acceptable (Law 38) [DESIGN]

# Whose turn it was, relative to the offender of a call out of rotation: (offender - in_turn) & 3
RHO_TURN = const(1)
PARTNER_TURN = const(2)
LHO_TURN = const(3)

# Restriction kinds (laws.md §4.2)
PASS_NEXT_TURN = const(1)
PASS_THROUGHOUT = const(2)
NO_DOUBLE_THIS_TURN = const(3)
MUST_REPEAT = const(4)
MUST_REPLACE = const(5)
AWAIT_RHO = const(6)  # 31 A / 32 B: the outcome depends on the in-turn player's call
CONDITIONAL_ON_OFFENDER = const(7)  # 31 A2: partner's restriction depends on the offender's next call
# MUST_REPLACE's parameters and the board reviews' kinds are rectify.py's own (no other module reads them); the
# summary's names for the reviews are record.py's

# Director rulings (laws.md §4.19 DirectorRuling)
RULE_REJECT = const(1)  # the irregularity is not accepted: apply the law's rectification
RULE_REJECT_NATURAL = const(2)  # 27 B: not accepted, and the insufficient bid was beyond doubt natural
RULE_25A = const(3)  # slip corrected at once: the substitute stands
RULE_25B_ACCEPT = const(4)  # LHO accepts the substitute
RULE_25B_STAND = const(5)  # substitute cancelled, original call stands, partner passes once
RULE_25B_OTHER = const(6)  # original withdrawn, offender makes another legal call
RULE_PASS_NEXT_TURN = const(7)  # director-imposed (Law 24, exposed card): param = seat
RULE_NAMES = (
    "", "reject", "reject_natural", "25a", "25b_accept", "25b_stand", "25b_other", "pass_next_turn",
)

# Log entries: what happened to a call that is not (or no longer) in the effective auction
LOG_CANCELLED = const(1)
LOG_ACCEPTED = const(2)
LOG_DEEMED_PASS = const(3)
LOG_SUBSTITUTED_PASS = const(4)

# Edition options for points laws.md §12 leaves open
OPT_25B_OTHER_AVG_MINUS = const(1)  # 1997 reading of 25 B2(b)(2); default is the 1987 reading


def law_of(verdict, call, flags):
    """The law a verdict is decided under (laws.md §4.1 table)."""
    if verdict == OUT_OF_ROTATION:
        return 30 if call == 0 else (31 if call >= 3 else 32)
    if verdict == INSUFFICIENT:
        return 27
    if verdict == INADMISSIBLE_DOUBLE or verdict == INADMISSIBLE_REDOUBLE:
        return 36
    if verdict == PASS_OBLIGATION:
        return 30 if flags & F_L30B2 else 37
    if verdict == CHANGE_OF_CALL:
        return 25
    if verdict == AFTER_CLOSE:
        return 39
    if verdict == ABOVE_SEVEN:
        return 38
    return 0


# Declarer's choice at a Law 26 lead restriction, for the restricted player's first lead (whether a lead complies:
# lead26.py, loaded only for a lead under such a choice)
L26_WAIVE = const(0)  # no restriction
L26_BAR = const(1)  # the suit may not be led
L26_REQUIRE = const(2)  # the suit must be led (26 A only)
L26_NAMES = ("waive", "bar", "require")

def rulings(kind):
    """The rulings the director may give on a pending irregularity of this kind (laws.md §4.19); () for a verdict
    that is never pending (legal, or settled by the law at once, as after the close: Law 39)."""
    if kind == CHANGE_OF_CALL:
        return (RULE_25A, RULE_25B_ACCEPT, RULE_25B_STAND, RULE_25B_OTHER)
    if kind == INSUFFICIENT:
        return (RULE_REJECT, RULE_REJECT_NATURAL)  # 27 B1(a) needs the director's word that the bid was natural
    if OUT_OF_ROTATION <= kind <= PASS_OBLIGATION or kind == ABOVE_SEVEN:
        return (RULE_REJECT,)
    return ()

