"""Every refused sync is a 4xx {"error": reason} and leaves the store as it was (issue 4, part 1).

Each test stores something first, so "unchanged" is checked against a store that is not empty.
"""
import json

import pytest
from collector_kit import ApiClient, assign, board_start, body, counts, hello, played, post, result, sign, sync

from bidwire_host.collector.sync import MAX_BODY
from bidwire_host.server import create_app


@pytest.fixture
def client(data):
    with ApiClient(create_app(data)) as c:
        assert sync(c, [hello(1), *played(2)]).status_code == 200
        yield c


def refused(response, status, words):
    assert response.status_code == status, response.text
    reason = response.json()["error"]
    assert words in reason, reason
    return reason


def check(client, data, response, status, words):
    before = counts(data)
    refused(response(), status, words)
    assert counts(data) == before
    assert client.get("/healthz").status_code == 200


def test_unknown_unit_403(client, data):
    raw = body([hello(6)], unit="T99")
    check(client, data, lambda: post(client, raw, signature=sign(raw)), 403, "unknown unit 'T99'")


def test_missing_signature_401(client, data):
    raw = body([hello(6)])
    check(client, data, lambda: client.post("/api/v1/sync", content=raw), 401, "missing X-Bidwire-Signature")


def test_bad_signature_401(client, data):
    raw = body([hello(6)])
    check(client, data, lambda: post(client, raw, signature="00" * 32), 401, "bad signature")


def test_signature_of_another_unit_401(client, data):
    raw = body([hello(6)], unit="T01")
    check(client, data, lambda: post(client, raw, signature=sign(raw, "T02")), 401, "bad signature")


def test_body_changed_after_signing_401(client, data):
    raw = body([hello(6)])
    tampered = raw.replace(b'"backlog": 0', b'"backlog": 9')
    assert tampered != raw
    check(client, data, lambda: post(client, tampered, signature=sign(raw)), 401, "bad signature")


def test_signature_that_is_not_hex_401(client, data):
    raw = body([hello(6)])
    check(client, data, lambda: post(client, raw, signature=b"zz\xe9"), 401, "bad signature")


def test_body_not_json_400(client, data):
    check(client, data, lambda: post(client, b"{not json"), 400, "not JSON")


def test_body_not_an_object_400(client, data):
    check(client, data, lambda: post(client, b"[1, 2]"), 400, "JSON object")


@pytest.mark.parametrize("field", ["boot", "cmd_ack", "events"])
def test_missing_field_400(client, data, field):
    doc = {"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [hello(6)]}
    del doc[field]
    raw = json.dumps(doc).encode()
    check(client, data, lambda: post(client, raw), 400, f"missing field '{field}'")


def test_wrong_field_type_400(client, data):
    raw = json.dumps({"unit": "T01", "boot": "1", "cmd_ack": 0, "events": []}).encode()
    check(client, data, lambda: post(client, raw), 400, "'boot' must be an integer")


def test_unknown_event_type_400(client, data):
    raw = body([hello(6), {"seq": 7, "type": "teleport", "board": 1}])
    check(client, data, lambda: post(client, raw), 400, "unknown event type 'teleport'")


def test_event_missing_a_field_400(client, data):
    bad = result(7, 2, "4S", "N", 10, 620)
    del bad["tricks"]
    raw = body([board_start(6, 2), bad])
    check(client, data, lambda: post(client, raw), 400, "events[1] (result).tricks")


def test_event_field_of_the_wrong_type_400(client, data):
    raw = body([board_start(6, 2), result(7, 2, "4S", "N", "ten", 620)])
    check(client, data, lambda: post(client, raw), 400, "tricks")


def test_seq_not_increasing_400(client, data):
    raw = body([hello(7), hello(6)])
    check(client, data, lambda: post(client, raw), 400, "does not increase")


def test_seq_zero_400(client, data):
    raw = body([dict(hello(6), seq=0)])
    check(client, data, lambda: post(client, raw), 400, "seq")


def test_event_of_another_unit_400(client, data):
    raw = body([dict(hello(6), unit="T02")])
    check(client, data, lambda: post(client, raw), 400, "from unit 'T02'")


def test_good_events_before_a_bad_one_are_not_stored_400(client, data):
    raw = body([*played(6, board=2, tricks=9, score_ns=-100), {"seq": 10, "type": "call", "board": 2}])
    check(client, data, lambda: post(client, raw), 400, "events[4] (call)")


def test_body_over_the_limit_413(client, data):
    events = [{"seq": 6 + i, "type": "note", "board": 1, "text": "x" * 1000} for i in range(300)]
    raw = body(events)
    assert len(raw) > MAX_BODY
    check(client, data, lambda: post(client, raw), 413, "over the")


def test_body_over_the_limit_without_content_length_413(client, data):
    def chunks():
        for _ in range(300):
            yield b" " * 1024
    check(client, data, lambda: client.post("/api/v1/sync", content=chunks(),
                                            headers={"X-Bidwire-Signature": "00"}), 413, "over the")


def test_result_for_a_board_outside_the_assignment_409(client, data):
    seq = assign(client, boards=[5, 6], ns=1, ew=1)
    start = board_start(6, 5, section="A", table=1, round=1, ns=1, ew=1)
    assert sync(client, [start], cmd_ack=seq).status_code == 200
    raw = body([result(7, 7, "4S", "N", 10, 420)], cmd_ack=seq)
    check(client, data, lambda: post(client, raw), 409, "not among the boards of the unit's assignment")


def test_result_for_a_board_the_unit_did_not_start_409(client, data):
    seq = assign(client, boards=[5, 6], ns=1, ew=1)
    start = board_start(6, 5, section="A", table=1, round=1, ns=1, ew=1)
    assert sync(client, [start], cmd_ack=seq).status_code == 200
    raw = body([result(7, 6, "4S", "N", 10, 420)], cmd_ack=seq)
    check(client, data, lambda: post(client, raw), 409, "playing board 5")


def test_the_whole_batch_goes_with_a_409(client, data):
    seq = assign(client, boards=[5])
    events = [board_start(6, 5, section="A", table=1, round=1), result(7, 9, "4S", "N", 10, 420)]
    check(client, data, lambda: post(client, body(events, cmd_ack=seq)), 409, "board 9")


def test_results_of_boards_played_before_any_assignment_are_taken(client, data):
    """Events a unit made before its first assign reached it must not block its outbox for good."""
    seq = assign(client, boards=[5, 6], ns=1, ew=1)
    r = sync(client, played(6, board=2, tricks=8, score_ns=-50), cmd_ack=seq)  # board 2 started unassigned
    assert r.status_code == 200 and r.json()["ack"] == 9


def test_a_refused_unit_shows_its_last_rejection(client, data):
    raw = body([hello(6)])
    post(client, raw, signature="00" * 32)
    [unit] = [u for u in client.get("/api/v1/units").json()["units"] if u["unit"] == "T01"]
    assert unit["last_rejection"]["status"] == 401


def test_a_failure_while_storing_stores_nothing_and_says_so_500(client, data, monkeypatch):
    from bidwire_host.collector import commands

    def broken(conn, unit, cmd_ack):
        raise RuntimeError("a bug")

    monkeypatch.setattr(commands, "pending", broken)
    check(client, data, lambda: sync(client, played(6, board=2, tricks=9, score_ns=-100)), 500, "nothing was stored")
