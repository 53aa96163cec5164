"""The per-unit command queue (host -> unit, docs/architecture.md §4): numbered per unit from 1, kept for good, and
delivered in every sync reply while their seq is above the cmd_ack the unit reports.

The unit applies them in seq order (firmware/bidwire/unit/app.py `App.command`): assign {section, table, round,
boards, ns, ew, move}, ruling {board, ruling, seat}, lead_choice {board, seat, choice, suit}, adjust {board, text},
traveller {board, rows}, message {text}, config {mode}, time {now}.
Each command as a sync reply carries it (with its seq) is a $def of docs/protocol/sync-v1.schema.json, which
tests/host/test_protocol_schema.py checks the commands built here against.
"""
import json
import time
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, TypeAdapter, ValidationError

from bidwire.core.codes import RULE_NAMES
from bidwire_host import utc
from bidwire_host.collector import ruling_words
from bidwire_host.collector.decisions.journal import alert_key, fold, insert

REPLY_BYTES = 12 * 1024  # the unit reads a sync reply of 16 KB at most (firmware/bidwire/unit/http.py)
REPLY_COMMANDS = 16

# A unit repeats these numbers in its events, which the collector stores as SQLite integers (64 bits): a larger
# one would have the unit's later syncs refused.
INT64 = 2**63 - 1
Pair = Union[Annotated[StrictInt, Field(ge=1, le=INT64)], Annotated[StrictStr, Field(min_length=1, max_length=8)]]
BoardNo = Annotated[StrictInt, Field(ge=1, le=INT64)]
Seat = Literal["N", "E", "S", "W"]


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Assign(_Command):
    """What a table plays this round: the unit starts the first board at once (or after the board in play). `late`:
    a board played late (the director's `late` decision), by the pairs of the round it belongs to; a unit keeps it
    until the boards of the round in play are done, then plays it before any next round."""
    type: Literal["assign"]
    section: Annotated[StrictStr, Field(min_length=1, max_length=8)]
    table: Annotated[StrictInt, Field(ge=1, le=INT64)]
    round: Annotated[StrictInt, Field(ge=1, le=INT64)]
    boards: Annotated[list[BoardNo], Field(min_length=1, max_length=36)]
    ns: Pair | None = None
    ew: Pair | None = None
    move: Annotated[StrictStr, Field(max_length=96)] = ""
    late: StrictBool | None = None  # sent only when true
    # the round's start asks each side to confirm it is the pair shown (the event's evening.confirm_pairs), with the
    # pairs' names, NS then EW, as the unit shows them
    confirm: StrictBool | None = None
    names: Annotated[list[Annotated[StrictStr, Field(max_length=40)]], Field(min_length=2, max_length=2)] | None = None
    # with the event's evening.member_numbers: each side's players' membership numbers, in the order of `names`
    ids: Annotated[list[Annotated[list[Annotated[StrictStr, Field(max_length=12)]], Field(max_length=4)]],
                   Field(min_length=2, max_length=2)] | None = None


class Ruling(_Command):
    """A director's ruling on the pending irregularity `at` (its position in the board's input log) of the board
    in play; the unit applies it only while that irregularity is still pending."""
    type: Literal["ruling"]
    board: BoardNo
    ruling: Literal[RULE_NAMES[1:]]  # type: ignore[valid-type]
    seat: Seat = "N"
    at: Annotated[StrictInt, Field(ge=0, le=10_000)] | None = None


class LeadChoice(_Command):
    """Declarer's Law 26 choice for the opening lead of `board` by `seat` (the restricted player, declarer's LHO),
    recorded by the director (decisions/leads.py): bar or require the lead of `suit`, or waive. The unit shows it on
    the leader's prompt and holds his lead to it while the lead is still to be made."""
    type: Literal["lead_choice"]
    board: BoardNo
    seat: Seat
    choice: Literal["bar", "require", "waive"]
    suit: Literal["C", "D", "H", "S"] | None = None


