"""The table unit's state machine: key presses and collector commands in, events and screen state out.

Pure: no I/O and no clock. `key()` and `command()` return the events the input produced (a list, maybe empty)
when it changed the state, and None when it changed nothing; the store numbers those events and journals them
with the input in one record (bidwire.unit.store). Screens (screens.py) only read this state.
"""
from bidwire.core import auction, calls, codes
from bidwire.core import board as boards
from bidwire.core.compat import const
from bidwire.unit import keys
from bidwire.unit.lazy import drop

# Screens (docs/architecture.md §3)
SETUP = const(0)
START = const(1)
BIDDING = const(2)  # the auction grid; a pending irregularity is shown over it
LEAD = const(3)
RESULT = const(4)
CONFIRM = const(5)
SCORE = const(6)
MOVE = const(7)
SEAT = const(8)  # a round's start: each side says who sits there (an assign's confirm)

_TEMPO_MAX = const(36000)  # an hour, in tenths of a second: a call's tempo is at most this
_CALL_KEYS = const((0, 1, 2))  # K_PASS, K_X, K_XX -> call codes P, X, XX
# Why a press was refused (enforce mode; an unmet obligation), by verdict code; out of turn names whose turn
_WHY = const(("", "", "too low", "bad X", "bad XX", "must pass", "", "ended", "above 7", "wait TD", "not legal"))

_DIRECTOR = const("bidwire.unit.director")


def _director():
    """director.py, loaded for a TD press, a ruling or a full log; dropped once no director call is open."""
    from bidwire.unit import director

    return director


