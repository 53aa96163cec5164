"""The sync protocol's schema (docs/protocol/sync-v1.schema.json) against both ends of the wire.

The firmware side: a unit's Store and App on CPython play a session with every kind of irregularity
(tests/e2e/session.py) and the commands a collector sends; every event they journal, and every body the sync
client builds from them, must be what the schema states. The collector side: instances generated from each event
$def are taken by the collector's parser (events.check_body, what sync.admit calls), and the commands the collector
builds through its own API are what the schema states. The schema is written from the code, not dumped from the
pydantic models, so these tests compare two statements of the protocol.
"""
import json
import sys
from pathlib import Path

import jsonschema_rs
import pytest
from collector_kit import ApiClient, auction_end, board_start, played, sync
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bidwire.unit import director
from bidwire.unit.app import App
from bidwire.unit.journal import Journal
from bidwire.unit.keys import parse_key
from bidwire.unit.store import Store
from bidwire.unit.sync import Sync
from bidwire_host.collector import sync_body
from bidwire_host.event import model as ev
from bidwire_host.server import create_app

ROOT = Path(__file__).parents[2]
SCHEMA = json.loads((ROOT / "docs" / "protocol" / "sync-v1.schema.json").read_text())
DEFS = SCHEMA["$defs"]
EVENT_TYPES = [ref["$ref"].rsplit("/", 1)[1] for ref in DEFS["event"]["oneOf"]]
COMMAND_TYPES = [ref["$ref"].rsplit("/", 1)[1] for ref in DEFS["command"]["oneOf"]]


def schema_of(name):
    """The schema's $def `name` as a schema of its own (the $defs it refers to beside it)."""
    return {"$schema": SCHEMA["$schema"], "$defs": DEFS, "$ref": f"#/$defs/{name}"}


VALIDATORS = {name: jsonschema_rs.Draft202012Validator(schema_of(name)) for name in DEFS}


def from_schema(schema):
    """Instances of a schema in the subset this schema file uses (hypothesis-jsonschema 0.23 does not run on this
    Hypothesis). Not-required properties are left out at random; an object open to more (no additionalProperties:
    false) may get an unknown field, as a newer firmware's."""
    if "$ref" in schema:
        return from_schema({**DEFS[schema["$ref"].rsplit("/", 1)[1]], **{k: v for k, v in schema.items()
                                                                          if k not in ("$ref", "$defs", "$schema")}})
    if "allOf" in schema:
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            part = DEFS[part["$ref"].rsplit("/", 1)[1]] if "$ref" in part else part
            merged["properties"] = {**part.get("properties", {}), **merged.get("properties", {})}
            merged["required"] = sorted(set(part.get("required", [])) | set(merged.get("required", [])))
        return from_schema(merged)
    if "anyOf" in schema or "oneOf" in schema:
        return st.one_of([from_schema(s) for s in schema.get("anyOf", schema.get("oneOf"))])
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kinds = schema.get("type")
    if isinstance(kinds, list):
        return st.one_of([from_schema({**schema, "type": k}) for k in kinds])
    if kinds == "null":
        return st.none()
    if kinds == "boolean":
        return st.booleans()
    if kinds == "integer":  # the bounds themselves, often: where two statements of a protocol part
        low, high = schema.get("minimum"), schema.get("maximum")
        edges = [b for b in (low, high) if b is not None]
        return (st.sampled_from(edges) | st.integers(low, high)) if edges else st.integers()
    if kinds == "number":
        return st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    if kinds == "string" and "pattern" in schema:  # the pattern's strings, within the lengths
        low, high = schema.get("minLength", 0), schema.get("maxLength", 10**6)
        return st.from_regex(schema["pattern"], fullmatch=True).filter(lambda x: low <= len(x) <= high)
    if kinds == "string":
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        edges = st.just("x" * high) if high is not None else st.nothing()
        return edges | st.text(min_size=low, max_size=high)
    if kinds == "array":
        items = from_schema(schema["items"]) if "items" in schema else st.integers() | st.text() | st.none()
        return st.lists(items, min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 8), 8))
    assert kinds == "object", schema
    props, required = schema.get("properties", {}), set(schema.get("required", ()))
    fixed = st.fixed_dictionaries({k: from_schema(v) for k, v in props.items() if k in required},
                                  optional={k: from_schema(v) for k, v in props.items() if k not in required})
    if schema.get("additionalProperties", True) is False:
        return fixed
    extra = st.dictionaries(st.text(min_size=1).filter(lambda k: k not in props), st.integers() | st.text(),
                            max_size=2)
    return st.builds(lambda known, more: {**more, **known}, fixed, extra)


