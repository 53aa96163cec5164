"""What follows an irregular call: acceptance and condonation, the director's rejection and the
restrictions it creates (laws.md §4.2-§4.17: Laws 25-39), and their discharge as the auction goes on.

Every restriction, log entry and review flag carries the law that created it and the index in the
effective auction where it was created.
"""
import bidwire.core.classify as cl  # the full name in the code: the import makes no qstr for it in the heap
from bidwire.core import calls, codes
from bidwire.core.compat import const


# MUST_REPLACE parameters: which replacements the law allows
_REPLACE_SUFFICIENT_OR_PASS = const(0)  # 27 B
_REPLACE_ANY_LEGAL = const(1)  # 36, 25 B2(b)(2)
# Board review kinds (record.py names them in the summary)
_REVIEW_LAW23 = const(1)  # damaging enforced pass (23 A/B)
_REVIEW_DIRECTOR = const(2)  # e.g. 27 B1(b), or a reading laws.md §12 leaves open
_REVIEW_AVG_MINUS = const(3)  # 1997 25 B2(b)(2): offenders' score capped at average minus


def restrict(a, seat, kind, param, law, extra=0):
    for r in a.restrictions:
        if r[0] == seat and r[1] == kind and r[2] == param:
            return  # already in force (e.g. barred under 31 B, then again under 37)
    a.restrictions.append([seat, kind, param, law, len(a.eff), extra])


def review(a, kind, law):
    a.reviews.append([kind, law, len(a.eff)])


def logged(a, what, seat, call, law):
    a.log.append([what, seat, call, law, len(a.eff)])


def bar_partner(a, offender, law, withdrawn):
    """Offender's partner must pass throughout (23 A review); Law 26 lead restriction candidate."""
    restrict(a, calls.partner(offender), codes.PASS_THROUGHOUT, 0, law)
    lead_candidate(a, offender, withdrawn, law)
    review(a, _REVIEW_LAW23, law)


def lead_candidate(a, offender, withdrawn, law):
    """Law 26 for the offender's partner: 26 A names the withdrawn suit; anything else is 26 B (-1)."""
    suit = calls.strain_of(withdrawn) if calls.is_bid(withdrawn) and calls.strain_of(withdrawn) < 4 else -1
    a.leads.append([offender, calls.partner(offender), suit, law, len(a.eff)])


def append(a, seat, call):
    """Put a call into the effective auction, discharging and resolving restrictions (laws.md §4.2)."""
    j = len(a.restrictions) - 1
    while j >= 0:
        r = a.restrictions[j]
        kind = r[1]
        if kind == codes.AWAIT_RHO:  # 31 A / 32 B: the in-turn player has now called
            del a.restrictions[j]
            if call == calls.PASS:
                restrict(a, r[0], codes.MUST_REPEAT, r[2], r[3])  # 31 A1, 32 B1
            elif r[3] == 31:
                restrict(a, r[0], codes.CONDITIONAL_ON_OFFENDER, r[2], 31)  # 31 A2
            else:
                bar_partner(a, r[0], 32, r[2])  # 32 B2
        elif r[0] == seat:
            if kind == codes.PASS_NEXT_TURN or kind == codes.NO_DOUBLE_THIS_TURN or kind == codes.MUST_REPEAT:
                del a.restrictions[j]
            elif kind == codes.MUST_REPLACE:
                del a.restrictions[j]
                if r[2] == _REPLACE_SUFFICIENT_OR_PASS:  # 27 B1(a) if natural and lowest same strain, else B2
                    w = r[5] & 127
                    if not (r[5] >> 7 and call == calls.lowest_in_strain(calls.strain_of(w), a.last_bid())):
                        bar_partner(a, seat, 27, w)
            elif kind == codes.CONDITIONAL_ON_OFFENDER:
                del a.restrictions[j]
                if calls.is_bid(call) and calls.strain_of(call) == calls.strain_of(r[2]):
                    restrict(a, calls.partner(seat), codes.PASS_NEXT_TURN, 0, 31)  # 31 A2(a)
                else:
                    bar_partner(a, seat, 31, r[2])  # 31 A2(b)
        j -= 1
    a.eff.append(call << 2 | seat)
    a.alerted.append(0)
    a.check_end()


def obligation_allows(a, seat, call):
    """MUST_REPEAT / MUST_REPLACE(27 B): does this in-turn call meet the obligation?"""
    for r in a.restrictions:
        if r[0] == seat:
            if r[1] == codes.MUST_REPEAT:
                return call == r[2]
            if r[1] == codes.MUST_REPLACE and r[2] == _REPLACE_SUFFICIENT_OR_PASS:
                return call == calls.PASS or (calls.is_bid(call) and a.sufficient(call))
    return True


