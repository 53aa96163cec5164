"""Hostile sync bodies (issue: "a malformed request, a forged signature ... gets a clear error and loses nothing
that was already accepted"): hypothesis against POST /api/v1/sync, in process.

Invariants, for every body: never a 5xx; a refusal is a 4xx {"error": non-empty text} and changes no row
count of the store; what was accepted before is still there byte for byte; the director's read endpoints
still answer afterwards. Bodies are posted signed with the unit's own key (so the body parser itself is
exercised, not only the signature check) and unsigned or forged (never accepted).

The events of the "real" batches come from the firmware's own state machine (bidwire.unit.app) fed random
key presses, numbered as the unit's store numbers them: whatever a unit can send must be accepted once and
a replay of it must store nothing new.
"""
import json

import pytest
from collector_kit import counts, hello, played, post, query, sign, write_keyring
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from bidwire.unit.app import App
from bidwire.unit.keys import KEY_NAMES, parse_key
from bidwire_host.collector.sync_body import Malformed, check_body
from bidwire_host.server import create_app

FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.data_too_large])


# ---- the collector under test: one per module, a prefix accepted before any fuzzing ---------------------------
@pytest.fixture(scope="module")
def collector(tmp_path_factory):
    data = tmp_path_factory.mktemp("fuzz-sync")
    write_keyring(data / "keyring.json")
    with TestClient(create_app(data)) as client:
        prefix = [hello(1), *played(2)]
        r = post(client, _raw({"unit": "T01", "boot": 1, "cmd_ack": 0, "events": prefix}))
        assert r.status_code == 200 and r.json()["ack"] == 5, r.text
        yield client, data, prefix


def _raw(doc):
    return json.dumps(doc, ensure_ascii=True).encode()


def api_headers(data):
    """The director API's bearer token, once the collector has one (the file `api-token` in its data dir)."""
    token = data / "api-token"
    return {"Authorization": f"Bearer {token.read_text().strip()}"} if token.exists() else {}


def stored(data):
    return query(data, "SELECT id, unit, seq, type, board, boot, received, body FROM events ORDER BY id")


def highest(data, unit):
    return query(data, "SELECT coalesce(max(seq), 0) AS top FROM events WHERE unit = ?", unit)[0]["top"]


def refusal(r):
    """A clear refusal: 4xx, JSON {"error": non-empty text}."""
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    doc = r.json()
    assert isinstance(doc, dict) and isinstance(doc.get("error"), str) and doc["error"].strip(), r.text
    return doc["error"]


def readable(client, data, boards=()):
    """The director's views still answer after whatever was stored (a stored value must not break them)."""
    h = api_headers(data)
    assert client.get("/healthz").status_code == 200
    for path in ["/api/v1/units", "/api/v1/alerts", "/api/v1/ranking",
                 *(f"/api/v1/boards/{b}" for b in sorted(set(boards)))]:
        r = client.get(path, headers=h)
        assert r.status_code == 200, (path, r.status_code, r.text)


def send(collector, raw, signature, unit="T01"):
    """Post raw with the given signature header (None: no header); check the invariants; the response."""
    client, data, _ = collector
    before_counts, before = counts(data), stored(data)
    top = highest(data, unit)
    headers = {} if signature is None else {"X-Bidwire-Signature": signature}
    r = client.post("/api/v1/sync", content=raw, headers=headers)
    assert r.status_code < 500, (r.status_code, r.text)
    after = stored(data)
    assert after[:len(before)] == before  # what was accepted is still there, exactly
    if r.status_code >= 400:
        error = refusal(r)
        now = counts(data)
        if r.status_code == 409 and "was stored with other content" in error:
            # a signed batch that sends a stored seq again with other content: refused, and both versions kept for
            # the director (ingest.conflict_job), one seq_conflicts row, new or (the same again) counted on its times
            assert now["seq_conflicts"] - before_counts["seq_conflicts"] in (0, 1), error
            before_counts = {**before_counts, "seq_conflicts": now["seq_conflicts"]}
        assert now == before_counts
        assert after == before
    else:
        assert r.status_code == 200, r.text
        doc = json.loads(raw)
        new = [e for e in doc["events"] if e["seq"] > top]
        got = [(x["unit"], x["seq"], json.loads(x["body"])) for x in after[len(before):]]
        assert got == [(unit, e["seq"], e) for e in new]  # exactly the new events, once, as sent
        assert r.json()["ack"] == max([top] + [e["seq"] for e in new])
        readable(client, data, [e["board"] for e in new if isinstance(e.get("board"), int)])
    return r