def check(name, instance):
    errors = [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in VALIDATORS[name].iter_errors(instance)]
    assert not errors, f"{name} {instance}: {errors}"


def test_the_schema_names_what_the_code_names():
    assert EVENT_TYPES == list(sync_body.TYPES)
    from bidwire_host.collector import commands
    assert COMMAND_TYPES == list(commands.TYPES)
    assert all(DEFS[t]["properties"]["type"]["const"] == t for t in EVENT_TYPES + COMMAND_TYPES)
    jsonschema_rs.meta.validate(SCHEMA)


# ---- the firmware's encoder ------------------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.t = 1000

    def time(self):
        self.t += 1
        return self.t


class Unit:
    """A unit's store and app on CPython, synced by hand: every body its sync client builds is kept, then acked."""

    def __init__(self, path):
        self.store = Store(Journal(str(path)), App("T01", "record", "1234"), Clock())
        self.store.open({"firmware": "bidwire-unit 0.5", "board": "unix_sim", "battery": 87, "rssi": None})
        self.sync = Sync(self.store, {"unit": "T01", "collector": "http://127.0.0.1:8080/", "secret": "5a" * 32,
                                      "heartbeat_ms": 5000}, None)
        self.bodies, self.cmd_seq = [], 0

    def keys(self, *lines):
        for line in lines:
            seat, key = line.split()
            self.store.key("NESW".index(seat), parse_key(key))

    def command(self, **cmd):
        self.cmd_seq += 1
        assert self.store.command({"seq": self.cmd_seq, **cmd})

    def flush(self):
        """Sync until the outbox is empty, as the sync client would (one body per batch)."""
        while self.store.backlog():
            raw, n = self.sync.body()
            self.sync.posts += 1
            body = json.loads(raw)
            self.bodies.append(body)
            self.store.ack(body["events"][-1]["seq"])

    def events(self):
        return [e for b in self.bodies for e in b["events"]]


def td_menu(unit, seat):
    """The director called at `seat` and his menu open: the menu."""
    unit.keys(f"{seat} TD", f"{seat} TD", *(f"{seat} {d}" for d in "1234"))
    return director.menu(unit.store.app)


@pytest.fixture(scope="module")
def firmware_session(tmp_path_factory):
    sys.path.insert(0, str(ROOT / "tests" / "e2e"))
    try:
        import session
    finally:
        sys.path.remove(str(ROOT / "tests" / "e2e"))
    unit = Unit(tmp_path_factory.mktemp("journal"))
    unit.command(type="time", now=1_790_000_000)
    unit.command(type="config", mode="record")
    unit.command(type="message", text="welcome")
    lines, _ = session.session(32)  # every irregular board of the e2e session, rulings by the director's menu
    for i in range(0, len(lines), 16):
        unit.keys(*lines[i:i + 16])
        unit.flush()
    # board 33 has started: an assign takes over at once (board_start with section, table, round, pairs)
    unit.command(type="assign", section="A", table=3, round=2, boards=[5, 6], ns=3, ew="12", move="NS stay",
                 confirm=True, names=["Smith/Jones", "Brown/Lee"])
    unit.command(type="assign", boards=[])  # refused by the firmware with a note (the collector never sends it)
    # who is at the table: NS confirms; EW says it is pair 5, not 12 (X, then 5 on the level keys, then PASS)
    unit.keys("N PASS", "E X", "E 5", "E PASS")
    # board 5, dealer N: N 1H, E 1C insufficient; S calls over it: accepted (Law 27 A), a settled
    unit.keys("N 1", "N H", "E 1", "E C", "S PASS", "N ALERT")
    # E 2S out of rotation (W is in turn): pending; the collector's ruling is refused for another board, then taken
    unit.keys("E 2", "E S")
    unit.flush()
    irr = [e for e in unit.events() if e["type"] == "irregularity"][-1]
    unit.command(type="ruling", board=9, ruling="reject", seat="E", at=irr["at"])
    unit.command(type="ruling", board=5, ruling=irr["options"][0], seat="E", at=irr["at"])
    unit.command(type="adjust", board=5, text="A+ to NS on board 4")
    unit.command(type="traveller", board=5, rows=[[1, 2, "4SN", 420]])
    # the director called and gone again: his menu's last entry ends the call
    menu = td_menu(unit, "N")
    unit.keys(f"N {len(menu)}")
    unit.flush()
    return unit


