"""The validator (docs/architecture.md §5): every auction replayed through the core; disagreements, impossible
results, Law 15 and duplicate tables become alerts; what the unit sent is kept, the host's reading is used."""
import json
from pathlib import Path

import pytest
from collector_kit import (
    FOUR_SPADES,
    ApiClient,
    assign,
    auction_end,
    board_start,
    hello,
    played,
    query,
    result,
    sync,
)

from bidwire_host.collector import validator
from bidwire_host.server import create_app

VECTORS = Path(__file__).parents[1] / "vectors"


@pytest.fixture
def client(data):
    with ApiClient(create_app(data)) as c:
        yield c


def alerts(data, kind=None):
    rows = query(data, "SELECT * FROM alerts ORDER BY id")
    return [r for r in rows if kind is None or r["kind"] == kind]


def ok(response):
    assert response.status_code == 200, response.text
    return response.json()


def test_an_honest_board_raises_no_alert_and_is_scored_on_the_host(client, data):
    ok(sync(client, [hello(1), *played(2)]))
    assert alerts(data) == []
    [r] = query(data, "SELECT contract, declarer, tricks, score_ns, unit_score_ns FROM results")
    assert r == {"contract": "4S", "declarer": "N", "tricks": 10, "score_ns": 420, "unit_score_ns": 420}


def test_a_forged_contract_disagrees_with_its_inputs(client, data):
    """The unit claims 3NT by South; its own inputs say 4S by North: the host's contract stands, an alert says so."""
    forged = auction_end(3, 1, FOUR_SPADES, contract="3NT", declarer="S")
    ok(sync(client, [hello(1), board_start(2, 1), forged, result(4, 1, "3NT", "S", 9, 400)]))
    [mismatch] = alerts(data, "contract_mismatch")
    assert "3NT by S" in mismatch["detail"] and "4S by N" in mismatch["detail"]
    assert json.loads(mismatch["data"])["host_contract"] == "4S"
    [board] = query(data, "SELECT contract, declarer, unit_contract, unit_declarer FROM boards")
    assert board == {"contract": "4S", "declarer": "N", "unit_contract": "3NT", "unit_declarer": "S"}
    assert [a["kind"] for a in alerts(data)] == ["contract_mismatch", "result_contract_mismatch", "score_mismatch"]
    [r] = query(data, "SELECT contract, declarer, score_ns, unit_contract, unit_score_ns FROM results")
    assert r == {"contract": "4S", "declarer": "N", "score_ns": -50, "unit_contract": "3NT", "unit_score_ns": 400}


@pytest.mark.parametrize("tricks", [14, -1])
def test_tricks_outside_0_to_13_are_an_alert_not_a_score(client, data, tricks):
    ok(sync(client, played(1, tricks=tricks, score_ns=999)))
    [a] = alerts(data)
    assert a["kind"] == "impossible_tricks" and f"{tricks} tricks" in a["detail"]
    assert query(data, "SELECT tricks, score_ns, unit_score_ns FROM results") == [
        {"tricks": tricks, "score_ns": None, "unit_score_ns": 999}]


def test_a_wrong_score_is_an_alert_law_77(client, data):
    ok(sync(client, played(1, tricks=10, score_ns=450)))
    [a] = alerts(data)
    assert (a["kind"], a["law"]) == ("score_mismatch", 77)
    assert query(data, "SELECT score_ns FROM results") == [{"score_ns": 420}]


def test_a_pair_playing_a_board_twice_is_law_15(client, data):
    assign(client, "T01", "A", 1, 1, [1], ns=1, ew=2)
    assign(client, "T02", "A", 2, 2, [1], ns=3, ew=1)
    ok(sync(client, played(1, section="A", table=1, round=1, ns=1, ew=2), unit="T01"))
    ok(sync(client, played(1, section="A", table=2, round=2, ns=3, ew=1), unit="T02"))
    [a] = alerts(data, "board_played_twice")
    assert a["law"] == 15 and a["unit"] == "T02" and a["board"] == 1
    assert json.loads(a["data"])["pairs"] == ["1"]
    assert len(query(data, "SELECT * FROM results")) == 2  # both kept: the director decides (Law 15)