class Adjust(_Command):
    """An adjusted score announced at the table (shown as a message; scoring keeps the score itself)."""
    type: Literal["adjust"]
    board: BoardNo | None = None
    text: Annotated[StrictStr, Field(max_length=48)]


class Traveller(_Command):
    """The other results on a board, shown after the score."""
    type: Literal["traveller"]
    board: BoardNo
    rows: Annotated[list[Any], Field(max_length=40)]


class Message(_Command):
    type: Literal["message"]
    text: Annotated[StrictStr, Field(max_length=48)]  # the unit shows 48 characters


class Config(_Command):
    """record or enforce, from the unit's next board on."""
    type: Literal["config"]
    mode: Literal["record", "enforce"]


class Time(_Command):
    """The host clock (Unix seconds); given when queued if left out."""
    type: Literal["time"]
    now: Annotated[StrictInt, Field(ge=0, le=2**32 - 1)] | None = None  # Unix seconds (to 2106): event times


Command = Annotated[Union[Assign, Ruling, LeadChoice, Adjust, Traveller, Message, Config, Time],
                    Field(discriminator="type")]
TYPES = ("assign", "ruling", "lead_choice", "adjust", "traveller", "message", "config", "time")
_adapter = TypeAdapter(Command)


class CommandError(ValueError):
    """A command the unit could not apply: the message names the field."""


def check(command):
    """The command as it will be sent (without seq), or CommandError saying what is wrong."""
    if not isinstance(command, dict):
        raise CommandError("a command is a JSON object with a 'type'")
    if command.get("type") not in TYPES:
        raise CommandError(f"unknown command type {command.get('type')!r}: one of {', '.join(TYPES)}")
    try:
        model = _adapter.validate_python(command)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"][1:]) or "command"
        raise CommandError(f"{command['type']} command: {where}: {err['msg']}") from None
    out = model.model_dump(exclude_none=True)
    if out["type"] == "time" and "now" not in out:
        out["now"] = int(time.time())
    return out


def store_event(conn):
    """The store's event id (migration 0009): what binds a unit's boards to tonight's event."""
    return conn.execute("SELECT id FROM store_event").fetchone()[0]