def test_every_event_the_firmware_journals_is_what_the_schema_states(firmware_session):
    got = firmware_session.events()
    seen = set()
    for event in got:
        assert event["type"] in EVENT_TYPES, event
        check(event["type"], event)
        check("event", event)
        seen.add(event["type"])
    assert seen == set(EVENT_TYPES), f"not seen: {sorted(set(EVENT_TYPES) - seen)}"
    assert {e["by"] for e in got if e["type"] == "ruling_applied"} == {"table", "collector"}


def test_a_lead_under_declarers_law_26_choice_is_what_the_schema_states(tmp_path):
    unit = Unit(tmp_path)
    # board 1, dealer N: S's 1H out of rotation rejected by the director (N passes throughout, Law 26 A on hearts);
    # 1S by W, N to lead; declarer requires a heart; N presses a club twice: he has none (Law 59)
    unit.keys("N PASS", "S 1", "S H")
    assert td_menu(unit, "W")[0] == 1  # codes.RULE_REJECT, the first entry
    unit.keys("W 1", "N PASS", "E PASS", "S PASS", "W 1", "W S",
              "N PASS", "E PASS", "S PASS")
    unit.command(type="lead_choice", board=1, seat="N", choice="require", suit="H")
    unit.keys("N C", "N C")
    unit.flush()
    [lead] = [e for e in unit.events() if e["type"] == "lead"]
    assert (lead["suit"], lead["l26"], lead["law59"]) == ("C", "require H", True)
    check("lead", lead)
    _takes(lead)


def test_every_body_the_sync_client_builds_is_a_sync_body_the_collector_takes(firmware_session):
    assert firmware_session.bodies
    for body in firmware_session.bodies:
        check("sync_body", body)
        sync_body.check_body(body)  # and the collector's parser agrees


# ---- the collector's parser --------------------------------------------------------------------------------------

def _takes(event):
    """The collector's parser on a body carrying the one event (the body's unit the event's, when it names one)."""
    body = {"unit": event.get("unit", "T01"), "boot": 1, "beat": 1, "cmd_ack": 0, "events": [event]}
    sync_body.check_body(body)


@pytest.mark.parametrize("name", EVENT_TYPES)
def test_the_collector_takes_every_event_the_schema_allows(name):
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(from_schema(schema_of(name)))
    def takes(event):
        check(name, event)  # the generator's own check
        _takes(event)

    takes()


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(from_schema(schema_of("sync_body")))
def test_the_collector_takes_every_sync_body_the_schema_allows_but_for_seq_order_and_unit(body):
    last = 0
    for event in body["events"]:  # what JSON Schema cannot say: strictly increasing seqs, one unit
        event["seq"] = last = max(event["seq"], last + 1)
        event["unit"] = body["unit"]
    if last > sync_body.SEQ_MAX:
        return
    check("sync_body", body)
    sync_body.check_body(body)


# ---- the collector's commands --------------------------------------------------------------------------------------

@pytest.fixture
def client(data):
    event = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3})) as c:
        yield c