# ---- (a) arbitrary bytes ---------------------------------------------------------------------------------------
@FUZZ
@given(raw=st.binary(max_size=3000), how=st.sampled_from(["signed", "unsigned", "forged"]))
@example(raw=b"", how="signed")
@example(raw=b"\xff\xfe{", how="signed")
@example(raw=b"[" * 100_000, how="signed")
@example(raw=b'{"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [{"seq": 1' + b"9" * 5000 + b', "type": "note", '
              b'"text": "x"}]}', how="signed")
# Regressions (500 before ingest.unit_of refused them): an int beyond SQLite's 64 bits (OverflowError while
# storing), a lone surrogate escape (UnicodeEncodeError while storing), a battery of Infinity or 1e999 (stored,
# then GET /api/v1/units answered 500: not JSON-compliant).
@example(raw=b'{"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [{"seq": 9223372036854775808, "type": "note", '
              b'"text": "x"}]}', how="signed")
@example(raw=b'{"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [{"seq": 999, "type": "note", "t": -1' +
              b"0" * 19 + b', "text": "x"}]}', how="signed")
@example(raw=b'{"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [{"seq": 999, "type": "note", '
              b'"text": "\\ud800"}]}', how="signed")
@example(raw=b'{"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [{"seq": 999, "type": "hello", "boot": 1, '
              b'"backlog": 0, "battery": Infinity}]}', how="signed")
@example(raw=b'{"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [{"seq": 999, "type": "hello", "boot": 1, '
              b'"backlog": 0, "rssi": -1e999}]}', how="signed")
def test_arbitrary_bytes_are_refused_cleanly(collector, raw, how):
    signature = {"signed": sign(raw), "unsigned": None, "forged": sign(raw, "T02")}[how]
    r = send(collector, raw, signature)
    refusal(r)


@FUZZ
@given(data=st.data())
def test_a_valid_body_with_its_bytes_mangled_and_then_signed(collector, data):
    """Bytes flipped, inserted, deleted in a real body, then signed: the parser sees near-JSON."""
    _, store_dir, _ = collector
    top = highest(store_dir, "T01")
    raw = bytearray(_raw({"unit": "T01", "boot": 1, "cmd_ack": 0,
                          "events": [hello(top + 1), *played(top + 2, board=3)]}))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, 10**6)) % len(raw)  # not drawn from len(raw): it grows with the seqs
        op = data.draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
        if op == "flip":
            raw[i] ^= data.draw(st.integers(1, 255))
        elif op == "insert":
            raw[i:i] = data.draw(st.binary(min_size=1, max_size=8) | st.sampled_from(
                [b"NaN", b"Infinity", b"-Infinity", b"1e999", b"99999999999999999999", b"\\ud800", b"[", b"{",
                 b'"', b",", b"null", b"\x00"]))
        elif op == "delete":
            del raw[i:i + data.draw(st.integers(1, 8))]
        else:
            del raw[i:]
        if not raw:
            raw = bytearray(b"{")
    event(f"status {send(collector, bytes(raw), sign(bytes(raw))).status_code}")


# ---- (b) structured but wrong: the right shape with exactly one known defect -> 400 -----------------------------
def _batch(top, board):
    return [hello(top + 1), *played(top + 2, board=board)]


NOT_A_COUNT = st.one_of(st.integers(max_value=-1), st.floats(allow_nan=False), st.booleans(), st.none(), st.text(),
                        st.lists(st.integers(0, 3), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(),
                                                                                 max_size=2))
NOT_A_SEQ = st.one_of(st.integers(max_value=0), st.floats(allow_nan=False), st.booleans(), st.none(),
                      st.text(), st.just("NaN"), st.just("1"), st.lists(st.integers(1, 9), max_size=2))
NOT_A_BOARD = st.one_of(st.integers(max_value=0), st.floats(allow_nan=False), st.booleans(), st.text(),
                        st.just("1"), st.lists(st.integers(1, 9), min_size=1, max_size=2))
NOT_A_SEAT = st.one_of(st.text().filter(lambda s: s not in ("N", "E", "S", "W")), st.integers(), st.none(),
                       st.lists(st.just("N"), min_size=1, max_size=1))
# Fields every event of that type needs (docs/architecture.md §4: the events a unit sends).
NEEDED = {"hello": ["seq", "type"], "board_start": ["seq", "type", "board", "dealer", "vul"],
          "auction_end": ["seq", "type", "board", "inputs"], "lead": ["seq", "type", "board", "seat", "suit"],
          "result": ["seq", "type", "board", "tricks", "score_ns"]}
TOP = ("unit", "boot", "cmd_ack", "events")