def enqueue(conn, unit, command):
    """Queue a checked command for the unit (in the writer's transaction); returns it with its seq and the
    store's event (`store_event`), which the unit keeps: an assign's goes into each board_start under it, and a
    new one tells the unit that this collector numbers its commands from 1."""
    command = check(command)
    seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM commands WHERE unit = ?", (unit,)).fetchone()[0]
    body = {"seq": seq, "event": store_event(conn), **command}
    conn.execute("INSERT INTO commands VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                 (unit, seq, command["type"], json.dumps(body, separators=(",", ":"))))
    return body


def tell_once(conn, unit, text):
    """Queue a `message` of `text` for the unit unless one saying the same was queued for it before (a round's
    percentages, a match's score: each told once however often the writer looks); the command, or None."""
    said = conn.execute("SELECT 1 FROM commands WHERE unit = ? AND type = 'message' AND json_extract(body, '$.text') "
                        "= ? LIMIT 1", (unit, text)).fetchone()
    return None if said is not None else enqueue(conn, unit, {"type": "message", "text": text})


class NotFound(CommandError):
    """No such irregularity (404)."""


class NotOpen(CommandError):
    """A ruling for an irregularity that is no longer open (409)."""


def ruling(conn, unit, seq, choice, by="director", at=None):
    """Queue the director's ruling on the open irregularity (unit, seq); the command. It is recorded as a decision
    (kind `ruling`, for the audit: who, when, the ruling in words) at `at` (the host clock; now if None). NotOpen if
    it was settled at the table, closed by the director, superseded, or has a ruling on its way already."""
    row = conn.execute("SELECT * FROM irregularities WHERE unit = ? AND seq = ?", (unit, seq)).fetchone()
    if row is None:
        raise NotFound(f"no irregularity {seq} from unit {unit}")
    if row["state"] != "open":
        raise NotOpen(f"the irregularity is no longer open: {row['outcome'] or row['state']}")
    closed = fold(conn).closed.get(alert_key("irr", unit, seq))
    if closed is not None:
        raise NotOpen(f"the irregularity was closed by the director at {closed['at']}")
    options = json.loads(row["options"]) if row["options"] else []
    if choice not in options:
        raise CommandError(f"ruling: one of {', '.join(options) or '(none offered)'}, not {choice!r}")
    acked = conn.execute("SELECT cmd_ack FROM unit_sync WHERE unit = ?", (unit,)).fetchone()
    for (body,) in conn.execute("SELECT body FROM commands WHERE unit = ? AND type = 'ruling' AND seq > ?",
                                (unit, acked[0] if acked else 0)):
        sent = json.loads(body)
        if sent.get("board") == row["board"] and sent.get("at") == row["at"]:
            raise NotOpen(f"a ruling ({sent['ruling']}) is on its way to the table already")
    command = {"type": "ruling", "board": row["board"], "ruling": choice, "seat": row["offender"] or "N"}
    if row["at"] is not None:
        command["at"] = row["at"]
    queued = enqueue(conn, unit, command)
    [(_, label, said)] = ruling_words.options(conn, unit, seq, [choice])
    insert(conn, "ruling", {"unit": unit, "seq": seq, "board": row["board"], "ruling": choice, "label": label,
                            "said": said, "command": queued["seq"]}, by, at or utc.now(), False)
    return queued


def pending(conn, unit, cmd_ack):
    """The commands the unit has not applied, in seq order, as many as one sync reply may carry."""
    out, size = [], 0
    rows = conn.execute("SELECT body FROM commands WHERE unit = ? AND seq > ? ORDER BY seq LIMIT ?",
                        (unit, cmd_ack, REPLY_COMMANDS))
    for (body,) in rows:
        if out and size + len(body) > REPLY_BYTES:
            break
        out.append(json.loads(body))
        size += len(body) + 2
    return out


def listing(conn, unit):
    """Every command queued for the unit, with whether the unit has reported it applied."""
    row = conn.execute("SELECT cmd_ack FROM unit_sync WHERE unit = ?", (unit,)).fetchone()
    cmd_ack = row[0] if row else 0
    return [{"command": json.loads(body), "created": created, "applied": seq <= cmd_ack}
            for seq, body, created in conn.execute("SELECT seq, body, created FROM commands WHERE unit = ? "
                                                   "ORDER BY seq", (unit,))]


def late_boards(conn, unit, section, table, round_no):
    """The boards sent to the unit for late play (an `assign` marked late) of section/table/round."""
    return {b for (body,) in conn.execute(
        "SELECT body FROM commands WHERE unit = ? AND type = 'assign' AND json_extract(body, '$.late') "
        "AND json_extract(body, '$.section') IS ? AND json_extract(body, '$.table') IS ? "
        "AND json_extract(body, '$.round') IS ?", (unit, section, table, round_no)) for b in json.loads(body)["boards"]}


def assignment(conn, unit, section, table, round_no):
    """The boards of the assign command sent to the unit for section/table/round (None if it was sent none); an
    assign for late play is not the round's (late_boards)."""
    boards = None  # SQLite picks the matching assigns: decoding every assign of the unit here cost a sixth of a sync
    for (body,) in conn.execute("SELECT body FROM commands WHERE unit = ? AND type = 'assign' "
                                "AND json_extract(body, '$.late') IS NULL "
                                "AND json_extract(body, '$.section') IS ? AND json_extract(body, '$.table') IS ? "
                                "AND json_extract(body, '$.round') IS ? ORDER BY seq",
                                (unit, section, table, round_no)):
        a = json.loads(body)
        boards = (boards or []) + [b for b in a["boards"] if b not in (boards or [])]
    return boards