def test_every_command_the_collector_builds_is_what_the_schema_states(client):
    # assign: queued by the event's round 1; traveller: after a result on the event's boards
    [a] = sync(client, [], unit="T01").json()["commands"]
    r = sync(client, played(1, a["boards"][0], section=a["section"], table=a["table"], round=a["round"],
                            ns=a["ns"], ew=a["ew"], event=a["event"]), unit="T01")
    assert r.status_code == 200, r.text
    # ruling: the director's answer to an open irregularity (E's 1S out of rotation, input 0 of the board)
    irregular = [{"seq": 5, "type": "board_start", "board": 2, "dealer": "E", "vul": "NS", "t": 1},
                 {"seq": 6, "type": "irregularity", "board": 2, "kind": "out_of_rotation", "law": 31, "at": 0,
                  "offender": "N", "call": "1S", "entitled": "E", "options": ["reject"], "t": 1}]
    assert sync(client, irregular, unit="T01").status_code == 200
    assert client.post("/api/v1/rulings", json={"unit": "T01", "seq": 6, "ruling": "reject"}).status_code == 201
    # lead_choice: declarer's Law 26 choice, recorded by the director on a lead restriction (board 1, dealer N: S's
    # 1H out of rotation rejected, N passes throughout; 1S by W, N to lead: 26 A on hearts)
    law26 = [board_start(7, 1), auction_end(8, 1, ["S:1H", "!reject", "N:P", "E:P", "S:P", "W:1S", "N:P", "E:P",
                                                   "S:P"])]
    assert sync(client, law26, unit="T01").status_code == 200
    lead = client.post("/api/v1/leads", json={"alert": "alert:T01:8:lead_restriction", "choice": "bar",
                                               "suit": "H"})
    assert lead.status_code == 201, lead.text
    for command in ({"type": "message", "text": "last round"}, {"type": "adjust", "board": 2, "text": "A+ NS"},
                    {"type": "adjust", "text": "A= both"}, {"type": "config", "mode": "enforce"}, {"type": "time"},
                    {"type": "time", "now": 0}):
        assert client.post("/api/v1/units/T01/commands", json=command).status_code == 201
    reply = sync(client, [], unit="T01", cmd_ack=0).json()
    check("sync_reply", reply)
    for command in reply["commands"]:
        check(command["type"], command)
    assert {c["type"] for c in reply["commands"]} == set(COMMAND_TYPES)


# ---- the schema catches what it should ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, bad", [
    ("call", {"seq": 0, "type": "call", "board": 1, "input": "N:1H", "seat": "N", "verdict": "legal"}),
    ("call", {"seq": 2**32, "type": "call", "board": 1, "input": "N:1H", "seat": "N", "verdict": "legal"}),
    ("call", {"seq": True, "type": "call", "board": 1, "input": "N:1H", "seat": "N", "verdict": "legal"}),
    ("call", {"seq": 1, "type": "call", "board": 1, "input": "N:1H", "seat": "N", "verdict": "legal", "tempo": -1}),
    ("call", {"seq": 1, "type": "call", "board": 1, "input": "N:1H", "seat": "N", "verdict": "legal",
              "tempo": 36001}),
    ("call", {"seq": 1, "type": "call", "board": 1, "input": "N:1H", "seat": "N", "verdict": "legal", "tempo": 1.5}),
    ("lead", {"seq": 1, "type": "lead", "board": 1, "seat": "X", "suit": "C"}),
    ("settled", {"seq": 1, "type": "settled", "board": 1, "at": -1, "how": "accepted", "law": 27, "seat": "S"}),
    ("result", {"seq": 1, "type": "result", "board": 0, "contract": None, "declarer": None, "tricks": None,
                "score_ns": None}),
    ("hello", {"seq": 1, "type": "hello", "boot": 1}),
])
def test_an_event_the_schema_refuses_is_one_the_collector_refuses(name, bad):
    assert not VALIDATORS[name].is_valid(bad)
    assert not VALIDATORS["event"].is_valid(bad)
    with pytest.raises(sync_body.Malformed):
        _takes(bad)


@pytest.mark.parametrize("tempo", ["left out", None, 0, 123, 36000])
def test_a_call_with_its_tempo_or_without_one_from_an_older_unit_is_taken(tempo):
    call = {"seq": 1, "type": "call", "board": 1, "input": "N:1H", "seat": "N", "verdict": "legal"}
    if tempo != "left out":
        call["tempo"] = tempo
    check("call", call)
    _takes(call)


def test_a_command_beyond_its_bounds_is_refused_by_the_schema_and_the_collector():
    from bidwire_host.collector import commands
    for bad in ({"type": "message", "text": "x" * 49}, {"type": "assign", "section": "A", "table": 1, "round": 1,
                                                         "boards": [], "move": ""},
                {"type": "config", "mode": "strict"}, {"type": "message", "text": "hi", "extra": 1}):
        assert not VALIDATORS[bad["type"]].is_valid({"seq": 1, **bad})
        with pytest.raises(commands.CommandError):
            commands.check(bad)
