"""The auction engine: state, the calls in force, end of auction and contract (laws.md §3), and the inputs.

State changes only through the input methods (call, change, rule, lead_faced, alert); each input is also
appended to `inputs` (2 bytes) so the state can be rebuilt by replaying them (bidwire.core.record). The input log
is allocated once at its full size, MAX_INPUTS: a press it has no room for is refused (`room`, verdict FULL).
Classification lives in classify.py (§4.1), rectification in rectify.py (§4.3-§4.17).
"""
import bidwire.core.rectify as rectify  # the full name in the code: the import makes no qstr for it in the heap
from bidwire.core import calls, classify, codes
from bidwire.core.compat import const


IN_CALL = const(0)
IN_CHANGE = const(1)
IN_RULE = const(2)
IN_LEAD = const(3)
IN_ALERT = const(4)

# A board's input log holds at most MAX_INPUTS inputs: the longest legal auction has 319 calls, and a real one
# with its alerts, corrections, irregular calls and rulings stays under 100; the last RESERVE places only take what
# brings the board to its end (Auction.room). 2 bytes each, allocated once per board (768 bytes).
MAX_INPUTS = const(384)
RESERVE = const(16)


class Auction:
    """One board's auction. `dealer` is a seat 0..3; `mode` RECORD or ENFORCE; `options` edition bits."""

    def __init__(self, dealer, mode=codes.RECORD, options=0):
        if dealer not in (0, 1, 2, 3):
            raise ValueError("dealer must be a seat 0..3 (N E S W)")
        if mode not in (codes.RECORD, codes.ENFORCE):
            raise ValueError("mode must be record or enforce")
        self.dealer = dealer
        self.mode = mode
        self.options = options
        self.eff = bytearray()  # effective calls, each call << 2 | seat (laws.md §3.2)
        self.alerted = bytearray()  # 1 where the call at that index was alerted
        self._log = bytearray(2 * MAX_INPUTS)  # the input log, 2 bytes per input: kind << 2 | seat, value
        self.n_inputs = 0  # inputs logged
        self.phase = codes.AUCTION
        self.restrictions = []  # [seat, kind, param, law, at, extra]
        self.leads = []  # lead-restriction candidates: [offender, restricted seat, suit or -1, law, at]
        self.reviews = []  # [kind, law, at]
        self.log = []  # [what, seat, call, law, at]: calls cancelled, accepted, deemed or substituted
        self.c_flags = 0  # secondary flags of the last classification
        # (at, how, law): the last pending irregularity settled at the table by a call, without the director (rectify):
        # "accepted" (it stands: 27 A, 29 B, 35 B), "condoned" (cancelled with the call over it: 35 A, 35 C) or
        # "cancelled" (the in-turn player called over it: 28 B)
        self.settled = (-1, "", 0)
        self.clear_pending()
        self.why = codes.LEGAL  # enforce mode: the classification behind the last REFUSED
        self.law = 0  # law of the last verdict

    # ---- derived facts -------------------------------------------------------------------------
    @property
    def inputs(self):
        """The input log so far (a view of the preallocated buffer)."""
        return memoryview(self._log)[:2 * self.n_inputs]

    def room(self, kind, seat=0, call=0):
        """May one more input of `kind` (IN_*) be logged? Any while more than RESERVE places are free; then only
        a director's ruling, the lead and a call the engine takes as legal in turn (may_call), so that the board
        can still end; the very last place only the opening lead."""
        n = self.n_inputs
        if n >= MAX_INPUTS - 1:
            return kind == IN_LEAD and n < MAX_INPUTS
        return n < MAX_INPUTS - RESERVE or kind == IN_RULE or kind == IN_LEAD or (
            kind == IN_CALL and self.may_call(seat, call))

    def clear_pending(self):
        self.p_kind = 0
        self.p_seat = self.p_call = self.p_turn = self.p_flags = self.p_law = 0
        self.p_at = -1  # the pending irregularity's input index (its identity on the board), -1: none

    def may_change(self, seat):
        """Law 25 A (1987): may `seat` still change its call? Only the last caller, only until LHO calls, never
        once play has begun, and not while another irregularity waits."""
        return not self.p_kind and len(self.eff) > 0 and self.eff[-1] & 3 == seat and self.phase != codes.PLAY

    def in_turn(self):
        """The seat entitled to call next (Law 17 B, C): dealer, then LHO of the last effective call."""
        return calls.lho(self.eff[-1] & 3) if self.eff else self.dealer

    def last_bid_index(self):
        i = len(self.eff) - 1
        while i >= 0 and self.eff[i] >> 2 < calls.FIRST_BID:
            i -= 1
        return i

    def last_bid(self):
        i = self.last_bid_index()
        return self.eff[i] >> 2 if i >= 0 else calls.PASS

    def double_ok(self, seat):
        """Law 19 A1: only the last bid, made by an opponent, with only passes since."""
        i = self.last_bid_index()
        if i < 0 or calls.side(self.eff[i] & 3) == calls.side(seat):
            return False
        for j in range(i + 1, len(self.eff)):
            if self.eff[j] >> 2 != calls.PASS:
                return False
        return True

    def redouble_ok(self, seat):
        """Law 19 B1: only the last double, made by an opponent, with only passes since."""
        i = self.last_bid_index()
        if i < 0:
            return False
        found = -1
        for j in range(i + 1, len(self.eff)):
            c = self.eff[j] >> 2
            if c == calls.DOUBLE and found < 0:
                found = j
            elif c != calls.PASS:
                return False
        return found >= 0 and calls.side(self.eff[found] & 3) != calls.side(seat)

    def sufficient(self, call):
        """Law 18: a bid supersedes the last bid if it ranks higher."""
        return call > self.last_bid()

    def restriction(self, seat, kind):
        for r in self.restrictions:
            if r[0] == seat and r[1] == kind:
                return r
        return None

    def must_pass(self, seat):
        """Is `seat` obliged to pass at its next turn (laws.md §4.2)?"""
        for r in self.restrictions:
            if r[0] == seat and (r[1] == codes.PASS_NEXT_TURN or r[1] == codes.PASS_THROUGHOUT):
                return True
        return False

    def contract(self):
        """(final bid call code, doubled 0/1/2) once the auction has ended, else None."""
        if self.phase != codes.ENDED and self.phase != codes.PLAY:
            return None
        i = self.last_bid_index()
        doubled = 0
        for j in range(i + 1, len(self.eff)):
            c = self.eff[j] >> 2
            if c == calls.DOUBLE:
                doubled = 1
            elif c == calls.REDOUBLE:
                doubled = 2
        return self.eff[i] >> 2, doubled

    def declarer(self):
        """Of the side that made the final bid, the first to name its strain (laws.md §2.3); -1 if none."""
        if self.phase != codes.ENDED and self.phase != codes.PLAY:
            return -1
        i = self.last_bid_index()
        s, strain = calls.side(self.eff[i] & 3), calls.strain_of(self.eff[i] >> 2)
        for c in self.eff:
            if c >> 2 >= calls.FIRST_BID and calls.strain_of(c >> 2) == strain and calls.side(c & 3) == s:
                return c & 3
        return -1

    # ---- inputs ------------------------------------------------------------------------------------
    def _note(self, kind, seat, value):
        i = 2 * self.n_inputs
        if i >= 2 * MAX_INPUTS:
            raise ValueError("the board's input log is full")  # callers ask room() first: never reached
        self._log[i] = kind << 2 | seat
        self._log[i + 1] = value
        self.n_inputs += 1

    def call(self, seat, call):
        """A call pressed by `seat`. Returns a verdict code; `law` holds the law it was decided under."""
        if not 0 <= seat <= 3 or not 0 <= call <= calls.MAX_CODE:
            raise ValueError("seat must be 0..3 and call a code 0.." + str(calls.MAX_CODE))
        if not self.room(IN_CALL, seat, call):
            return codes.FULL
        self._note(IN_CALL, seat, call)
        if self.mode == codes.ENFORCE:
            return self._enforce(seat, call)
        if self.p_kind:
            return rectify.while_pending(self, seat, call)
        return rectify.press(self, seat, call)

    def change(self, seat, call):
        """UNDO then a call: the last caller asks to change his call (Law 25); the director rules."""
        if not 0 <= seat <= 3 or not 0 <= call <= calls.MAX_CODE:
            raise ValueError("seat must be 0..3 and call a code 0.." + str(calls.MAX_CODE))
        if not self.room(IN_CHANGE):
            return codes.FULL
        self._note(IN_CHANGE, seat, call)
        if not self.may_change(seat):
            self.law = 25
            self.why = codes.CHANGE_OF_CALL
            return codes.REFUSED
        return rectify.hold(self, codes.CHANGE_OF_CALL, seat, call, self.in_turn(), 0)

    def rule(self, ruling, param=0):
        """A director's ruling on the pending irregularity (or a restriction he imposes)."""
        if not 0 < ruling < 16:
            raise ValueError("unknown ruling code " + str(ruling))
        if not self.room(IN_RULE):
            return codes.FULL
        self._note(IN_RULE, param & 3, ruling)
        return rectify.rule(self, ruling, param)

    def lead_faced(self):
        """The opening lead is faced: the auction period is over (Law 17 E)."""
        self._note(IN_LEAD, 0, 0)
        if self.phase == codes.ENDED:
            self.phase = codes.PLAY
        return self.phase

    def alert(self, seat):
        """`seat` marks its partner's last call as alerted. False, and no input, when partner has not called (or
        the log has no room): the unit journals only inputs that changed something, so the log stays what a replay
        rebuilds."""
        p = calls.partner(seat)
        for i in range(len(self.eff) - 1, -1, -1):
            if self.eff[i] & 3 == p:
                if not self.room(IN_ALERT):
                    return False
                self._note(IN_ALERT, seat, 0)
                self.alerted[i] = 1
                return True
        return False

    def _enforce(self, seat, call):
        """ENFORCE mode (laws.md §4.0): only the in-turn seat, only calls that are legal now."""
        v = codes.HELD if self.p_kind else classify.classify(self, seat, call)
        if v == codes.LEGAL and rectify.obligation_allows(self, seat, call):
            rectify.append(self, seat, call)
            self.law = 0
            return codes.LEGAL
        if v == codes.LEGAL:
            v = codes.REFUSED
        self.why = v
        self.law = codes.law_of(v, call, 0)
        return codes.REFUSED

    def may_call(self, seat, call):
        """Would `call` by `seat` be taken as legal now? (enforce mode greys out the others)"""
        if self.p_kind or self.phase != codes.AUCTION or seat != self.in_turn():
            return False
        return classify.classify(self, seat, call) == codes.LEGAL and rectify.obligation_allows(self, seat, call)

    # ---- changes to the effective auction (used by rectify) ---------------------------------------
    def remove_from(self, k, law):
        """Cancel effective calls from index k on (logged), e.g. Law 34 or an allowed change of call."""
        for i in range(len(self.eff) - 1, k - 1, -1):
            c = self.eff[i]
            self.log.append([codes.LOG_CANCELLED, c & 3, c >> 2, law, i])
        self.eff[k:] = b""
        self.alerted[k:] = b""
        self.phase = codes.AUCTION

    def check_end(self):
        """Laws 17 E, 22, 34: has the auction ended, and was a skipped player's turn lost?"""
        n = len(self.eff)
        i = n - 1
        while i >= 0 and self.eff[i] >> 2 == calls.PASS:
            i -= 1
        if i < 0:
            seen = 0
            for c in self.eff:
                seen |= 1 << (c & 3)
            if seen == 15:
                self.phase = codes.PASSED_OUT
            return
        if n - 1 - i < 3:
            return
        s = self.eff[i] & 3
        for k in range(3):  # the passes must come from LHO, partner, RHO of that caller
            if self.eff[i + 1 + k] & 3 != (s + 1 + k) & 3:
                self.remove_from(i + 1 + k, 34)  # Law 34: back to the skipped player
                return
        self.phase = codes.ENDED

    def ended(self):
        return self.phase != codes.AUCTION


def order_simultaneous(a, presses):
    """Law 33: of presses made at the same moment, the in-turn seat's counts first (laws.md §4.11)."""
    t = a.in_turn()
    return [p for p in presses if p[0] == t] + [p for p in presses if p[0] != t]
