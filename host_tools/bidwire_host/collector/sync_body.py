"""The sync body and the events a unit sends (docs/architecture.md §4), as pydantic models.

Only what the host relies on is required; fields a newer firmware adds are kept (extra="allow"), at most
MAX_EXTRA characters of them an event. Tricks are any integer here: an impossible count is the validator's
business (an alert), not a malformed body. Every field is bounded (issue 24, "one parsing boundary"): a call's
input is a token the core reads (readback.parse_token), a text at most MAX_NAME characters (a note MAX_NOTE)
with no control character, an integer within 64 bits, a number finite; whatever a unit sends, what is stored
and shown of it is that small.
docs/protocol/sync-v1.schema.json states the same protocol as a JSON Schema (what this parser takes, and where the
firmware sends less); tests/host/test_protocol_schema.py holds the two together.
"""
import json
import re
from typing import Annotated, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from bidwire.core import readback
from bidwire.core.auction import MAX_INPUTS

SEQ_MAX = 2**32 - 1  # the unit's journal holds a seq in 32 bits (firmware/bidwire/unit/store.py)
INT64 = 2**63 - 1
MAX_NAME = 64  # a verdict, kind, ruling, contract, firmware or board name, a section, a unit's reason
MAX_NOTE = 500  # a note's text
MAX_TOKEN = 24  # an input token: "!pass_next_turn:E" is the longest the core writes, parse_call reads "N:1 NT" too
# The JSON of the fields an event has beyond its model's: an auction_end's summary (under 2 KB in 3,000 random
# sessions of presses; tests/host/test_sync_bounds.py holds it far below this), a newer firmware's fields
MAX_EXTRA = 65536
Int = Annotated[StrictInt, Field(ge=-INT64, le=INT64)]
Seq = Annotated[StrictInt, Field(ge=1, le=SEQ_MAX)]
Count = Annotated[StrictInt, Field(ge=0, le=INT64)]
BoardNo = Annotated[StrictInt, Field(ge=1, le=INT64)]
AnyBoard = Annotated[StrictInt, Field(ge=0, le=INT64)]  # 0: before the first board
Seat = Literal["N", "E", "S", "W"]
Number = Int | Annotated[StrictFloat, Field(allow_inf_nan=False)] | None
NO_CONTROL = r"^[^\x00-\x1f\x7f]*$"  # a text without a control character (C0 or DEL)
Name = Annotated[StrictStr, StringConstraints(max_length=MAX_NAME, pattern=NO_CONTROL)]
NoteText = Annotated[StrictStr, StringConstraints(max_length=MAX_NOTE, pattern=r"^[^\x00-\x08\x0b-\x1f\x7f]*$")]


def _token(text):
    try:
        readback.parse_token(text)
    except readback.CallError as e:
        raise ValueError(f"{e} (an input is what the core reads: N:1H, N~1S, N@, *lead or a ruling such as "
                         "!reject)") from None
    return text


Token = Annotated[StrictStr, StringConstraints(max_length=MAX_TOKEN), AfterValidator(_token)]
# An auction_end's inputs are texts as short as a token: one the core cannot read is the validator's business
# (an auction_unreadable alert, the event kept as sent), and so is a list longer than a board's input log
# (auction_too_long): up to MAX_LISTED of them.
TokenText = Annotated[StrictStr, StringConstraints(max_length=MAX_TOKEN, pattern=NO_CONTROL)]
MAX_LISTED = 4 * MAX_INPUTS
# An irregularity's identity on its board: the index of the irregular input in the board's input log, the same
# index as in its auction_end's `inputs` (firmware: Auction.p_at; docs/unit.md "Irregularities").
At = Annotated[StrictInt, Field(ge=0, le=MAX_INPUTS)]
TEMPO_MAX = 36000  # a call's tempo, in tenths of a second, is at most an hour (firmware/bidwire/unit/app.py)


class _Event(BaseModel):
    model_config = ConfigDict(extra="allow")
    seq: Seq
    t: Int | None = None
    unit: Name | None = None

    @model_validator(mode="after")
    def _extra_bounded(self):
        extra = self.model_extra
        if extra and len(json.dumps(extra)) > MAX_EXTRA:
            raise ValueError(f"fields beyond the protocol's ({', '.join(sorted(extra))[:100]}) are over "
                             f"{MAX_EXTRA} characters")
        return self


class Hello(_Event):
    """The unit has booted: its firmware, hardware board, battery, RSSI and unsent backlog."""
    type: Literal["hello"]
    boot: Count
    backlog: Count
    firmware: Name | None = None
    board: Name | None = None  # the hardware board's name, e.g. esp32_devkitc
    battery: Number = None
    rssi: Number = None


class BoardStart(_Event):
    type: Literal["board_start"]
    board: BoardNo
    dealer: Seat
    vul: Literal["None", "NS", "EW", "Both"]
    mode: Literal["record", "enforce"] = "record"
    section: Name | None = None
    table: Int | None = None
    round: Int | None = None
    ns: Int | Name | None = None
    ew: Int | Name | None = None
    # the event of the assign in force (its `event`: commands.store_event), None without one
    event: Annotated[StrictStr, StringConstraints(pattern=r"^[0-9a-f]{16}$")] | None = None


class Call(_Event):
    """One press at the table as the auction engine took it (the live feed)."""
    type: Literal["call"]
    board: BoardNo
    input: Token
    seat: Seat
    verdict: Name
    law: Int = 0
    alert: StrictBool = False
    # tenths of a second from the board's previous call (or its start); None: not known, or firmware before 0.5
    tempo: Annotated[Int, Field(ge=0, le=TEMPO_MAX)] | None = None


