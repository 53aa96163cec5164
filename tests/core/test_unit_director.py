"""Every irregularity at the unit has an identity and a reported settlement (docs/unit.md "Irregularities"): its
input index `at`, a `settled` event when the table settles it, `ruling_applied` naming what it answered,
`td_end`, and collector rulings applied only to the irregularity they name. Expected values are worked by hand
from the Laws (27, 28 B, 29, 35, 39) and the input log (one index per press the engine takes)."""
import json

from keypress import press
from scratch import remove_tree, scratch

from bidwire.unit import app as A
from bidwire.unit.app import App
from bidwire.unit.journal import Journal
from bidwire.unit.keys import parse_key
from bidwire.unit.store import Store


def started():
    app = App("T01", "record", "1234")
    press(app, "N PASS")  # set-up screen: board 1, dealer N
    return app


def of(events, kind):
    return [e for e in events if e["type"] == kind]


def ruling(app, seq, **cmd):
    cmd.update(seq=seq, type="ruling")
    return app.command(cmd)


def test_an_irregularity_carries_its_input_index():
    app = started()
    ev = press(app, "N 2, N H, E 1, E S")  # inputs: N:2H (0), E:1S (1), insufficient
    irr = of(ev, "irregularity")
    assert len(irr) == 1 and irr[0]["at"] == 1 and irr[0]["kind"] == "insufficient_bid" and "settled" not in irr[0]
    assert irr[0]["options"] == ["reject", "reject_natural"]


def test_accepted_by_the_next_player_is_one_settled_event():
    app = started()
    ev = press(app, "E 1, E S, S 2, S C")  # dealer N; E out of rotation (input 0), S accepts by calling (29 B)
    assert of(ev, "settled") == [{"type": "settled", "board": 1, "at": 0, "how": "accepted", "law": 29, "seat": "S"}]
    assert [e["type"] for e in ev] == ["call", "irregularity", "call", "settled"]


def test_accepting_an_insufficient_bid_with_another_one_reports_both():
    app = started()
    ev = press(app, "N 2, N H, E 1, E S, S 1, S D")  # S accepts 1S (27 A); 1D is insufficient over it
    assert [(e["at"], e["how"], e["law"]) for e in of(ev, "settled")] == [(1, "accepted", 27)]
    assert [(e["at"], e["kind"]) for e in of(ev, "irregularity")] == [(1, "insufficient_bid"), (2, "insufficient_bid")]


def test_condoned_by_law35a_and_cancelled_by_law28b():
    app = started()
    ev = press(app, "N 1, N H, E PASS, S X, W PASS")  # S doubles his partner: W calls over it, both cancelled
    assert [(e["at"], e["how"], e["law"], e["seat"]) for e in of(ev, "settled")] == [(2, "condoned", 35, "W")]
    app = started()
    ev = press(app, "E 1, E S, N 1, N C")  # E called at N's turn; N, the in-turn player, calls: 28 B
    assert [(e["at"], e["how"], e["law"], e["seat"]) for e in of(ev, "settled")] == [(0, "cancelled", 28, "N")]


def test_a_call_after_the_close_is_settled_by_law39_at_once():
    app = started()
    ev = press(app, "N 1, N H, E PASS, S PASS, W PASS, E X")  # inputs 0-3 the auction, E's double is input 4
    irr = of(ev, "irregularity")
    assert [(e["at"], e["settled"], e["law"], e["offender"]) for e in irr] == [(4, "law", 39, "E")]
    assert of(ev, "settled") == []


def test_rulings_at_the_table_name_what_they_answered_and_end_call_is_reported():
    app = started()
    press(app, "E 1, E S, N TD, N TD, N 1, N 2, N 3, N 4")
    ev = press(app, "N 2, E 5")  # menu: 1 reject, 2 pass next turn, 3 end call; then E's panel
    assert [(e["ruling"], e["at"], e["seat"]) for e in of(ev, "ruling_applied")] == [("pass_next_turn", None, "E")]
    assert app.auction.p_at == 0  # still pending
    ev = press(app, "N TD, N TD, N 1, N 2, N 3, N 4, N 1")
    assert [(e["ruling"], e["at"]) for e in of(ev, "ruling_applied")] == [("reject", 0)]
    ev = press(app, "W TD, W TD, W 1, W 2, W 3, W 4, W 2")  # nothing pending: 1 pass next turn, 2 end call
    assert of(ev, "td_end") == [{"type": "td_end", "board": 1, "seat": "W"}] and app.td == 0