def test_the_same_pair_numbers_in_another_section_are_other_pairs(client, data):
    assign(client, "T01", "A", 1, 1, [1], ns=1, ew=2)
    assign(client, "T02", "B", 1, 1, [1], ns=1, ew=2)
    ok(sync(client, played(1, section="A", table=1, round=1, ns=1, ew=2), unit="T01"))
    ok(sync(client, played(1, section="B", table=1, round=1, ns=1, ew=2), unit="T02"))
    assert alerts(data) == []


def test_two_units_reporting_one_table_and_board(client, data):
    assign(client, "T01", "A", 1, 1, [1])
    assign(client, "T02", "A", 1, 1, [1])
    ok(sync(client, played(1, section="A", table=1, round=1), unit="T01"))
    ok(sync(client, played(1, section="A", table=1, round=1, tricks=9, score_ns=-50), unit="T02"))
    kinds = [a["kind"] for a in alerts(data)]
    assert kinds == ["two_units_one_table", "two_units_one_table"]  # at its board_start, and at its result
    assert {r["unit"]: r["score_ns"] for r in query(data, "SELECT unit, score_ns FROM results")} == {
        "T01": 420, "T02": -50}


def test_a_board_start_under_an_assignment_never_sent(client, data):
    ok(sync(client, [board_start(1, 1, section="A", table=4, round=2)]))
    [a] = alerts(data)
    assert a["kind"] == "unknown_assignment" and "section A table 4 round 2" in a["detail"]


def test_a_board_start_for_a_board_the_assignment_does_not_hold(client, data):
    assign(client, "T01", "A", 1, 1, [1, 2])
    ok(sync(client, [board_start(1, 7, section="A", table=1, round=1)], cmd_ack=1))
    [a] = alerts(data)
    assert (a["kind"], a["law"]) == ("board_not_assigned", 15)


def test_a_board_reported_twice_by_one_unit(client, data):
    ok(sync(client, [*played(1), *played(5)]))
    [a] = alerts(data)
    assert a["kind"] == "result_repeated" and a["seq"] == 8


def test_unreadable_inputs(client, data):
    ok(sync(client, [board_start(1, 1), dict(auction_end(2, 1, FOUR_SPADES), inputs=["N:1S", "E:9Z"])]))
    [a] = alerts(data)
    assert a["kind"] == "auction_unreadable" and "input 1 (E:9Z)" in a["detail"]


def test_an_auction_that_has_not_ended(client, data):
    ok(sync(client, [board_start(1, 1), dict(auction_end(2, 1, FOUR_SPADES), inputs=["N:1S", "E:P"])]))
    assert [a["kind"] for a in alerts(data)] == ["auction_not_ended"]


def test_a_passed_out_board(client, data):
    passes = ["N:P", "E:P", "S:P", "W:P"]
    ok(sync(client, [board_start(1, 1), auction_end(2, 1, passes), result(3, 1, "Pass", None, None, 0)]))
    assert alerts(data) == []
    assert query(data, "SELECT contract, declarer, score_ns FROM results") == [
        {"contract": "Pass", "declarer": None, "score_ns": 0}]


def test_a_result_without_an_auction(client, data):
    ok(sync(client, [board_start(1, 1), result(2, 1, "4S", "N", 10, 420)]))
    assert [a["kind"] for a in alerts(data)] == ["result_without_auction"]


def test_events_for_a_board_never_started(client, data):
    ok(sync(client, [auction_end(1, 1, FOUR_SPADES)]))
    assert [a["kind"] for a in alerts(data)] == ["no_board_start"]
    assert query(data, "SELECT board, contract FROM boards") == [{"board": 1, "contract": "4S"}]


def test_enforce_mode_replays_in_enforce_mode(client, data):
    start = dict(board_start(1, 1), mode="enforce")
    inputs = ["E:1S", "N:1S", "E:P", "S:2S", "W:P", "N:4S", "E:P", "S:P", "W:P"]  # E out of turn: refused
    ok(sync(client, [start, auction_end(2, 1, FOUR_SPADES), dict(auction_end(3, 1, FOUR_SPADES), inputs=inputs)]))
    assert [a["kind"] for a in alerts(data)] == []


