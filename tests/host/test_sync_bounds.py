"""Every field of a unit's event is bounded before anything stores or renders it (issue 24, "one parsing
boundary"; item 1: calls of 200 KB each blew the director's page up to 366 MB). An input is one of the core's
tokens, a text short and free of control characters, an integer within 64 bits, a number finite; a value out of
bounds is a 400 naming the event and the field. (The attack itself, against a real `bidwire serve`:
tests/e2e/test_security_server.py.)"""
import json
import random
import re

import pytest

from bidwire.core import auction, readback, record
from bidwire.core.calls import MAX_CODE
from bidwire.core.codes import RULE_NAMES
from bidwire_host.collector import sync_body

SCHEMA = json.loads(open("docs/protocol/sync-v1.schema.json").read())


def _written():
    """Every text token the core writes (bidwire.core.record.token), for every input kind, seat and value."""
    out = set()
    for kind in range(8):
        for seat in range(4):
            for value in range(max(MAX_CODE + 1, len(RULE_NAMES))):
                try:
                    out.add(record.token(kind << 2 | seat, value))
                except (IndexError, ValueError):
                    pass
    out.discard("!")  # RULE_NAMES[0] is no ruling
    return frozenset(out)


TOKENS = _written()


def body(*evs):
    return {"unit": "T01", "boot": 1, "cmd_ack": 0, "events": list(evs)}


def call(**over):
    return {"seq": 1, "type": "call", "board": 1, "input": "N:1H", "seat": "N", "verdict": "legal", **over}


def refused(event, field):
    with pytest.raises(sync_body.Malformed) as e:
        sync_body.check_body(body(event))
    assert f"events[0] ({event['type']}).{field}" in str(e.value), str(e.value)
    return str(e.value)


def test_the_schemas_token_pattern_is_the_set_of_tokens_the_core_writes_and_the_collector_reads_them():
    """Two statements of one grammar: the schema's pattern (written by hand) and the tokens bidwire.core.record
    writes. Each token matches; each string of the pattern's shape is a token; the collector takes each."""
    pattern = re.compile(SCHEMA["$defs"]["token"]["pattern"])
    assert all(pattern.fullmatch(t) for t in TOKENS)
    names = ["P", "X", "XX"] + [f"{lv}{st}" for lv in range(1, 10) for st in ("C", "D", "H", "S", "NT")]
    shapes = [s + h + c for s in "NESW" for h in ":~" for c in names]
    shapes += [s + "@" for s in "NESW"] + ["*lead", "!reject", "!reject_natural", "!25a", "!25b_accept", "!25b_stand",
                                          "!25b_other"] + [f"!pass_next_turn:{s}" for s in "NESW"]
    assert sorted(shapes) == sorted(TOKENS)
    for t in sorted(TOKENS) + ["N:1N", "E:pass", "S:DBL"]:  # and the other spellings the core's readback reads
        sync_body.check_body(body(call(input=t)))


@pytest.mark.parametrize("token", ["N:" + "1H" * 100_000, "N:1H\x00", "X:1H", "N:10H", "N:1 H" + " " * 30, "!",
                                   "!nothing", "!pass_next_turn:Q", "", "N", "*LEAD", "N-1H"])
def test_a_call_is_a_token_the_core_reads(token):
    refused(call(input=token), "input")


def test_an_auction_ends_inputs_are_short_texts_and_a_bounded_list():
    """One the core cannot read, or more than a board's input log, is the validator's (an alert, the event kept:
    test_collector_validator.py); what no unit could send in any case is refused here."""
    end = {"seq": 1, "type": "auction_end", "board": 1, "contract": "1H", "declarer": "N"}
    sync_body.check_body(body({**end, "inputs": ["N:1H", "E:P", "S:P", "W:P"]}))
    sync_body.check_body(body({**end, "inputs": ["N:1S", "E:9Z"] + ["S@"] * auction.MAX_INPUTS}))
    refused({**end, "inputs": ["N:1H", "E:" + "P" * 1000]}, "inputs[1]")
    refused({**end, "inputs": ["N:1H", "E:P\n"]}, "inputs[1]")
    refused({**end, "inputs": ["N:P"] * (sync_body.MAX_LISTED + 1)}, "inputs")


@pytest.mark.parametrize("event,field", [
    (call(verdict="x" * 65), "verdict"),
    (call(verdict="legal\x00"), "verdict"),
    (call(law=10**4000), "law"),
    (call(law=2**63), "law"),
    (call(t=-(2**63)), "t"),
    (call(unit="T\n01"), "unit"),
    ({"seq": 1, "type": "hello", "boot": 1, "backlog": 0, "battery": float("inf")}, "battery"),
    ({"seq": 1, "type": "hello", "boot": 1, "backlog": 2**64}, "backlog"),
    ({"seq": 1, "type": "hello", "boot": 1, "backlog": 0, "firmware": "bidwire-unit " + "9" * 100}, "firmware"),
    ({"seq": 1, "type": "irregularity", "board": 1, "kind": "out_of_rotation", "law": 31, "offender": "E",
      "options": ["reject"] * 17}, "options"),
    ({"seq": 1, "type": "irregularity", "board": 1, "kind": "out_of_rotation", "law": 31, "offender": "E",
      "at": auction.MAX_INPUTS + 1}, "at"),
    ({"seq": 1, "type": "result", "board": 1, "contract": "4H", "declarer": "S", "tricks": 10,
      "score_ns": 10**30}, "score_ns"),
    ({"seq": 1, "type": "board_start", "board": 2**63, "dealer": "N", "vul": "None"}, "board"),
    ({"seq": 1, "type": "board_start", "board": 1, "dealer": "N", "vul": "None", "section": "A" * 65}, "section"),
    ({"seq": 1, "type": "note", "text": "x" * 501}, "text"),
    ({"seq": 1, "type": "note", "text": "disputed\x1b[2J"}, "text"),
])
def test_each_field_out_of_its_bounds_is_refused_naming_it(event, field):
    refused(event, field)


def test_a_note_may_have_lines_and_a_newer_firmwares_fields_are_kept_within_bounds():
    sync_body.check_body(body({"seq": 1, "type": "note", "text": "line one\nline two\tend"}))
    sync_body.check_body(body(call(extra_field={"a": [1, 2, 3]})))
    with pytest.raises(sync_body.Malformed, match=r"events\[0\] \(call\).*beyond the protocol"):
        sync_body.check_body(body(call(padding="x" * (sync_body.MAX_EXTRA + 1))))


def test_a_units_auction_summary_is_well_within_the_bound_on_extra_fields():
    """auction_end carries the core's summary beside its model's fields (record.summary: the calls, restrictions,
    log). Random presses from every token, to the end of the auction or the full input log: its JSON stays far
    below MAX_EXTRA, so no real unit's auction_end is refused by it."""
    tokens, largest = sorted(TOKENS), 0
    for seed in range(300):
        r = random.Random(seed)
        a = auction.Auction(r.randrange(4), 1, 0)
        while a.n_inputs < auction.MAX_INPUTS and a.phase == 0:
            try:
                readback.apply(a, r.choice(tokens))
            except readback.CallError:
                pass
            if r.random() < 0.02:
                break
        summary = {k: v for k, v in record.summary(a).items() if k not in ("contract", "declarer")}
        largest = max(largest, len(json.dumps(summary)))
        end = {"seq": 1, "type": "auction_end", "board": 1, "inputs": record.tokens(a), "contract": None,
               "declarer": None, **summary}
        sync_body.check_body(body(end))
    assert largest < sync_body.MAX_EXTRA // 8, largest