@st.composite
def defective(draw, top):
    """(doc, what): a sync body for T01 with one defect that makes it malformed, and which defect."""
    doc = {"unit": "T01", "boot": 1, "cmd_ack": 0, "events": _batch(top, draw(st.integers(1, 36)))}
    events = doc["events"]
    i = draw(st.integers(0, len(events) - 1))
    kind = draw(st.sampled_from(["drop top", "extra top", "boot", "cmd_ack", "events not a list", "not an object",
                                 "event not an object", "unknown type", "drop field", "seq", "board", "seat",
                                 "duplicate seq", "swap", "seq goes back", "other unit", "unit not text"]))
    if kind == "drop top":
        del doc[draw(st.sampled_from(TOP))]
    elif kind == "extra top":
        doc[draw(st.text(min_size=1).filter(lambda k: k not in TOP))] = draw(st.integers() | st.text() | st.none())
    elif kind in ("boot", "cmd_ack"):
        doc[kind] = draw(NOT_A_COUNT)
    elif kind == "events not a list":
        doc["events"] = draw(st.one_of(st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.text(),
                                       st.integers(), st.none(), st.just(events[0])))
    elif kind == "not an object":
        doc = draw(st.sampled_from([[doc], [doc["unit"]], doc["unit"], None, 1]))
    elif kind == "event not an object":
        events[i] = draw(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.integers(), max_size=3),
                                   st.just([events[i]])))
    elif kind == "unknown type":
        events[i]["type"] = draw(st.one_of(st.text().filter(lambda t: t not in _KNOWN), st.none(), st.integers(),
                                           st.lists(st.just("hello"), min_size=1, max_size=1)))
    elif kind == "drop field":
        del events[i][draw(st.sampled_from(NEEDED[events[i]["type"]]))]
    elif kind == "seq":
        events[i]["seq"] = draw(NOT_A_SEQ)
    elif kind == "board":
        i = draw(st.integers(1, len(events) - 1))  # the board events
        events[i]["board"] = draw(NOT_A_BOARD)
    elif kind == "seat":
        i = draw(st.integers(1, len(events) - 1))
        field = {"board_start": "dealer", "auction_end": "declarer", "lead": "seat", "result": "declarer"}
        events[i][field[events[i]["type"]]] = draw(NOT_A_SEAT.filter(lambda s: s is not None))
    elif kind == "duplicate seq":
        events.insert(i + 1, dict(events[i]))
    elif kind == "swap":
        j = draw(st.integers(0, len(events) - 1).filter(lambda j: j != i))
        events[i], events[j] = events[j], events[i]
    elif kind == "seq goes back":
        i = draw(st.integers(1, len(events) - 1))
        events[i]["seq"] = max(1, events[i - 1]["seq"] - draw(st.integers(0, 5)))
    elif kind == "other unit":
        events[i]["unit"] = draw(st.sampled_from(["T02", "T03", "", "t01", "T01 "]) | st.integers() | st.none())
    elif kind == "unit not text":
        doc["unit"] = draw(st.one_of(st.integers(), st.none(), st.lists(st.just("T01"), max_size=1),
                                     st.just({"id": "T01"})))
    return doc, kind


_KNOWN = ("hello", "board_start", "call", "irregularity", "settled", "td_call", "td_end", "ruling_applied",
          "ruling_refused", "auction_end", "lead", "result", "note")


