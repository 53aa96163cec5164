"""The sync body and the events a unit sends (docs/architecture.md §4), as pydantic models.

Only what the host relies on is required; fields a newer firmware adds are kept (extra="allow"). Tricks are
any integer here: an impossible count is the validator's business (an alert), not a malformed body.
docs/protocol/sync-v1.schema.json states the same protocol as a JSON Schema (what this parser takes, and where the
firmware sends less); tests/host/test_protocol_schema.py holds the two together.
"""
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, TypeAdapter, ValidationError

SEQ_MAX = 2**32 - 1  # the unit's journal holds a seq in 32 bits (firmware/bidwire/unit/store.py)
Seq = Annotated[StrictInt, Field(ge=1, le=SEQ_MAX)]
Count = Annotated[StrictInt, Field(ge=0)]
BoardNo = Annotated[StrictInt, Field(ge=1)]
AnyBoard = Annotated[StrictInt, Field(ge=0)]  # 0: before the first board
Seat = Literal["N", "E", "S", "W"]
Number = StrictInt | float | None
# An irregularity's identity on its board: the index of the irregular input in the board's input log, the same
# index as in its auction_end's `inputs` (firmware: Auction.p_at; docs/unit.md "Irregularities").
At = Annotated[StrictInt, Field(ge=0)]
TEMPO_MAX = 36000  # a call's tempo, in tenths of a second, is at most an hour (firmware/bidwire/unit/app.py)


class _Event(BaseModel):
    model_config = ConfigDict(extra="allow")
    seq: Seq
    t: StrictInt | None = None
    unit: StrictStr | None = None


class Hello(_Event):
    """The unit has booted: its firmware, hardware board, battery, RSSI and unsent backlog."""
    type: Literal["hello"]
    boot: Count
    backlog: Count
    firmware: StrictStr | None = None
    board: StrictStr | None = None  # the hardware board's name, e.g. esp32_devkitc
    battery: Number = None
    rssi: Number = None


class BoardStart(_Event):
    type: Literal["board_start"]
    board: BoardNo
    dealer: Seat
    vul: Literal["None", "NS", "EW", "Both"]
    mode: Literal["record", "enforce"] = "record"
    section: StrictStr | None = None
    table: StrictInt | None = None
    round: StrictInt | None = None
    ns: StrictInt | StrictStr | None = None
    ew: StrictInt | StrictStr | None = None


class Call(_Event):
    """One press at the table as the auction engine took it (the live feed)."""
    type: Literal["call"]
    board: BoardNo
    input: StrictStr
    seat: Seat
    verdict: StrictStr
    law: StrictInt = 0
    alert: StrictBool = False
    # tenths of a second from the board's previous call (or its start); None: not known, or firmware before 0.5
    tempo: Annotated[StrictInt, Field(ge=0, le=TEMPO_MAX)] | None = None


class Irregularity(_Event):
    """An irregular press. Pending until a `settled` or a `ruling_applied` with the same `at` follows, unless the law
    settled it at once (`settled: "law"`, e.g. Law 39). `at` is None only from firmware before protocol 1.1."""
    type: Literal["irregularity"]
    board: BoardNo
    kind: StrictStr
    law: StrictInt
    offender: Seat
    call: StrictStr | None = None
    entitled: Seat | None = None
    options: list[StrictStr] = []
    at: At | None = None
    settled: Literal["law"] | None = None


class Settled(_Event):
    """A pending irregularity settled at the table without the director, by the call of `seat`: accepted (it
    stands: 27 A, 29 B, 35 B), condoned (the law cancelled it and the call over it: 35 A, 35 C) or cancelled (the
    in-turn player called over it: 28 B)."""
    type: Literal["settled"]
    board: BoardNo
    at: At
    how: Literal["accepted", "condoned", "cancelled"]
    law: StrictInt
    seat: Seat


class TdCall(_Event):
    type: Literal["td_call"]
    board: AnyBoard
    seat: Seat


class TdEnd(_Event):
    """The director ended the call at the table (END_CALL in the unit's menu)."""
    type: Literal["td_end"]
    board: AnyBoard
    seat: Seat


class RulingApplied(_Event):
    """A ruling the unit applied (`by`: table or collector); `at`: the irregularity it answered, None for one tied to
    no irregularity (pass_next_turn)."""
    type: Literal["ruling_applied"]
    board: BoardNo
    ruling: StrictStr
    seat: Seat
    by: StrictStr
    verdict: StrictStr
    law: StrictInt = 0
    at: At | None = None


class RulingRefused(_Event):
    """A collector `ruling` the unit did not apply, and changed nothing for: `reason` is unknown_ruling, other_board,
    no_at, not_pending (settled already), other_pending (another irregularity is pending), not_allowed (not a
    ruling for that irregularity) or auction_over (pass_next_turn after the auction)."""
    type: Literal["ruling_refused"]
    board: AnyBoard
    at: At | None = None
    ruling: StrictStr
    reason: StrictStr