def contract_vectors():
    vectors = json.loads((VECTORS / "auction_contracts.json").read_text())["vectors"]
    return [v for v in vectors if v["ended"] and v["contract"]]


@pytest.mark.parametrize("vector", contract_vectors(), ids=lambda v: v["id"])
def test_replay_gives_the_laws_md_contract(vector):
    """laws.md §5.2 vectors: the host's replay reads each auction as the core does."""
    board = {"N": 1, "E": 2, "S": 3, "W": 4}[vector["dealer"]]
    inputs = [f"{seat}:{call}" for seat, call in vector["calls"]]
    contract, declarer, error = validator.replay(board, "record", inputs)
    assert error is None
    assert validator.same_contract(contract, vector["contract"]) and declarer == vector["declarer"]


def irregularity(seq, kind, options, **extra):
    return {"seq": seq, "type": "irregularity", "board": 1, "kind": kind, "law": 27, "offender": "E", "call": "1S",
            "entitled": "S", "options": options, **extra}


def test_an_irregularitys_options_are_checked_against_the_core(client, data):
    """laws.md §4.19: insufficient bid -> reject / reject_natural; change of call -> the four Law 25 rulings;
    settled by the law at once (Law 39) -> none. A unit offering anything else raises an alert."""
    ok(sync(client, [board_start(1, 1), irregularity(2, "insufficient_bid", ["reject", "reject_natural"], at=1),
                     irregularity(3, "change_of_call", ["25a", "25b_accept", "25b_stand", "25b_other"], at=2),
                     irregularity(4, "after_close", [], at=5, settled="law")]))
    assert alerts(data) == []
    ok(sync(client, [irregularity(5, "insufficient_bid", ["reject"], at=7),  # reject_natural missing
                     irregularity(6, "out_of_rotation", ["reject", "25a"], at=8),
                     irregularity(7, "made_up", [], at=9)]))
    found = alerts(data, "options_mismatch")
    assert [json.loads(a["data"])["irregularity"] for a in found] == ["insufficient_bid", "out_of_rotation", "made_up"]
    assert json.loads(found[0]["data"])["expected"] == ["reject", "reject_natural"]
    assert "the Laws allow reject" in found[1]["detail"] and [a["seq"] for a in found] == [5, 6, 7]
    [stored] = query(data, "SELECT count(*) AS n FROM irregularities")
    assert stored["n"] == 6  # kept as the unit sent them


def test_the_settlement_events_are_accepted_and_stored(client, data):
    events = [board_start(1, 1), irregularity(2, "insufficient_bid", ["reject", "reject_natural"], at=1),
              {"seq": 3, "type": "settled", "board": 1, "at": 1, "how": "accepted", "law": 27, "seat": "S"},
              {"seq": 4, "type": "td_end", "board": 1, "seat": "N"},
              {"seq": 5, "type": "ruling_refused", "board": 1, "at": 1, "ruling": "reject", "reason": "not_pending"},
              {"seq": 6, "type": "ruling_applied", "board": 1, "ruling": "pass_next_turn", "seat": "E",
               "by": "table", "verdict": "legal", "law": 24, "at": None}]
    assert ok(sync(client, events))["ack"] == 6
    stored = query(data, "SELECT seq, body FROM events ORDER BY seq")
    assert [json.loads(r["body"])["type"] for r in stored][2:] == ["settled", "td_end", "ruling_refused",
                                                                   "ruling_applied"]
    bad = {"seq": 7, "type": "settled", "board": 1, "at": -1, "how": "accepted", "law": 27, "seat": "S"}
    assert sync(client, [bad]).status_code == 400  # an identity is an input index, >= 0
    bad = {"seq": 7, "type": "settled", "board": 1, "at": 1, "how": "forgotten", "law": 27, "seat": "S"}
    assert sync(client, [bad]).status_code == 400