@FUZZ
@given(data=st.data(), ascii_only=st.booleans())
def test_a_body_of_the_right_shape_with_one_defect_is_refused_400(collector, data, ascii_only):
    _, store_dir, _ = collector
    doc, what = data.draw(defective(highest(store_dir, "T01")), label="body")
    raw = json.dumps(doc, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    r = send(collector, raw, sign(raw))
    assert r.status_code == 400, (what, r.status_code, r.text)
    refusal(r)


@FUZZ
@given(data=st.data(), how=st.sampled_from(["unsigned", "forged", "other unit's key", "stale"]))
def test_a_body_without_the_units_own_signature_is_never_accepted(collector, data, how):
    """Valid or not, a body not signed by its own unit's key is refused and changes nothing."""
    _, store_dir, _ = collector
    top = highest(store_dir, "T01")
    doc = data.draw(st.one_of(defective(top).map(lambda d: d[0]),
                              st.just({"unit": "T01", "boot": 1, "cmd_ack": 0, "events": _batch(top, 4)})))
    raw = _raw(doc)
    forged = st.binary(max_size=70).map(lambda b: b.translate(None, b"\r\n\x00").strip())
    signature = {"unsigned": None, "forged": data.draw(forged | st.text("0123456789abcdef", min_size=64, max_size=64)),
                 "other unit's key": sign(raw, "T03"), "stale": sign(raw + b" ")}[how]
    r = send(collector, raw, signature)
    refusal(r)


# ---- (c) anything in any field: huge ints, floats, NaN, unicode, nesting ---------------------------------------
JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63 - 2, max_value=2**70)
    | st.integers(min_value=-2**70, max_value=-2**63 + 1) | st.floats() | st.text()
    | st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3)
    | st.sampled_from(["NaN", "Infinity", "1e999", "", "\x00", "N", "4S", "T01"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@st.composite
def anything(draw, top):
    doc = {"unit": "T01", "boot": 1, "cmd_ack": 0, "events": _batch(top, draw(st.integers(1, 36)))}
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(["top", "event", "extra event field"]))
        if where == "top":
            doc[draw(st.sampled_from(("boot", "cmd_ack", "events")))] = draw(JUNK)
        elif isinstance(doc["events"], list) and doc["events"]:
            e = doc["events"][draw(st.integers(0, len(doc["events"]) - 1))]
            if not isinstance(e, dict):
                continue
            if where == "event":
                e[draw(st.sampled_from(sorted(e)))] = draw(JUNK)
            else:
                e[draw(st.text(max_size=10))] = draw(JUNK)
    return doc


def _dumps(doc):
    """JSON as a careless (or hostile) client writes it: NaN and Infinity bare, lone surrogates escaped."""
    return json.dumps(doc).encode().replace(json.dumps(DEEP).encode(), b"[" * 980 + b"]" * 980)


@FUZZ
@given(data=st.data())
def test_anything_in_any_field_never_breaks_the_collector(collector, data):
    _, store_dir, _ = collector
    doc = data.draw(anything(highest(store_dir, "T01")), label="body")
    raw = _dumps(doc)
    event(f"status {send(collector, raw, sign(raw)).status_code}")


DEEP = "<980 nested lists>"  # written into the raw body by _dumps: too deep for the client's own json.dumps


@pytest.mark.parametrize("value", [2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**70, float("nan"), float("inf"),
                                   -float("inf"), 1e308, "\ud800", "\ud83d\ude00", {"x": "\udfff"}, DEEP])
@pytest.mark.parametrize("field", ["seq", "t", "battery", "boot", "extra"])
def test_odd_values_in_a_hello(collector, field, value):
    """Regressions the property above found (and their neighbours): each a 4xx or a 200, never a 5xx."""
    _, store_dir, _ = collector
    top = highest(store_dir, "T01")
    raw = _dumps({"unit": "T01", "boot": 1, "cmd_ack": 0, "events": [dict(hello(top + 1), **{field: value})]})
    send(collector, raw, sign(raw))


# ---- (d) whatever a real unit sends is accepted once; a replay stores nothing new ---------------------------------
KEY = st.tuples(st.integers(0, 3), st.sampled_from(KEY_NAMES))
# A board as a table plays it (1S-P-4S-P-P-P, a lead, 10 tricks confirmed), so real batches hold every kind.
A_BOARD = [(0, "1"), (0, "S"), (1, "PASS"), (2, "4"), (2, "S"), (3, "PASS"), (0, "PASS"), (1, "PASS"),
           (1, "C"), (0, "PASS"), (1, "PASS"), (1, "PASS")]


def unit_events(keys, unit, first_seq, t0=1000):
    """The events the firmware's state machine makes for these presses, numbered as unit/store.py numbers them."""
    app = App(unit, "record", "1234")
    events = []
    for seat, key in [(0, "PASS"), *keys]:
        for e in app.key(seat, parse_key(key)) or []:
            e.update(t=t0 + len(events), unit=unit, seq=first_seq + len(events))
            events.append(e)
    return events


@settings(FUZZ, max_examples=60)  # three fsync'd commits an example
@given(keys=st.lists(KEY, max_size=60) | st.lists(KEY, max_size=30).map(lambda k: A_BOARD + k),
       gap=st.integers(0, 3), boot=st.integers(0, 2**31), cmd_ack=st.integers(0, 5))
def test_a_real_units_batch_is_accepted_once_and_a_replay_stores_nothing(collector, keys, gap, boot, cmd_ack):
    client, data, _ = collector
    top = highest(data, "T02")
    events = unit_events(keys, "T02", top + 1 + gap)
    raw = _raw({"unit": "T02", "boot": boot, "cmd_ack": cmd_ack, "events": events})
    r = send(collector, raw, sign(raw, "T02"), unit="T02")
    assert r.status_code == 200, r.text
    ack = r.json()["ack"]
    assert ack == (events[-1]["seq"] if events else top)
    before_counts, before = counts(data), stored(data)
    for again in (raw, _raw({"unit": "T02", "boot": boot, "cmd_ack": cmd_ack, "events": events[:len(events) // 2]})):
        r = client.post("/api/v1/sync", content=again, headers={"X-Bidwire-Signature": sign(again, "T02")})
        assert r.status_code == 200 and r.json()["ack"] == ack, r.text
        assert counts(data) == before_counts and stored(data) == before


# ---- the parser on its own, many more bodies ----------------------------------------------------------------------
@settings(max_examples=600, deadline=None)
@given(body=JUNK | st.builds(lambda e: {"unit": "T01", "boot": 0, "cmd_ack": 0, "events": e}, JUNK)
       | st.builds(lambda e: {"unit": "T01", "boot": 0, "cmd_ack": 0, "events": [e]},
                   st.dictionaries(st.sampled_from(["seq", "type", "board", "seat", "unit", "input", "text"]),
                                   JUNK | st.sampled_from(_KNOWN) | st.integers(1, 9))))
def test_check_body_returns_or_says_malformed(body):
    try:
        unit, boot, cmd_ack, events = check_body(body)
    except Malformed as e:
        assert str(e)
        return
    assert unit == body["unit"] and events == body["events"]
    assert all(isinstance(e["seq"], int) and e["seq"] >= 1 for e in events)
    assert [e["seq"] for e in events] == sorted({e["seq"] for e in events})


# ---- a command the director's API takes must not make the unit's own events unstorable ---------------------------
BIG = st.integers() | st.sampled_from([2**31, 2**32, 2**53, 2**63 - 1, 2**63, 2**64, -1, 0])


@st.composite
def commands(draw):
    if draw(st.booleans()):
        return {"type": "time", "now": draw(st.integers(0, 2**32 - 1) | BIG)}
    small = st.integers(1, 40)
    return {"type": "assign", "section": draw(st.sampled_from(["A", "B", "Ω"])), "table": draw(small | BIG),
            "round": draw(small | BIG), "boards": draw(st.lists(small | BIG, min_size=1, max_size=3)),
            "ns": draw(small | BIG | st.text(min_size=1, max_size=8)), "ew": draw(small | BIG | st.none())}


@settings(FUZZ, max_examples=80)
@given(command=commands(), keys=st.lists(KEY, max_size=20).map(lambda k: A_BOARD + k))
# Regressions: both were queued (201), and the unit's events then carried a number beyond 64 bits (400 for ever).
@example(command={"type": "time", "now": 2**70}, keys=A_BOARD)
@example(command={"type": "time", "now": -2**63 - 1}, keys=A_BOARD)
@example(command={"type": "assign", "section": "A", "table": 1, "round": 1, "boards": [2**63], "ns": 1, "ew": 2},
         keys=A_BOARD)
def test_a_command_the_api_takes_leaves_the_units_events_storable(collector, command, keys):
    """The unit applies what the collector sends and puts it in its events (the host clock in `t`, the assignment
    in board_start): if the API queued it, the events the unit then makes must be accepted, else the unit's
    outbox would be refused for ever."""
    client, data, _ = collector
    r = client.post("/api/v1/units/T03/commands", content=_raw(command),
                    headers={"Content-Type": "application/json", **api_headers(data)})
    assert r.status_code < 500, r.text
    event(f"{command['type']}: {r.status_code}")
    if r.status_code != 201:
        refusal(r)
        return
    queued = r.json()["command"]
    app = App("T03", "record", "1234")
    clock = 1000  # the unit's own clock, seconds since it booted
    app.command(queued, now=clock)
    top = highest(data, "T03")
    events = []
    for seat, key in [(0, "PASS"), *keys]:
        for e in app.key(seat, parse_key(key)) or []:
            e.update(t=clock + len(events) + app.clock_offset, unit="T03", seq=top + 1 + len(events))
            events.append(e)
    raw = _raw({"unit": "T03", "boot": 1, "cmd_ack": queued["seq"], "events": events})
    r = send(collector, raw, sign(raw, "T03"), unit="T03")
    assert r.status_code == 200, (command, r.text)


def test_the_prefix_accepted_first_is_intact_after_all_of_it(collector):
    """Runs last in the module: the first batch is still stored exactly as sent."""
    _, data, prefix = collector
    rows = [r for r in stored(data) if r["unit"] == "T01" and r["seq"] <= 5]
    assert [(r["seq"], json.loads(r["body"])) for r in rows] == [(e["seq"], e) for e in prefix]