class App:
    # Rarely set, so a class attribute until it is: an instance's attribute table stays the size it was (the heap
    # once booted, docs/benchmarks.md): assigns marked late (late play) that came mid-round, a list, played in turn
    # once the round is done. (The SEAT screen's answers live in sides.py while it is loaded.)
    late = None
    # The director's call at this unit (`td`, 0 while none is open; director.py says how it changes): called, the
    # panel still the players'; the director entering his PIN; in his ruling menu; picking the seat that a "pass
    # next turn" restricts. Read through the App (`app.TD_PIN`) by director.py and screens.py.
    TD_CALLED = const(1)
    TD_PIN = const(2)
    TD_MENU = const(3)
    TD_PICK = const(4)

    def __init__(self, unit="", mode="record", td_pin="1234"):
        self.unit = unit
        self.mode = codes.ENFORCE if mode == "enforce" else codes.RECORD
        self.out = None  # while an input is applied: its events (dicts without seq), returned by key() / command()
        self.replaying = False  # boot replays the journal: its events were stored with it, none are made
        self.screen = SETUP
        self.assignment = None  # the last `assign` command: section, table, round, boards, ns, ew, move
        self.next_assignment = None  # an assign that arrived mid-board: used when the board is over
        self.board_idx = -1  # index in assignment["boards"]
        self.board = 0
        # the board's; None before the first board (SETUP): its 768-byte input log comes with a board
        self.auction: auction.Auction = None  # pyright: ignore[reportAttributeAccessIssue] - board 0: nothing to bid yet
        self.level = bytearray(4)  # a level key pressed at each seat, waiting for its strain (0: none)
        self.undo_seat = -1  # the seat that pressed UNDO: its next call is a change of call (Law 25)
        self.tricks = self.entered_by = -1
        self.leader = self.lead = -1
        # declarer's Law 26 choice for the opening lead, from the collector's `lead_choice`: [codes.L26_*, suit, the
        # suit of a lead it refused at the press before (-1: none), which pressed again is taken], or None
        self.lead_rule = None
        self.log_full = False  # a press was refused for want of room in the board's input log (director.full)
        self.td = 0  # the director's call: 0 or TD_*
        self.td_typed = ""  # the digits of the PIN typed so far
        self.td_pin = td_pin  # the PIN that opens the menu
        self.message = ""  # the collector's message, shown until the next call
        self.note = ""  # the unit's answer to the last press ("N: UNDO too late"), shown until the next press
        # the press a pending irregularity kept out, shown on its screen while it is the auction's last input (a
        # ruling or another press makes it old): ("W 1NT not taken", 2 x the inputs logged then), or None
        self.held = None
        self.cmd_ack = 0  # the last collector command applied
        self.event = ""  # the event whose collector sent those commands (its `event`): a new one numbers from 1
        self.traveller = None
        self.clock_offset = 0
        self.boards_played = 0
        self._score = (-1, 0)
        self.before_phase = -1  # the auction's phase before this input, while its consequences wait (after())
        # the tempo (docs/unit.md "The tempo of each call"): ticks_ms of the board's last call (or of the press that
        # started it); -1: not known (a replay, a board the collector started)
        self.call_ms = -1

    # ---- snapshot: the state at a quiet point (START screen, nothing entered yet) ------------------
    def quiet(self):
        return self.screen in (SETUP, START, MOVE) and self.td == 0 and not self.level_pending()

    def level_pending(self):
        return self.level[0] | self.level[1] | self.level[2] | self.level[3]

    def snapshot(self):
        return {"screen": self.screen, "assignment": self.assignment, "next": self.next_assignment, "late": self.late,
                "board_idx": self.board_idx, "board": self.board, "mode": self.mode, "cmd_ack": self.cmd_ack,
                "event": self.event, "clock_offset": self.clock_offset, "played": self.boards_played}

    def restore(self, s):
        late = s.get("late")  # a list; one assign or none from firmware that kept a single one
        self.assignment, self.next_assignment = s["assignment"], s["next"]
        if late:  # else the class's None: no entry in the instance's table
            self.late = [late] if isinstance(late, dict) else late
        self.board_idx, self.mode, self.cmd_ack = s["board_idx"], s["mode"], s["cmd_ack"]
        self.event = s.get("event", "")  # a snapshot from firmware before events: none heard yet
        self.clock_offset, self.boards_played = s["clock_offset"], s["played"]
        self.screen = s["screen"]
        if s["board"]:
            self._set_board(s["board"])

    # ---- boards ---------------------------------------------------------------------------------------
    def _set_board(self, number):
        self.board = number
        self.auction = None  # pyright: ignore[reportAttributeAccessIssue] - the last board's input log free first
        self.auction = auction.Auction(boards.dealer(number), self.mode)
        self.level[:] = b"\x00\x00\x00\x00"
        self.undo_seat = self.tricks = self.entered_by = self.leader = self.lead = -1
        self.traveller = self.lead_rule = None
        self._score = (-1, 0)
        self.log_full = False
        self.call_ms = -1

    def _start_board(self, number):
        self._set_board(number)
        self.screen = START
        a = self.assignment or {}
        self.emit({"type": "board_start", "board": number, "dealer": calls.seat_name(self.auction.dealer),
                   "vul": boards.VUL_NAMES[boards.vulnerability(number)],
                   "mode": "enforce" if self.mode == codes.ENFORCE else "record",
                   "section": a.get("section"), "table": a.get("table"), "round": a.get("round"),
                   "ns": a.get("ns"), "ew": a.get("ew"), "event": a.get("event")})

    def _next_board(self):
        a = self.assignment
        if self.late and (a is None or self.next_assignment is not None or self.board_idx + 1 >= len(a["boards"])):
            # late play: once the round in play is done (or moved on), before the next round
            self.assignment, self.board_idx = self.late.pop(0), -1
        elif self.next_assignment is not None:
            self.assignment, self.next_assignment, self.board_idx = self.next_assignment, None, -1
        a = self.assignment
        if a is None:
            return self._start_board(self.board + 1)
        self.board_idx += 1
        if self.board_idx < len(a["boards"]):
            self._start_board(a["boards"][self.board_idx])
            if self.board_idx == 0 and a.get("confirm"):  # who is at the table, before the round's first call
                from bidwire.unit import sides

                self.screen = SEAT
                sides.start(self, a)
            return
        self.screen = MOVE  # the round is over: wait for the next assignment

    # ---- inputs ---------------------------------------------------------------------------------------
    def emit(self, event):
        if self.replaying:
            return
        event["board"] = event.get("board", self.board)
        self.out.append(event)  # pyright: ignore[reportOptionalMemberAccess] - only while an input is applied

    def key(self, seat, key, ms=-1):
        """One key press at a seat panel: its events if anything changed (the press must then be journaled with
        them), None if nothing did. `ms`: the press's ticks_ms, for the tempo (-1: not known, as in a replay)."""
        self.out = []
        self.note = ""  # it answered the press before this one
        board = self.board
        r = self.lead_rule
        tried = -1 if r is None else r[2]
        changed = self._key(seat, key)
        if r is not None and r[2] == tried:  # a refused lead counts for the press straight after it only
            r[2] = -1
        # The tempo of the call this press made, if any, in its `call` event: tenths of a second from the board's
        # last call (or its start), None if either is not known; the board's last call is now this one. The press
        # that started a board starts its clock. ticks_ms wraps at 2**30 or a multiple of it: the mask keeps a
        # difference right across the wrap.
        if self.board != board:
            self.call_ms = ms
        for event in self.out:  # pyright: ignore[reportOptionalIterable] - a list while an input is applied
            if event["type"] == "call" and not event["alert"]:
                t, self.call_ms = self.call_ms, ms
                if t >= 0 and ms >= 0:
                    t = (((ms - t) & 0x3FFFFFFF) + 50) // 100
                    t = t if t < _TEMPO_MAX else _TEMPO_MAX
                event["tempo"] = t if t >= 0 and ms >= 0 else None
        if not self.td:
            drop(_DIRECTOR)
        self.after()
        out, self.out = self.out, None
        return out if changed else None

    def _key(self, seat, key):
        if key == keys.K_TD or self.td >= self.TD_PIN:
            return self._director_did(_director().key, seat, key)
        s = self.screen
        if s == SETUP:
            if key != keys.K_PASS:
                return False
            self.message = ""
            self._next_board()
            return True
        if s == SEAT:  # a round's start: each side says who sits there (sides.py, loaded for it, dropped after)
            from bidwire.unit import sides

            changed = sides.key(self, seat, key)
            if sides.done(self):
                self.screen = START
                drop("bidwire.unit.sides")
            return changed
        if s == START:
            self.screen = BIDDING
            self._bidding(seat, key)
            return True
        if s == BIDDING or s == LEAD:
            return self._bidding(seat, key)
        if s == RESULT:
            return self._result(seat, key)
        if s == CONFIRM:
            return self._confirm(seat, key)
        if s == SCORE and key == keys.K_PASS:
            self.boards_played += 1
            self._next_board()
            return True
        return False

    def _bidding(self, seat, key):
        a = self.auction
        if key < keys.K_C:  # level key: wait for the strain
            self.level[seat] = key + 1
            return True
        if key <= keys.K_NT:
            if self.level[seat]:
                call = calls.bid(self.level[seat], key - keys.K_C)
                self.level[seat] = 0
                return self._call(seat, call)
            if a.phase == codes.ENDED and key < keys.K_NT and seat == self.leader:
                return self._lead(seat, key - keys.K_C)
            return False
        if key == keys.K_PASS or key == keys.K_X or key == keys.K_XX:
            self.level[seat] = 0
            return self._call(seat, _CALL_KEYS[key - keys.K_PASS])
        if key == keys.K_ALERT:
            if not a.room(auction.IN_ALERT):
                return self._director_did(_director().full, seat)
            if not a.alert(seat):
                return False
            self._call_event(seat, "alert")
            return True
        if key == keys.K_UNDO:  # Law 25 A: only the last caller, only until LHO calls (1987)
            if self.undo_seat == seat:
                self.undo_seat = -1
                return True
            if not a.may_change(seat):  # Law 25 A
                self.note = calls.seat_name(seat) + ": UNDO too late"
                return False
            self.undo_seat = seat
            return True
        return False

    def _call(self, seat, call):
        a = self.auction
        before, before_phase = a.p_at, a.phase
        if self.undo_seat == seat:
            self.undo_seat = -1
            verdict = a.change(seat, call)
        else:
            verdict = a.call(seat, call)
        if verdict == codes.FULL:
            return self._director_did(_director().full, seat)
        self.message = ""
        self.held = None
        self._call_event(seat, codes.VERDICT_NAMES[verdict])
        if verdict == codes.HELD:
            self.held = (calls.seat_name(seat) + " " + calls.call_name(call) + " not taken", 2 * a.n_inputs)
        elif verdict == codes.REFUSED:  # why, in at most 9 columns, and the law: "E: N's turn L31"
            why = a.why
            turn = why == codes.OUT_OF_ROTATION or why == codes.CHANGE_OF_CALL
            why = calls.seat_name(a.in_turn()) + "'s turn" if turn else _WHY[why]
            self.note = calls.seat_name(seat) + ": " + why + (" L" + str(a.law) if a.law else "")
        if verdict != codes.LEGAL or a.p_at != before:  # an irregularity made or settled: the collector hears of it
            if before >= 0 and a.p_at != before:  # this call settled the pending irregularity (rectify.while_pending)
                self.settled(seat)
            self.report(before, verdict, seat, call)
        self.before_phase = before_phase  # what follows from a new phase: after(), once the input is done
        return True

    def _call_event(self, seat, verdict):
        """The `call` event of the press just logged (a call's tempo is set in key(), once the press is done)."""
        a = self.auction
        alert = verdict == "alert"
        b = a.inputs
        how = "~" if b[-2] >> 2 == auction.IN_CHANGE else ":"
        token = calls.seat_name(seat) + ("@" if alert else how + calls.call_name(b[-1]))
        event = {"type": "call", "input": token, "seat": calls.seat_name(seat), "verdict": verdict, "law": a.law,
                 "alert": alert}
        self.emit(event)

    def order(self, presses):
        """Presses made in one scan, [(seat, key), ...], in the order they are taken: during the auction the in-turn
        seat's first, the others as subsequent calls (Law 33: the core's auction.order_simultaneous); as scanned
        once the auction is over."""
        a = self.auction
        if a is None or a.phase != codes.AUCTION or self.screen > BIDDING:
            return presses
        return auction.order_simultaneous(a, presses)

    # ---- irregularities (the director's part: director.py) ---------------------------------------------------
    def report(self, before, verdict, seat, call):
        """The irregularity the last input made, if any (`before`: the pending one's `at` before it): pending until
        settled, or settled by the law at once (Law 39: a call after the close is cancelled). Here, not in the
        director's module: irregularities are common, and each would load it."""
        a = self.auction
        if a.p_kind and a.p_at != before:
            self.emit({"type": "irregularity", "kind": codes.VERDICT_NAMES[a.p_kind], "law": a.p_law, "at": a.p_at,
                       "offender": calls.seat_name(a.p_seat), "call": calls.call_name(a.p_call),
                       "entitled": calls.seat_name(calls.lho(a.p_seat)),
                       "options": [codes.RULE_NAMES[r] for r in codes.rulings(a.p_kind)]})
        elif codes.LEGAL < verdict <= codes.ABOVE_SEVEN and not a.p_kind:
            self.emit({"type": "irregularity", "kind": codes.VERDICT_NAMES[verdict], "law": a.law,
                       "at": a.n_inputs - 1, "settled": "law", "offender": calls.seat_name(seat),
                       "call": calls.call_name(call), "entitled": None, "options": []})
            self.note = calls.seat_name(seat) + " " + calls.call_name(call) + " void L" + str(a.law)

    def settled(self, seat):
        """The pending irregularity was settled at the table by `seat`'s call, without the director (a.settled)."""
        s = self.auction.settled
        self.emit({"type": "settled", "at": s[0], "how": s[1], "law": s[2], "seat": calls.seat_name(seat)})

    # ---- a new phase of the auction --------------------------------------------------------------------------
    def after(self):
        """What a new phase brings: the summary at the auction's end, the lead, a passed-out board's result. Run
        once the input is done (key, command) and the director's module let go: a ruling that ends the auction
        would otherwise load the summary's module while the director's is still in the heap."""
        a, before_phase, self.before_phase = self.auction, self.before_phase, -1
        if before_phase < 0 or a.phase == before_phase:
            return
        if a.phase == codes.ENDED or a.phase == codes.PASSED_OUT:
            if not self.replaying:  # a replay's events are in the journal already: skip the summary
                from bidwire.core import record
                s = record.summary(a)
                self.emit({"type": "auction_end", "inputs": record.tokens(a), "auction": s["auction"],
                           "contract": s["contract"], "declarer": s["declarer"], "reviews": s["reviews"],
                           "lead_restrictions": s["lead_restrictions"], "log": s["log"]})
                drop("bidwire.core.record")
        if a.phase == codes.ENDED:
            self.leader = calls.lho(a.declarer())
            self.screen = LEAD
        elif a.phase == codes.PASSED_OUT:
            self.screen = SCORE
            self.emit({"type": "result", "contract": "Pass", "declarer": None, "tricks": None, "score_ns": 0,
                       "entered_by": None, "confirmed_by": None})
        elif a.phase == codes.AUCTION:
            self.screen = BIDDING  # Law 39 reopened an ended auction

    def _lead(self, seat, suit):
        r = self.lead_rule
        ok = True
        if r is not None:  # lead26.py only for a lead under declarer's choice (kept once loaded: 144 B frozen)
            from bidwire.core import lead26
            ok = lead26.lead_complies(r[0], r[1], suit)
        # Law 26: refused once; the same suit again says he cannot comply (Law 59)
        if r is not None and not ok and r[2] != suit:
            r[2] = suit
            self.note = calls.seat_name(seat) + (": lead " if r[0] == codes.L26_REQUIRE else ": not ") + \
                calls.STRAINS[r[1]] + " L26"
            return True  # journaled (no event): a replay refuses it too, and takes the press after it
        self.auction.lead_faced()
        self.lead = suit
        event = {"type": "lead", "seat": calls.seat_name(seat), "suit": calls.STRAINS[suit]}
        if r is not None:
            event["l26"] = codes.L26_NAMES[r[0]] + ("" if r[1] < 0 else " " + calls.STRAINS[r[1]])
            if not ok:
                event["law59"] = True  # he could not comply (Law 59): pressed twice
        self.emit(event)
        c = self.auction.contract() or (3, 0)
        self.tricks = (c[0] - 3) // 5 + 7  # contract level + 6: "made exactly", adjusted with X / XX
        self.screen = RESULT
        return True

    def _result(self, seat, key):
        t = self.tricks
        if key < keys.K_C:
            t = key + 7  # level key N: made at level N
        elif key == keys.K_X:
            t -= 1
        elif key == keys.K_XX:
            t += 1
        elif key == keys.K_PASS:
            self.entered_by = seat
            self.screen = CONFIRM
            return True
        if key == keys.K_UNDO or t == self.tricks or not 0 <= t <= 13:
            return False
        self.tricks = t
        return True

    def _confirm(self, seat, key):
        if calls.side(seat) == calls.side(self.entered_by):
            self.note = ("NS" if self.entered_by & 1 else "EW") + " to confirm"
            return False
        if key == keys.K_UNDO:  # disputed: back to entry
            self.screen = RESULT
            self.emit({"type": "note", "text": "result disputed by " + calls.seat_name(seat)})
            return True
        if key != keys.K_PASS:
            return False
        self.screen = SCORE
        self.emit({"type": "result", "contract": self.contract(), "declarer": calls.seat_name(self.auction.declarer()),
                   "tricks": self.tricks, "score_ns": self.score_ns(), "entered_by": calls.seat_name(self.entered_by),
                   "confirmed_by": calls.seat_name(seat), "lead": calls.STRAINS[self.lead]})
        return True

    def _lead_choice(self, cmd, seq):
        """Declarer's Law 26 choice for the opening lead of the board in play, sent from the director's page: held
        for the leader's press (shown on his prompt) while the lead is still to be made; otherwise a note says why
        it was not."""
        choice, suit = cmd.get("choice"), cmd.get("suit")
        c = codes.L26_NAMES.index(choice) if choice in codes.L26_NAMES else -1
        s = calls.STRAINS.index(suit) if suit in ("C", "D", "H", "S") else -1
        why = ""
        if cmd.get("board") != self.board or self.screen != LEAD:
            why = "no lead to make"
        elif cmd.get("seat") != calls.seat_name(self.leader):
            why = "not the leader"
        elif c < 0 or (c > 0) != (s >= 0):
            why = "bad choice"
        if why:
            self.emit({"type": "note", "text": "lead_choice " + str(seq) + " ignored: " + why})
        else:
            self.lead_rule = [c, s, -1]

    def contract(self):
        """The contract of the board's ended auction as its result names it: "4HX", or "Pass" when passed out."""
        a = self.auction
        if a.phase == codes.PASSED_OUT:
            return "Pass"
        c = a.contract() or (0, 0)
        return calls.call_name(c[0]) + ("", "X", "XX")[c[1]]

    def score_ns(self):
        """Law 77 from North-South's side for the tricks entered (computed once per entry: the display asks often)."""
        a = self.auction
        if a.phase == codes.AUCTION:
            return None
        if a.phase == codes.PASSED_OUT:
            return 0
        if self._score[0] != self.tricks:
            from bidwire.core.score import score_ns
            vul = boards.vulnerability(self.board)
            self._score = (self.tricks, score_ns(self.contract(), a.declarer(), vul, self.tricks))
            score_ns = None
            drop("bidwire.core.score")
        return self._score[1]

    # ---- collector commands -----------------------------------------------------------------------------
    def _director_did(self, act, *args):
        """Apply what a director's function (director.py: key, full, command) says changes: the one path by which a
        director's input changes the App. True if it changed anything. A ruling may end or reopen the auction, and
        after() then brings what the new phase needs, as for a call."""
        before_phase = self.auction.phase if self.board else -1
        change = act(self, *args)
        if change is None:
            return False
        self.td = change.get("td", self.td)
        self.td_typed = change.get("typed", self.td_typed)
        self.note = change.get("note", self.note)
        self.message = change.get("message", self.message)
        self.log_full = change.get("log_full", self.log_full)
        self.before_phase = before_phase
        return True

    def command(self, cmd, now=0):
        """Apply one collector command (docs/architecture.md §4) in seq order: its events if it was new (journaled
        with them), None if it was applied already.

        `now` is the unit clock (seconds) when it arrived: a `time` command sets the offset to the host clock.
        """
        self.out = []
        changed = self._command(cmd, now)
        out, self.out = self.out, None
        return out if changed else None

    def _command(self, cmd, now):
        event = cmd.get("event")
        if event and event != self.event:  # another event's collector (next week's store): its own numbering
            self.event, self.cmd_ack = event, 0
        seq = cmd.get("seq")
        if not isinstance(seq, int) or seq <= self.cmd_ack:
            return False
        self.cmd_ack = seq
        kind = cmd.get("type")
        if kind == "assign":
            if not isinstance(cmd.get("boards"), list) or not cmd["boards"]:
                self.emit({"type": "note", "text": f"assign {seq} ignored: no boards"})
            elif cmd.get("late") and self.screen != SETUP and self.screen != MOVE and self.board_idx >= 0:
                self.late = (self.late or []) + [cmd]  # after the boards of the round in play
            elif self.screen == SETUP or self.screen == MOVE or self.screen == START and not (
                    self.assignment or {}).get("late"):  # no call made on the board shown: the director moved it on
                if self.late:  # the boards waiting for late play come first
                    self.next_assignment = cmd
                    self.board_idx = len(self.assignment["boards"]) if self.assignment else -1
                else:
                    self.assignment, self.board_idx = cmd, -1
                self._next_board()
            else:
                self.next_assignment = cmd
        elif kind == "ruling":
            self._director_did(_director().command, cmd)
            if not self.td:
                drop(_DIRECTOR)
            self.after()
        elif kind == "lead_choice":
            self._lead_choice(cmd, seq)
        elif kind == "traveller":
            if cmd.get("board") == self.board:
                self.traveller = cmd.get("rows")
        elif kind == "message" or kind == "adjust":
            self.message = str(cmd.get("text", ""))[:48]
        elif kind == "config":
            if cmd.get("mode") in ("record", "enforce"):
                self.mode = codes.ENFORCE if cmd["mode"] == "enforce" else codes.RECORD  # from the next board on
        elif kind == "time":
            if isinstance(cmd.get("now"), int):
                self.clock_offset = cmd["now"] - now
        return True