def test_an_auction_end_beyond_the_units_input_log_is_not_replayed_and_raises_an_alert(client, data):
    """issue 12 item 6: a unit logs at most the core's MAX_INPUTS inputs a board; more cannot come from a unit."""
    from bidwire.core.auction import MAX_INPUTS

    at_cap = ["N:P", "E:P", "S:P"] + ["N@"] * (MAX_INPUTS - 4) + ["W:P"]  # at the cap: replayed (passed out)
    ok(sync(client, [hello(1), board_start(2, 1), dict(auction_end(3, 1, FOUR_SPADES), inputs=at_cap, contract="Pass",
                                               declarer=None)]))
    assert [a["kind"] for a in alerts(data)] == []
    over = ["N:1S"] + ["S@"] * MAX_INPUTS + ["E:P", "S:P", "W:P"]  # one token more than the log holds
    ok(sync(client, [board_start(4, 2), dict(auction_end(5, 2, FOUR_SPADES), inputs=over)]))
    [too_long] = alerts(data)
    assert too_long["kind"] == "auction_too_long" and too_long["seq"] == 5
    facts = json.loads(too_long["data"])
    assert facts["count"] == MAX_INPUTS + 4 and facts["limit"] == MAX_INPUTS and "inputs" not in facts
    [stored] = query(data, "SELECT count(*) AS n FROM events WHERE seq = 5")
    assert stored["n"] == 1  # kept as the unit sent it
    assert query(data, "SELECT contract FROM boards WHERE board = 2") == [{"contract": None}]


def _tokens(script):
    """The input tokens of board 1 (dealer N) played on the unit's own app: what its auction_end carries."""
    from bidwire.core import record
    from bidwire.unit.app import App
    from bidwire.unit.keys import parse_key

    app = App("T01")
    for item in ("N PASS, " + script).split(", "):
        seat, key = item.split()
        app.key("NESW".index(seat), parse_key(key))
    return record.tokens(app.auction)


REJECT_AT_W = "W TD, W TD, W 1, W 2, W 3, W 4, W 1"  # the director at W, his PIN, then 1: reject


@pytest.mark.parametrize("withdrawn, says", [
    ("H", "declarer W may bar or require a H lead at N's first lead (Law 26 A: S's call withdrawn under Law"),
    ("NT", "declarer W may bar the lead of any one suit at N's first lead (Law 26 B: S's call withdrawn under Law"),
])
def test_the_director_is_told_what_declarer_may_do_about_the_lead_law_26(withdrawn, says):
    # S calls out of rotation, the director rejects it: N passes throughout, and W declares 1S, N leading
    tokens = _tokens(f"S 1, S {withdrawn}, {REJECT_AT_W}, N PASS, E PASS, S PASS, W 1, W S, N PASS, E PASS, S PASS")
    contract, declarer, out = validator.check_auction_end(1, "record", {"inputs": tokens, "contract": "1S",
                                                                        "declarer": "W"})
    assert (contract, declarer) == ("1S", "W")
    [lead] = out
    assert lead["kind"] == "lead_restriction" and lead["law"] == 26 and says in lead["detail"]
    assert lead["data"]["seat"] == "N" and lead["data"]["suit"] == ("H" if withdrawn == "H" else None)


def test_no_lead_restriction_when_the_offender_declares():
    # the same withdrawn call, but S's side declares: Law 26 restricts only a defender's lead
    tokens = _tokens(f"S 1, S H, {REJECT_AT_W}, N PASS, E PASS, S 1, S S, W PASS, N PASS, E PASS")
    contract, declarer, out = validator.check_auction_end(1, "record", {"inputs": tokens, "contract": "1S",
                                                                        "declarer": "S"})
    assert (contract, declarer, out) == ("1S", "S", [])


def test_the_law_26_alert_is_open_until_the_opening_lead(client):
    tokens = _tokens(f"S 1, S H, {REJECT_AT_W}, N PASS, E PASS, S PASS, W 1, W S, N PASS, E PASS, S PASS")
    ok(sync(client, [hello(1), board_start(2, 1), auction_end(3, 1, tokens)]))

    def queue(state):
        return [(a["kind"], a["outcome"]) for a in ok(client.get(f"/api/v1/queue?state={state}"))["alerts"]
                if a["kind"] == "lead_restriction"]

    assert queue("open") == [("lead_restriction", None)] and queue("closed") == []  # declarer may choose now
    ok(sync(client, [{"seq": 4, "type": "lead", "board": 1, "seat": "N", "suit": "C", "t": 1000}]))
    assert queue("open") == [] and queue("closed") == [("lead_restriction", "the opening lead was made")]
