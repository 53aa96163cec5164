"""The stand-in collector (tests/standin.py) keeps architecture.md §4: signed batches stored once, commands delivered
after cmd_ack, and every bad request answered 4xx with a reason and no change."""
import hashlib
import hmac
import http.client
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: standin.py
from standin import StandIn  # noqa: E402

SECRET = "5a" * 32
OTHER = "a5" * 32


def sign(raw, secret=SECRET):
    return hmac.new(bytes.fromhex(secret), raw, hashlib.sha256).hexdigest()


def body(events=(), unit="T01", boot=1, cmd_ack=0):
    return json.dumps({"unit": unit, "boot": boot, "events": list(events), "cmd_ack": cmd_ack}).encode()


def ev(*seqs):
    return [{"seq": s, "type": "call", "call": "1S"} for s in seqs]


def post(collector, raw, signature="sign", path="/api/v1/sync", secret=SECRET):
    headers = {"Content-Type": "application/json"}
    if signature == "sign":
        signature = sign(raw, secret)
    if signature is not None:
        headers["X-Bidwire-Signature"] = signature
    conn = http.client.HTTPConnection(collector.host, collector.port, timeout=10)
    try:
        conn.request("POST", path, body=raw, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


@pytest.fixture
def collector():
    with StandIn(units={"T01": SECRET, "T02": OTHER}) as s:
        yield s


def test_signed_batch_is_stored_and_acknowledged(collector):
    status, answer = post(collector, body(ev(1, 2, 3)))
    assert (status, answer) == (200, {"ack": 3, "commands": []})
    assert [e["seq"] for e in collector.events("T01")] == [1, 2, 3]
    assert collector.events("T02") == [] and collector.verified == 1 and collector.requests == 1
    assert collector.boot("T01") == 1


def test_empty_batch_is_a_heartbeat_answered_with_the_current_ack(collector):
    assert post(collector, body()) == (200, {"ack": 0, "commands": []})
    post(collector, body(ev(1, 2)))
    assert post(collector, body()) == (200, {"ack": 2, "commands": []})


def test_uppercase_hex_signature_is_accepted(collector):
    raw = body(ev(1))
    assert post(collector, raw, signature=sign(raw).upper())[0] == 200


@pytest.mark.parametrize("signature", [None, "", "00" * 32, sign(body(ev(1)), OTHER), sign(body(ev(1)))[:-1]],
                         ids=["missing", "empty", "zeros", "other-units-secret", "truncated"])
def test_bad_or_missing_signature_is_401_and_changes_nothing(collector, signature):
    status, answer = post(collector, body(ev(1)), signature=signature)
    assert status == 401 and "signature" in answer["error"].lower()
    assert collector.events("T01") == [] and collector.verified == 0


def test_signature_covers_the_raw_bytes_not_the_json_value(collector):
    raw = body(ev(1))
    spaced = raw.replace(b", ", b",  ")  # the same JSON, other bytes
    assert post(collector, spaced, signature=sign(raw))[0] == 401
    assert post(collector, spaced)[0] == 200


def test_unknown_unit_is_refused_with_a_reason(collector):
    status, answer = post(collector, body(ev(1), unit="T99"))
    assert status == 403 and "unknown unit" in answer["error"]


def test_a_retried_batch_is_acknowledged_again_and_not_stored_twice(collector):
    raw = body(ev(1, 2))
    assert post(collector, raw) == (200, {"ack": 2, "commands": []})
    assert post(collector, raw) == (200, {"ack": 2, "commands": []})
    assert [e["seq"] for e in collector.events("T01")] == [1, 2] and collector.duplicates == 2


def test_a_batch_partly_overlapping_what_is_stored_stores_only_the_new_events(collector):
    post(collector, body(ev(1, 2, 3)))
    assert post(collector, body(ev(2, 3, 4, 5))) == (200, {"ack": 5, "commands": []})
    assert [e["seq"] for e in collector.events("T01")] == [1, 2, 3, 4, 5] and collector.duplicates == 2
    assert post(collector, body(ev(1))) == (200, {"ack": 5, "commands": []})  # an old replay: harmless
    assert len(collector.events("T01")) == 5


def test_units_have_their_own_seq_spaces(collector):
    post(collector, body(ev(1, 2)))
    assert post(collector, body(ev(1), unit="T02"), secret=OTHER) == (200, {"ack": 1, "commands": []})
    assert len(collector.events("T01")) == 2 and len(collector.events("T02")) == 1


def test_commands_after_cmd_ack_are_delivered_until_acknowledged(collector):
    assert collector.queue_command("T01", {"type": "message", "text": "move to table 3"}) == 1
    assert collector.queue_command("T01", {"type": "time", "ms": 1000}) == 2
    assert collector.queue_command("T02", {"type": "message", "text": "other unit"}) == 1
    _, answer = post(collector, body())
    assert [(c["seq"], c["type"]) for c in answer["commands"]] == [(1, "message"), (2, "time")]
    _, answer = post(collector, body(cmd_ack=1))
    assert [c["seq"] for c in answer["commands"]] == [2] and collector.cmd_ack("T01") == 1
    _, answer = post(collector, body(cmd_ack=2))
    assert answer["commands"] == [] and collector.cmd_ack("T01") == 2


def test_a_replaced_unit_reporting_cmd_ack_zero_gets_every_command_again(collector):
    collector.queue_command("T01", {"type": "assign", "table": 1})
    post(collector, body(cmd_ack=1))
    _, answer = post(collector, body(boot=1, cmd_ack=0))
    assert [c["seq"] for c in answer["commands"]] == [1]


def test_outage_answers_the_status_and_changes_nothing_then_recovers(collector):
    collector.fail_next(2)
    assert post(collector, body(ev(1)))[0] == 503
    assert post(collector, body(ev(1)))[0] == 503
    assert collector.events("T01") == []
    assert post(collector, body(ev(1))) == (200, {"ack": 1, "commands": []})
    collector.fail_next(1, status=500)
    assert post(collector, body(ev(2)))[0] == 500 and collector.requests == 4


MALFORMED = {
    "not-json": b"{not json",
    "not-utf8": b"\xff\xfe{}",
    "array": b"[1, 2]",
    "missing-unit": json.dumps({"boot": 1, "events": [], "cmd_ack": 0}).encode(),
    "missing-boot": json.dumps({"unit": "T01", "events": [], "cmd_ack": 0}).encode(),
    "missing-events": json.dumps({"unit": "T01", "boot": 1, "cmd_ack": 0}).encode(),
    "missing-cmd-ack": json.dumps({"unit": "T01", "boot": 1, "events": []}).encode(),
    "unit-not-string": body(unit=1),  # type: ignore[arg-type]
    "boot-string": body(boot="1"),  # type: ignore[arg-type]
    "cmd-ack-negative": body(cmd_ack=-1),
    "events-not-list": json.dumps({"unit": "T01", "boot": 1, "events": {"seq": 1}, "cmd_ack": 0}).encode(),
    "event-not-object": body([1]),
    "event-without-seq": body([{"type": "call"}]),
    "seq-string": body([{"seq": "1"}]),
    "seq-float": body([{"seq": 1.0}]),
    "seq-bool": body([{"seq": True}]),
    "seq-zero": body([{"seq": 0}]),
    "seq-repeated-in-batch": body(ev(1, 2, 2)),
    "seq-decreasing-in-batch": body(ev(3, 2)),
}


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_body_is_400_with_a_reason_and_changes_nothing(collector, raw):
    post(collector, body(ev(1)))
    collector.queue_command("T01", {"type": "message"})
    status, answer = post(collector, raw)
    assert status == 400 and answer["error"]
    assert [e["seq"] for e in collector.events("T01")] == [1] and collector.cmd_ack("T01") == 0
    assert collector.rejections[-1][0] == 400


def test_wrong_path_is_404(collector):
    status, answer = post(collector, body(ev(1)), path="/api/v1/other")
    assert status == 404 and "/api/v1/sync" in answer["error"] and collector.events("T01") == []


def test_runs_as_a_script_and_writes_its_port(tmp_path):
    port_file = tmp_path / "port"
    script = Path(__file__).resolve().parents[1] / "standin.py"
    proc = subprocess.Popen([sys.executable, str(script), "--port", "0", "--unit", f"T01:{SECRET}",
                             "--port-file", str(port_file)], stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()  # type: ignore[union-attr]
        port = int(port_file.read_text())
        assert url == f"http://127.0.0.1:{port}"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        raw = body(ev(1))
        conn.request("POST", "/api/v1/sync", body=raw, headers={"X-Bidwire-Signature": sign(raw)})
        assert json.loads(conn.getresponse().read()) == {"ack": 1, "commands": []}
        conn.close()
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    assert not os.path.exists(str(port_file) + ".tmp")