class AuctionEnd(_Event):
    """The auction is over: its input tokens (replayed by the validator) and the unit's contract and declarer."""
    type: Literal["auction_end"]
    board: BoardNo
    inputs: list[StrictStr]
    contract: StrictStr | None
    declarer: Seat | None


class Lead(_Event):
    type: Literal["lead"]
    board: BoardNo
    seat: Seat
    suit: Literal["C", "D", "H", "S"]


class Result(_Event):
    type: Literal["result"]
    board: BoardNo
    contract: StrictStr | None
    declarer: Seat | None
    tricks: StrictInt | None
    score_ns: StrictInt | None
    entered_by: Seat | None = None
    confirmed_by: Seat | None = None


class Note(_Event):
    type: Literal["note"]
    board: AnyBoard = 0
    text: StrictStr


EVENTS = (Hello, BoardStart, Call, Irregularity, Settled, TdCall, TdEnd, RulingApplied, RulingRefused, AuctionEnd, Lead,
          Result, Note)
TYPES = tuple(m.model_fields["type"].annotation.__args__[0] for m in EVENTS)
Event = Annotated[Union[EVENTS], Field(discriminator="type")]  # type: ignore[valid-type]
_event = TypeAdapter(Event)


class SyncBody(BaseModel):
    """POST /api/v1/sync: the unit, its boot count, unacknowledged events in seq order, the last command applied.

    Signed: header X-Bidwire-Signature is the hex HMAC-SHA256 of the raw body with the unit's secret."""
    model_config = ConfigDict(extra="forbid")
    unit: Annotated[StrictStr, Field(min_length=1, max_length=32)]
    boot: Count
    beat: Count | None = None  # this boot's sync count (firmware 0.4 on): a replayed body repeats an old one
    cmd_ack: Count
    events: list[Event]  # type: ignore[valid-type]


class SyncReply(BaseModel):
    ack: Annotated[StrictInt, Field(description="the highest seq of this unit now stored (0: none)")]
    commands: list[dict] = Field(description="commands with seq above the cmd_ack reported, in seq order")


class ErrorReply(BaseModel):
    error: StrictStr


class Malformed(ValueError):
    """The body is not a sync body: the message says where and what."""


def _where(loc):
    return "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in loc).lstrip(".")


def beat_of(body):
    """The body's sync count of its boot (None from firmware before 0.4, which sends none)."""
    return body.get("beat") if isinstance(body, dict) else None


def check_body(body):
    """(unit, boot, cmd_ack, events) from a parsed JSON body, events as the dicts received; Malformed if not."""
    if not isinstance(body, dict):
        raise Malformed("the body must be a JSON object {unit, boot, cmd_ack, events}")
    for field in ("unit", "boot", "cmd_ack", "events"):
        if field not in body:
            raise Malformed(f"missing field '{field}'")
    extra = sorted(set(body) - {"unit", "boot", "beat", "cmd_ack", "events"})
    if extra:
        raise Malformed(f"unknown field '{extra[0]}'")
    unit, boot, cmd_ack, events = body["unit"], body["boot"], body["cmd_ack"], body["events"]
    if not isinstance(unit, str) or not 0 < len(unit) <= 32:
        raise Malformed("'unit' must be the unit id, 1-32 characters")
    for name, value in (("boot", boot), ("cmd_ack", cmd_ack), ("beat", body.get("beat", 0))):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise Malformed(f"'{name}' must be an integer >= 0")
    if not isinstance(events, list):
        raise Malformed("'events' must be a list")
    last = 0
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            raise Malformed(f"events[{i}] must be an object")
        kind = event.get("type")
        if kind not in TYPES:
            raise Malformed(f"events[{i}]: unknown event type {kind!r} (known: {', '.join(TYPES)})")
        try:
            _event.validate_python(event)
        except ValidationError as e:
            err = e.errors()[0]
            raise Malformed(f"events[{i}] ({kind}).{_where(err['loc'][1:])}: {err['msg']}") from None
        if event.get("unit", unit) != unit:
            raise Malformed(f"events[{i}] is from unit {event['unit']!r}, the body from {unit!r}")
        if event["seq"] > SEQ_MAX:  # validated above; said plainly: the unit's journal could not hold it
            raise Malformed(f"events[{i}]: seq {event['seq']} is beyond 2^32-1, what a unit's journal holds")
        if event["seq"] <= last:
            raise Malformed(f"events[{i}]: seq {event['seq']} does not increase (previous {last})")
        last = event["seq"]
    return unit, boot, cmd_ack, events