def hold(a, verdict, seat, call, turn, flags):
    """Record a pending irregularity; the entitled player or the director acts next."""
    a.p_kind = verdict
    a.p_seat = seat
    a.p_call = call
    a.p_turn = turn
    a.p_flags = flags
    a.p_law = a.law = codes.law_of(verdict, call, flags)
    a.p_at = a.n_inputs - 1  # its identity: the irregular input's index in the input log
    return verdict


def press(a, seat, call):
    """RECORD mode, nothing pending: classify and act."""
    v = cl.classify(a, seat, call)
    if v == cl.DEEMED_PASS_28A:  # Law 28 A: the in-turn player was obliged to pass
        t = a.in_turn()
        logged(a, codes.LOG_DEEMED_PASS, t, calls.PASS, 28)
        append(a, t, calls.PASS)
        v = cl.classify(a, seat, call)
    if a.phase == codes.AUCTION and seat == a.in_turn():
        for r in a.restrictions:
            if r[0] != seat:
                continue
            if r[1] == codes.MUST_REPEAT:  # 31 A1, 32 B1: exactly the withdrawn call; then judged as usual
                if call != r[2]:
                    return refuse(a, r[3])
                a.restrictions.remove(r)
                break
            if r[1] == codes.MUST_REPLACE:
                if r[2] == _REPLACE_SUFFICIENT_OR_PASS:
                    if call == calls.DOUBLE or call == calls.REDOUBLE:  # 27 B3: attempt cancelled, partner barred
                        logged(a, codes.LOG_CANCELLED, seat, call, 27)
                        bar_partner(a, seat, 27, r[5] & 127)
                        a.law = 27
                        return codes.CANCELLED
                    if calls.is_bid(call) and not a.sufficient(call):
                        return refuse(a, 27)
                elif v != codes.LEGAL:
                    return refuse(a, r[3])
                break
    if v == codes.LEGAL:
        append(a, seat, call)
        a.law = 0
        return codes.LEGAL
    if v == codes.AFTER_CLOSE:
        return after_close(a, seat, call)
    return hold(a, v, seat, call, a.in_turn(), a.c_flags)


def refuse(a, law):
    a.law = law
    a.why = codes.REFUSED
    return codes.REFUSED


def after_close(a, seat, call):
    """Law 39: cancelled; a defender's bid, double or redouble may bring Law 26 lead restrictions."""
    logged(a, codes.LOG_CANCELLED, seat, call, 39)
    d = a.declarer()
    if d >= 0 and call != calls.PASS and (seat & 1) != (d & 1):
        lead_candidate(a, seat, call, 39)
    a.law = 39
    return codes.AFTER_CLOSE


def _cancel_both(a, seat, call, law):
    """Laws 35 A / 35 C: the inadmissible call and the call made over it are cancelled."""
    logged(a, codes.LOG_CANCELLED, a.p_seat, a.p_call, law)
    logged(a, codes.LOG_CANCELLED, seat, call, law)
    a.settled = (a.p_at, "condoned", law)  # settled at the table: the unit reports it (Auction.settled)
    a.clear_pending()
    a.law = law
    return codes.CANCELLED


def _accept(a, seat, call, law):
    """Laws 27 A, 29 B, 35 B: the offender's LHO called over it; the irregular call stands."""
    o, c = a.p_seat, a.p_call
    a.settled = (a.p_at, "accepted", law)
    a.clear_pending()
    logged(a, codes.LOG_ACCEPTED, o, c, law)
    append(a, o, c)
    return press(a, seat, call)


def while_pending(a, seat, call):
    k, o = a.p_kind, a.p_seat
    if k != codes.CHANGE_OF_CALL and seat == calls.lho(o):
        if k == codes.OUT_OF_ROTATION:
            if a.p_flags & codes.F_INADMISSIBLE:  # Law 32: never acceptable; 35 A
                return _cancel_both(a, seat, call, 35)
            if a.p_flags & codes.F_ABOVE_SEVEN:  # Law 38: never playable; 35 C, back to the in-turn player
                return _cancel_both(a, seat, call, 35)
            if a.p_turn == seat:  # laws.md §4.3 [DESIGN]: 28 B and 29 B both fit; accept and flag
                review(a, _REVIEW_DIRECTOR, 28)
            return _accept(a, seat, call, 29)
        if k == codes.INSUFFICIENT:
            return _accept(a, seat, call, 27)
        if k == codes.INADMISSIBLE_DOUBLE or k == codes.INADMISSIBLE_REDOUBLE:
            return _cancel_both(a, seat, call, 35)
        if k == codes.PASS_OBLIGATION:
            return _accept(a, seat, call, 35)
        if k == codes.ABOVE_SEVEN:
            _cancel_both(a, seat, call, 35)
            logged(a, codes.LOG_SUBSTITUTED_PASS, o, calls.PASS, 35)
            append(a, o, calls.PASS)
            return codes.CANCELLED
    if k == codes.OUT_OF_ROTATION and seat == a.p_turn and seat == calls.rho(o):  # Law 28 B
        logged(a, codes.LOG_CANCELLED, o, a.p_call, 28)
        a.settled = (a.p_at, "cancelled", 28)
        a.clear_pending()
        return press(a, seat, call)
    a.law = a.p_law
    return codes.HELD