def test_a_ruling_for_a_settled_irregularity_leaves_a_later_one_untouched():
    app = started()
    press(app, "E 1, E S, S 2, S C")  # E's 1S (input 0) accepted by S
    press(app, "W 1, W C")  # W's 1C over 2C: insufficient, input 2, pending
    a = app.auction
    before = (bytes(a.eff), bytes(a.inputs), a.p_kind, a.p_at, len(a.restrictions))
    ev = ruling(app, 1, board=1, ruling="reject", at=0)  # the director pressed reject on the old alert
    assert ev == [{"type": "ruling_refused", "board": 1, "at": 0, "ruling": "reject", "reason": "other_pending"}]
    assert (bytes(a.eff), bytes(a.inputs), a.p_kind, a.p_at, len(a.restrictions)) == before
    assert app.cmd_ack == 1  # taken (and journaled) all the same: it is not sent again
    ev = ruling(app, 2, board=1, ruling="reject", at=2)
    assert [(e["type"], e["at"], e["verdict"]) for e in ev] == [("ruling_applied", 2, "legal")] and not a.p_kind
    ev = ruling(app, 3, board=1, ruling="reject", at=2)  # the same ruling again: settled now
    assert [(e["type"], e["reason"]) for e in ev] == [("ruling_refused", "not_pending")]


def test_collector_rulings_refused_with_their_reason():
    app = started()
    press(app, "E 1, E S")  # pending at 0, out of rotation
    cases = [({"board": 2, "ruling": "reject", "at": 0}, "other_board"),
             ({"board": 1, "ruling": "reject"}, "no_at"),
             ({"board": 1, "ruling": "reject", "at": True}, "no_at"),
             ({"board": 1, "ruling": "reject", "at": -1}, "no_at"),
             ({"board": True, "ruling": "reject", "at": 0}, "other_board"),
             ({"board": 1, "ruling": "reject_natural", "at": 0}, "not_allowed"),
             ({"board": 1, "ruling": "shoot", "at": 0}, "unknown_ruling")]
    for seq, (cmd, reason) in enumerate(cases, 1):
        ev = ruling(app, seq, **cmd)
        assert [(e["type"], e["reason"]) for e in ev] == [("ruling_refused", reason)], cmd
        b, at = ev[0]["board"], ev[0]["at"]  # what the collector's schema takes: no bool, no negative index
        assert type(b) is int and b in (1, 2) and (at is None or (type(at) is int and at == 0))
    assert app.auction.p_at == 0 and len(app.auction.inputs) == 2
    ev = ruling(app, 9, board=1, ruling="pass_next_turn", seat="W")  # tied to no irregularity: no `at` needed
    assert [(e["type"], e["at"], e["seat"]) for e in ev] == [("ruling_applied", None, "W")]


def test_after_a_power_cut_nothing_is_reported_twice_and_the_identity_holds():
    path = scratch("director-replay")
    try:
        s = Store(Journal(path), App("T01", "record", "1234"), Clock())
        s.open({"firmware": "test"})
        for item in "N PASS, E 1, E S, S 2, S C, W 1, W C, N TD, N TD, N 1, N 2, N 3, N 4, N 4".split(","):
            seat, key = item.split()
            s.key("NESW".index(seat), parse_key(key))
        s.command({"seq": 1, "type": "ruling", "board": 1, "ruling": "reject", "at": 0})
        sent = [json.loads(e) for e in s.batch(1 << 16)]
        s.journal.close()
        s2 = Store(Journal(path), App("T01", "record", "1234"), Clock())
        s2.open({"firmware": "test"})  # power cut and boot: the journal is replayed, no event made again
        again = [json.loads(e) for e in s2.batch(1 << 16)]
        assert again[:len(sent)] == sent and [e["type"] for e in again[len(sent):]] == ["hello"]
        kinds = [e["type"] for e in sent]
        assert kinds.count("settled") == 1 and kinds.count("irregularity") == 2 and kinds.count("td_end") == 1
        assert kinds.count("ruling_refused") == 1 and s2.app.auction.p_at == 2 and s2.app.screen == A.BIDDING
        s2.command({"seq": 2, "type": "ruling", "board": 1, "ruling": "reject", "at": 2})
        last = [json.loads(e) for e in s2.batch(1 << 16)][-1]
        assert last["type"] == "ruling_applied" and last["at"] == 2 and not s2.app.auction.p_kind
        s2.journal.close()
    finally:
        remove_tree(path)


class Clock:
    def __init__(self):
        self.t = 1000

    def time(self):
        self.t += 1
        return self.t