class Irregularity(_Event):
    """An irregular press. Pending until a `settled` or a `ruling_applied` with the same `at` follows, unless the law
    settled it at once (`settled: "law"`, e.g. Law 39). `at` is None only from firmware before protocol 1.1."""
    type: Literal["irregularity"]
    board: BoardNo
    kind: Name
    law: Int
    offender: Seat
    call: Name | None = None
    entitled: Seat | None = None
    options: Annotated[list[Name], Field(max_length=16)] = []
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
    law: Int
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
    ruling: Name
    seat: Seat
    by: Name
    verdict: Name
    law: Int = 0
    at: At | None = None


class RulingRefused(_Event):
    """A collector `ruling` the unit did not apply, and changed nothing for: `reason` is unknown_ruling, other_board,
    no_at, not_pending (settled already), other_pending (another irregularity is pending), not_allowed (not a
    ruling for that irregularity) or auction_over (pass_next_turn after the auction)."""
    type: Literal["ruling_refused"]
    board: AnyBoard
    at: At | None = None
    ruling: Name
    reason: Name


class AuctionEnd(_Event):
    """The auction is over: its input tokens (replayed by the validator) and the unit's contract and declarer."""
    type: Literal["auction_end"]
    board: BoardNo
    inputs: Annotated[list[TokenText], Field(max_length=MAX_LISTED)]
    contract: Name | None
    declarer: Seat | None


class Lead(_Event):
    type: Literal["lead"]
    board: BoardNo
    seat: Seat
    suit: Literal["C", "D", "H", "S"]


class Result(_Event):
    type: Literal["result"]
    board: BoardNo
    contract: Name | None
    declarer: Seat | None
    tricks: Int | None
    score_ns: Int | None
    entered_by: Seat | None = None
    confirmed_by: Seat | None = None


class Seated(_Event):
    """A side's answer at a round's start (an assign with `confirm`): `confirmed` it is the pair the movement seats
    there (`expected`), or not, with the number of the pair that `pair` says sat down (unit/app.py _seat)."""
    type: Literal["seated"]
    board: AnyBoard
    side: Literal["NS", "EW"]
    seat: Seat
    pair: Name | Int | None
    expected: Name | Int | None = None
    confirmed: StrictBool
    round: Int | None = None
    member: Name | None = None  # the membership number a player typed, when the assign asked for one


class Note(_Event):
    type: Literal["note"]
    board: AnyBoard = 0
    text: NoteText


EVENTS = (Hello, BoardStart, Call, Irregularity, Settled, TdCall, TdEnd, RulingApplied, RulingRefused, AuctionEnd, Lead,
          Result, Seated, Note)
TYPES = tuple(m.model_fields["type"].annotation.__args__[0] for m in EVENTS)
Event = Annotated[Union[EVENTS], Field(discriminator="type")]  # type: ignore[valid-type]
_event = TypeAdapter(Event)


class SyncBody(BaseModel):
    """POST /api/v1/sync: the unit, its boot count, unacknowledged events in seq order, the last command applied.

    Signed: header X-Bidwire-Signature is the hex HMAC-SHA256 of the raw body with the unit's secret."""
    model_config = ConfigDict(extra="forbid")
    unit: Annotated[StrictStr, Field(min_length=1, max_length=32, pattern=NO_CONTROL)]
    boot: Count
    beat: Count | None = None  # this boot's sync count (firmware 0.4 on): a replayed body repeats an old one
    cmd_ack: Count
    # the event whose collector sent the commands cmd_ack counts ("" none yet; left out by firmware before it)
    event: Annotated[StrictStr, StringConstraints(pattern=r"^([0-9a-f]{16})?$")] | None = None
    events: list[Event]  # type: ignore[valid-type]


class SyncReply(BaseModel):
    ack: Annotated[StrictInt, Field(description="the highest seq of this unit now stored (0: none)")]
    commands: list[dict] = Field(description="commands with seq above the cmd_ack reported, in seq order")


class ErrorReply(BaseModel):
    """A refusal, in the one shape (web/errors.py)."""

    error: StrictStr
    field: StrictStr | None = None


class Malformed(ValueError):
    """The body is not a sync body: the message says where and what."""


def _where(loc):
    return "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in loc).lstrip(".")


def beat_of(body):
    """The body's sync count of its boot (None from firmware before 0.4, which sends none)."""
    return body.get("beat") if isinstance(body, dict) else None


def event_of(body):
    """The event whose commands the body's cmd_ack counts ("" none yet; None from firmware that sends none)."""
    return body.get("event") if isinstance(body, dict) else None


def check_body(body):
    """(unit, boot, cmd_ack, events) from a parsed JSON body, events as the dicts received; Malformed if not."""
    if not isinstance(body, dict):
        raise Malformed("the body must be a JSON object {unit, boot, cmd_ack, events}")
    for field in ("unit", "boot", "cmd_ack", "events"):
        if field not in body:
            raise Malformed(f"missing field '{field}'")
    extra = sorted(set(body) - {"unit", "boot", "beat", "cmd_ack", "event", "events"})
    if extra:
        raise Malformed(f"unknown field '{extra[0]}'")
    unit, boot, cmd_ack, events = body["unit"], body["boot"], body["cmd_ack"], body["events"]
    if not isinstance(unit, str) or not 0 < len(unit) <= 32 or not re.fullmatch(NO_CONTROL, unit):
        raise Malformed("'unit' must be the unit id, 1-32 characters, no control character")
    for name, value in (("boot", boot), ("cmd_ack", cmd_ack), ("beat", body.get("beat", 0))):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise Malformed(f"'{name}' must be an integer >= 0")
    if not isinstance(body.get("event", ""), str) or not re.fullmatch(r"([0-9a-f]{16})?", body.get("event", "")):
        raise Malformed("'event' must be the event id the unit's commands came with (16 hex digits), or empty")
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