def rule(a, ruling, param):
    if ruling == codes.RULE_PASS_NEXT_TURN:  # e.g. Law 24: a card exposed during the auction
        restrict(a, param & 3, codes.PASS_NEXT_TURN, 0, 24)
        a.law = 24
        return codes.LEGAL
    k, o, c, t, flags = a.p_kind, a.p_seat, a.p_call, a.p_turn, a.p_flags
    if ruling not in codes.rulings(k):
        return refuse(a, a.p_law)
    if k == codes.CHANGE_OF_CALL:
        return _rule_change(a, ruling, o, c)
    law = a.p_law
    a.clear_pending()
    logged(a, codes.LOG_CANCELLED, o, c, law)
    a.law = law
    if k == codes.OUT_OF_ROTATION:
        _reject_out_of_rotation(a, o, c, t, flags)
    elif k == codes.INSUFFICIENT:  # 27 B: replace by a sufficient bid or a pass
        natural = 128 if ruling == codes.RULE_REJECT_NATURAL else 0
        restrict(a, o, codes.MUST_REPLACE, _REPLACE_SUFFICIENT_OR_PASS, 27, c | natural)
    elif k == codes.INADMISSIBLE_DOUBLE or k == codes.INADMISSIBLE_REDOUBLE:  # Law 36
        restrict(a, o, codes.MUST_REPLACE, _REPLACE_ANY_LEGAL, 36)
        bar_partner(a, o, 36, c)
    elif k == codes.PASS_OBLIGATION or k == codes.ABOVE_SEVEN:  # Laws 37, 38: a pass instead; both barred
        logged(a, codes.LOG_SUBSTITUTED_PASS, o, calls.PASS, law)
        append(a, o, calls.PASS)
        restrict(a, o, codes.PASS_THROUGHOUT, 0, law)
        bar_partner(a, o, law, c)
    return codes.LEGAL


def _reject_out_of_rotation(a, o, c, t, flags):
    rel = (o - t) & 3
    if c == calls.PASS:  # Law 30
        if flags & codes.F_BEFORE_BID or rel == codes.RHO_TURN or rel == codes.LHO_TURN:
            restrict(a, o, codes.PASS_NEXT_TURN, 0, 30)  # 30 A, 30 B1
        else:  # 30 B2: at partner's turn after a bid
            restrict(a, o, codes.PASS_THROUGHOUT, 0, 30)
            restrict(a, calls.partner(o), codes.NO_DOUBLE_THIS_TURN, 0, 30)
            review(a, _REVIEW_LAW23, 30)
    elif flags & codes.F_ABOVE_SEVEN:  # Law 38 out of rotation [DESIGN]: both members barred, no pass substituted
        restrict(a, o, codes.PASS_THROUGHOUT, 0, 38)
        bar_partner(a, o, 38, c)
    elif flags & codes.F_INADMISSIBLE:  # 32 → 36: offender any legal call at his turn, partner barred
        restrict(a, o, codes.MUST_REPLACE, _REPLACE_ANY_LEGAL, 36)
        bar_partner(a, o, 36, c)
    elif rel == codes.RHO_TURN:  # 31 A, 32 B: wait for the in-turn player's call
        restrict(a, o, codes.AWAIT_RHO, c, 31 if calls.is_bid(c) else 32)
    else:  # 31 B, 32 A
        bar_partner(a, o, 31 if calls.is_bid(c) else 32, c)


def _rule_change(a, ruling, o, c):
    """Law 25 (laws.md §4.4): the director's reading of a change of call."""
    k = len(a.eff) - 1
    original = a.eff[k] >> 2
    if ruling == codes.RULE_25A or ruling == codes.RULE_25B_ACCEPT:
        a.clear_pending()
        a.remove_from(k, 25)
        return press(a, o, c)
    if ruling == codes.RULE_25B_STAND:
        a.clear_pending()
        logged(a, codes.LOG_CANCELLED, o, c, 25)
        restrict(a, calls.partner(o), codes.PASS_NEXT_TURN, 0, 25)  # 25 B2(b)(1)
        a.law = 25
        return codes.LEGAL
    a.clear_pending()  # RULE_25B_OTHER: rulings() allows nothing else
    logged(a, codes.LOG_CANCELLED, o, c, 25)
    a.remove_from(k, 25)
    restrict(a, o, codes.MUST_REPLACE, _REPLACE_ANY_LEGAL, 25)
    if a.options & codes.OPT_25B_OTHER_AVG_MINUS:  # 1997 reading
        review(a, _REVIEW_AVG_MINUS, 25)
        lead_candidate(a, o, original, 25)
    else:  # 1987 reading (laws.md §12.1): partner passes throughout
        bar_partner(a, o, 25, original)
    a.law = 25
    return codes.LEGAL

