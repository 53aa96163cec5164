"""The director's and scorer's JSON API: units, boards, alerts, the command queue, the event, scores and exports.

Every route here needs the API token or a dashboard login (apiauth.py); /healthz (`service`) needs nothing. The
routes only parse, call the collector service (service.py: every change goes through it) and answer; a refusal is
`{"error", "field"}` (web/errors.py) with its status (the app's handler for service.Refused). A request that
changes something may carry an `Idempotency-Key` header: a retry with the same key is answered as the first was
and changes nothing again.
"""
import json
import sqlite3
from typing import Annotated, Literal

from fastapi import APIRouter, Header, Query, Request
from fastapi import Path as FastPath
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from bidwire_host.collector import (
    across_field,
    alert_queue,
    apiauth,
    bounds,
    commands,
    event_setup,
    export,
    individual_ranking,
    roster,
    withheld,
)
from bidwire_host.collector.decisions.journal import fold, label
from bidwire_host.collector.deps import Service
from bidwire_host.collector.store import SCHEMA_VERSION
from bidwire_host.web import errors

router = APIRouter(dependencies=[apiauth.guard_dependency])
EventSeq = Annotated[int, FastPath(ge=1, le=2**63 - 1, description="the unit's event number of the result")]
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", max_length=200,
                                              description="a key per change: a retry with it changes nothing twice")]
SQLITE_MAX = 2**63 - 1  # the largest integer SQLite stores
service = APIRouter()  # /healthz: no login


def _row(r, json_fields=()):
    out = {k: r[k] for k in r.keys()}
    for k in json_fields:
        if out.get(k) is not None:
            out[k] = json.loads(out[k])
    return out


def _error(status, reason, field=None):
    return errors.reply(status, reason, field)


@service.get("/healthz", tags=["service"], responses={503: {"description": "the store cannot commit or be read"}})
def healthz(request: Request, service: Service, loop_window_s: Annotated[int | None, Query(ge=1, le=3600)] = None):
    """The store's real state: 200 `ok` when it can be read and its last transaction committed; 503 `failing`
    with the `reason` when a commit failed (disk full, I/O error) or a read fails (a damaged page). While failing,
    each call tries one small commit, so the answer turns to ok once the store can commit again. `loop`: how long
    the event loop was held up at most (loopprobe.py), since start and, with `loop_window_s`, over the last that
    many seconds."""
    store = service.store
    reason = store.health()
    if reason:
        reason = store.probe() or ""
    events = None
    try:
        events = store.reader().execute("SELECT count(*) FROM events").fetchone()[0]
    except sqlite3.DatabaseError as e:
        reason = reason or f"the store {store.path} cannot be read: {e}"
    probe = getattr(request.app.state, "loop_probe", None)
    body = {"status": "failing" if reason else "ok", "schema_version": SCHEMA_VERSION, "events": events,
            "loop": probe.figures(loop_window_s) if probe is not None else None, "reads_on_loop": store.reads_on_loop}
    if reason:
        body["reason"] = reason
        return JSONResponse(body, status_code=503)
    return body


@router.get("/api/v1/units", tags=["director"])
def units(service: Service):
    """Every unit known (keyring, syncs, events): last seen, boot, the last hello's battery and backlog, alerts."""
    conn = service.store.reader()
    derived = {r["unit"]: r for r in conn.execute("SELECT * FROM units")}
    synced = {r["unit"]: r for r in conn.execute("SELECT * FROM unit_sync")}
    queued = dict(conn.execute("SELECT unit, max(seq) FROM commands GROUP BY unit").fetchall())
    alerts = dict(conn.execute("SELECT unit, count(*) FROM alerts GROUP BY unit").fetchall())
    provisioned = set(service.keyring.units())
    out = []
    for unit in sorted(provisioned | set(derived) | set(synced)):
        d, s = derived.get(unit), synced.get(unit)
        cmd_ack = s["cmd_ack"] if s else 0
        out.append({
            "unit": unit,
            "provisioned": unit in provisioned,
            "last_seen": s["last_seen"] if s else None,
            "boot": s["boot"] if s else None,
            "cmd_ack": cmd_ack,
            "commands_pending": max(0, (queued.get(unit) or 0) - cmd_ack),
            "duplicates": s["duplicates"] if s else 0,  # events that came again, acknowledged, not stored twice
            "events": d["events"] if d else 0,
            "last_seq": d["last_seq"] if d else None,
            "board": d["board"] if d else None,
            "hello": {k: d[k] for k in ("firmware", "hardware", "boot", "battery", "rssi", "backlog")}
            if d and d["hello_seq"] else None,
            "alerts": alerts.get(unit, 0),
            "last_rejection": service.rejection(unit),
        })
    return {"units": out}


@router.get("/api/v1/boards/{board}", tags=["director"])
def board(service: Service, board: int):
    """Every table's play of a board: the host's contract and declarer, the result (Law 77 on the host), alerts."""
    if board < 1:
        return _error(404, "boards are numbered from 1", "board")
    if board > SQLITE_MAX:  # no such board is stored (and SQLite cannot take the number)
        return _error(404, f"no board {board}", "board")
    conn = service.store.reader()
    tables = []
    for b in conn.execute("SELECT * FROM boards WHERE board = ? ORDER BY section, table_no, round, unit, start_seq",
                          (board,)):
        t = _row(b, ("inputs",))
        t["table"] = t.pop("table_no")
        t["results"] = [_row(r) for r in conn.execute(
            "SELECT seq, contract, declarer, tricks, score_ns, unit_contract, unit_declarer, unit_score_ns, "
            "entered_by, confirmed_by, lead, t FROM results WHERE board_id = ? ORDER BY seq", (b["id"],))]
        tables.append(t)
    alerts = [_row(a, ("data",)) for a in conn.execute("SELECT * FROM alerts WHERE board = ? ORDER BY id", (board,))]
    return {"board": board, "tables": tables, "alerts": alerts}


@router.get("/api/v1/alerts", tags=["director"])
def alerts(service: Service, unit: str | None = None, kind: str | None = None, board: int | None = None,
           limit: int = Query(500, ge=1, le=5000)):
    """What the validator found, oldest first: contract disagreements, impossible results, Law 15, duplicates."""
    if board is not None and not -SQLITE_MAX - 1 <= board <= SQLITE_MAX:
        return {"alerts": []}  # no alert is about such a board (and SQLite cannot take the number)
    where, args = [], []
    for column, value in (("unit", unit), ("kind", kind), ("board", board)):
        if value is not None:
            where.append(f"{column} = ?")
            args.append(value)
    sql = "SELECT * FROM alerts" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id LIMIT ?"
    conn = service.store.reader()
    return {"alerts": [_row(a, ("data",)) for a in conn.execute(sql, (*args, limit))]}


@router.get("/api/v1/queue", tags=["director"])
def get_queue(service: Service, state: Literal["open", "closed"] = "open", page: int = Query(1, ge=1, le=100_000)):
    """The director's queue as the page shows it: the alerts still open (an irregularity not settled at the table,
    a director call not ended, a finding not dealt with), or the closed ones with their outcome; 50 a page."""
    conn = service.store.reader()
    items, total = alert_queue.alerts(conn, alert_queue.cmd_acks(conn), state, page)
    keep = ("key", "source", "unit", "seq", "board", "kind", "law", "open", "outcome", "detail", "offender", "call",
            "at", "options", "queued", "closed", "reasons", "expected", "section", "table", "closed_at", "seat",
            "chosen", "lead_choices")
    return {"state": state, "total": total, "page": page, "alerts": [{k: i.get(k) for k in keep} for i in items]}


@router.get("/api/v1/units/{unit}/commands", tags=["director"])
def list_commands(service: Service, unit: str):
    """The unit's command queue, with whether the unit has reported each one applied."""
    conn = service.store.reader()
    return {"unit": unit, "commands": commands.listing(conn, unit)}


@router.post("/api/v1/units/{unit}/commands", tags=["director"], status_code=201)
async def enqueue(service: Service, unit: str, command: commands.Command, key: IdempotencyKey = None):
    """Queue a command for a unit; it goes out in the unit's next sync reply. A ruling goes through
    POST /api/v1/rulings, which checks that the irregularity it answers is still open."""
    body = command.model_dump(exclude_none=True)
    if body["type"] == "ruling":
        return _error(400, "a ruling answers one irregularity: POST /api/v1/rulings {unit, seq, ruling}")
    queued = await service.queue_command(unit, body, key)
    return {"unit": unit, "command": queued}


class RulingIn(BaseModel):
    """The director's ruling on an open irregularity: the unit's irregularity event (unit, seq) and the ruling."""
    model_config = ConfigDict(extra="forbid")
    unit: str = Field(..., max_length=64)
    seq: int = Field(..., ge=1, le=2**63 - 1)
    ruling: str = Field(..., max_length=32)


@router.post("/api/v1/rulings", tags=["director"], status_code=201)
async def post_ruling(service: Service, body: RulingIn, key: IdempotencyKey = None):
    """Send a ruling to the table for an open irregularity: 409 if it is no longer open (settled at the table,
    ruled already, the board redone)."""
    queued = await service.rule(body.unit, body.seq, body.ruling, key)
    return {"unit": body.unit, "command": queued}


# ---- the event: setup, rounds, scores ------------------------------------------------------------------------
class EventSetup(BaseModel):
    """An event file's JSON (`bidwire event create`), which unit sits where, and the scoring method. The event
    names no file on the server: its register comes as the CSV's text and its hand records as each session's PBN
    text (collector/event_upload.py)."""
    event: dict
    tables: dict[str, int | tuple[str, int]] = {}
    method: str = "neuberg"
    session: str | None = None
    start: bool = True
    register_csv: str | None = Field(None, description="the player register: the CSV file's text (number,name)")
    hand_records: dict[str, str] = Field({}, max_length=16,
                                         description="each session's hand records: {session name: PBN text}")


def _setup_view(conn):
    s = event_setup.load(conn)
    if s is None:
        return None
    return {"event": s.event.name, "session": s.event.session(s.session).name, "method": s.method,
            "tables": s.tables, "rounds": s.rounds,
            "sections": [{"name": sec.name, "movement": sec.movement_plan().title,
                          "rounds": sec.movement_plan().rounds} for sec in s.event.session(s.session).sections]}


@router.post("/api/v1/event", tags=["director"])
async def load_event(service: Service, body: EventSetup, key: IdempotencyKey = None):
    """Load (or replace) the event and the unit -> table map; round 1's assigns are queued (unless start is
    false, or they were queued already)."""
    tables = {u: list(w) if isinstance(w, tuple) else w for u, w in body.tables.items()}
    started = await service.load_event(body.event, tables, body.method, body.session, body.start, key,
                                       body.register_csv, body.hand_records)
    return {"setup": _setup_view(service.store.reader()), "started": started}


@router.get("/api/v1/event", tags=["director"])
def get_event(service: Service):
    """The event loaded: its sections and movements, the unit -> table map, the round each section is on."""
    view = _setup_view(service.store.reader())
    if view is None:
        return _error(404, "no event loaded")
    return view


@router.post("/api/v1/rounds/{round_no}/start", tags=["director"])
async def start_round(service: Service, round_no: int, section: Annotated[str | None, Query(max_length=8)] = None,
                      table: Annotated[int | None, Query(ge=1, le=10_000)] = None, key: IdempotencyKey = None):
    """Queue the round's assigns (and sit-out messages) now, without waiting for every table to finish: every
    section's, one `section`'s, or one `table`'s of it (the section's round moves on only with the section)."""
    if round_no < 1:
        return _error(404, "rounds are numbered from 1", "round")
    if round_no > 2**31:
        return _error(404, f"no round {round_no}", "round")
    return await service.start_round(round_no, section, key, table)


@router.get("/api/v1/travellers/{board}", tags=["director"])
def traveller(service: Service, board: int):
    """A board's results, scored: NS score, matchpoints (2 per result beaten, 1 per tie) and percentages, or IMPs;
    adjusted and assigned scores marked; the pairs' names (`ns_names`, `ew_names`)."""
    rows = service.standings.traveller(board)
    named = roster.by_line(service.store.reader(), service.standings.setup)
    for r in rows:
        for line in ("ns", "ew"):
            r[f"{line}_names"] = named.get((r["section"], line.upper(), str(r[line])), ("", []))[0] or None
    return {"board": board, "method": service.standings.method, "rows": rows}


@router.get("/api/v1/hub", tags=["director"])
def hub_link(service: Service):
    """The link to the sim's hub (collector/uplink.py): released or not, the results not yet acknowledged by the
    hub (`backlog`), the last error. An event that names no sim has no link: `sim` is null (a state, not an
    error: the director's page asks every event)."""
    return service.hub_status()


@router.get("/api/v1/ranking", tags=["director"])
def ranking_(service: Service):
    """The standings per section (NS and EW apart in a Mitchell): totals, percentages, ranks with ties; each pair's
    or team's `names` and `players` (name and number: the event's, with the director's fixes)."""
    st = service.standings
    rows = st.ranking()
    named = roster.by_line(service.store.reader(), st.setup)
    for r in rows:
        said, found = named.get((r["section"], r["direction"] or "NS", str(r["pair"])), ("", []))
        r["names"], r["players"] = said or None, roster.as_json(found)
    return {"method": st.method, "ranking": rows, "problems": list(st.problems)}


# ---- the director's decisions: adjusted scores, penalties, publication (decisions/) ------------------------
class Adjustment(BaseModel):
    """An artificial adjusted score (ns and ew: A+, A, A- or a percentage), an assigned score (score_ns, and
    score_ew if non-balancing), or `clear`, for one board at one table."""
    model_config = ConfigDict(extra="forbid")
    section: str | None = None
    table: int
    board: int
    ns: str | int | float | None = None
    ew: str | int | float | None = None
    score_ns: int | None = Field(None, ge=-bounds.MAX_SCORE, le=bounds.MAX_SCORE)  # what a board can score
    score_ew: int | None = Field(None, ge=-bounds.MAX_SCORE, le=bounds.MAX_SCORE)
    clear: bool = False
    not_played: bool = Field(False, description="the board was not played: without ns/ew, the event's "
                                                "evening.not_played score (Law 12 C; A/A by default)")
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)
    override: bool = False


class LatePlay(BaseModel):
    """A board a table has not played, to be played late by its pairs, at `at_table` (default: the same table)."""
    model_config = ConfigDict(extra="forbid")
    section: str | None = Field(None, max_length=8)
    table: int = Field(..., ge=1, le=10_000)
    board: int = Field(..., ge=1, le=10_000)
    at_table: int | None = Field(None, ge=1, le=10_000)
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)


class PenaltyIn(BaseModel):
    """A procedural (Law 90) or disciplinary (Law 91) penalty: `amount` taken off a pair's or team's total."""
    model_config = ConfigDict(extra="forbid")
    section: str | None = None
    direction: Literal["NS", "EW"] | None = None
    pair: str | int
    amount: float | int | str
    unit: str | None = None
    kind: str = "procedural"
    reason: str = Field(..., max_length=500)
    board: int | None = None
    by: str | None = Field(None, max_length=100)
    override: bool = False


class Publish(BaseModel):
    """Publish the results now: the correction period (Law 79 C) runs `minutes` from now."""
    model_config = ConfigDict(extra="forbid")
    minutes: int | None = None
    by: str | None = Field(None, max_length=100)
    override: bool = False  # publish while tables still have boards to play (recorded; those boards withheld)


async def _decide(service, kind, body, key, **path):
    """The decision `kind` with the request's body (and the path's fields) through the service."""
    item = await service.decide(kind, dict(body.model_dump(), **path), key)
    return JSONResponse({"action": item}, status_code=201)


@router.post("/api/v1/adjustments", tags=["director"], status_code=201)
async def post_adjustment(service: Service, body: Adjustment, key: IdempotencyKey = None):
    """Set an adjusted score (Laws 12 C, 86) or an assigned score for a board at a table, or clear it.
    After the correction period only with `override` and `by` (Law 79 C)."""
    return await _decide(service, "adjust", body, key)


@router.post("/api/v1/late", tags=["director"], status_code=201)
async def post_late(service: Service, body: LatePlay, key: IdempotencyKey = None):
    """Mark a board a table has not played as late play: its pairs play it after the round in play, at `at_table`
    (default the same table), whose unit shows it as late play; the round goes on meanwhile."""
    return await _decide(service, "late", body, key)


@router.get("/api/v1/individuals", tags=["director"])
def get_individuals(service: Service):
    """Each individual section's players ranked, each on his partnerships' matchpoints over their tops (an empty
    list for an event with no individual)."""
    return {"sections": individual_ranking.view(service.standings)}


@router.get("/api/v1/field", tags=["director"])
def get_field(service: Service):
    """The session's sections matchpointed as one field, when its event says `across_field`: the ranking (each
    pair's place in the field and in its own section) and each board's traveller across the sections;
    `"across_field": false` and nothing else when the event scores its sections apart."""
    s = service.standings.setup
    if not across_field.is_asked(s):
        return {"across_field": False, "ranking": [], "boards": {}}
    return {"across_field": True, **across_field.view(across_field.field(s, service.standings,
                                                                        service.store.reader()))}


@router.get("/api/v1/adjustments", tags=["director"])
def get_adjustments(service: Service):
    """Every `adjust` action in order, and the adjustments in force."""
    st = fold(service.store.reader())
    return {"actions": [a for a in st.actions if a["kind"] == "adjust"],
            "in_force": [dict(a, label=label(a)) for a in st.adjustments.values()]}


@router.post("/api/v1/penalties", tags=["director"], status_code=201)
async def post_penalty(service: Service, body: PenaltyIn, key: IdempotencyKey = None):
    """Record a penalty as a ledger entry; deducted from the total before ranking."""
    return await _decide(service, "penalty", body, key)


@router.get("/api/v1/penalties", tags=["director"])
def get_penalties(service: Service):
    """The penalty ledger, in order."""
    return {"penalties": fold(service.store.reader()).penalties}


@router.post("/api/v1/publish", tags=["director"], status_code=201)
async def post_publish(service: Service, body: Publish | None = None, key: IdempotencyKey = None):
    """Publish the results: the correction period (Law 79 C) starts again."""
    return await _decide(service, "publish", body or Publish(), key)


class PlayerIn(BaseModel):
    """A player: the name, and the membership number if known."""
    model_config = ConfigDict(extra="forbid")
    name: str = Field(..., max_length=100)
    id: Annotated[str, Field(max_length=40)] | Annotated[int, Field(ge=0, le=2**53)] | None = None


class PlayersFix(BaseModel):
    """The two players who really played for a pair (the director's fix; the latest one of a pair stands)."""
    model_config = ConfigDict(extra="forbid")
    section: str | None = Field(None, max_length=8)
    direction: Literal["NS", "EW"] | None = None
    pair: str | int
    players: list[PlayerIn] = Field(..., min_length=2, max_length=2)
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)
    override: bool = False


@router.post("/api/v1/players", tags=["director"], status_code=201)
async def post_players(service: Service, body: PlayersFix, key: IdempotencyKey = None):
    """Fix a pair's players (decisions.players.players): recorded with the players before; every output names the
    new ones. After the correction period only with `override` and `by` (Law 79 C)."""
    return await _decide(service, "players", body, key)


@router.get("/api/v1/players", tags=["director"])
def get_players(service: Service):
    """Each pair's (or team's) effective players, section by section (collector/roster.py), and every fix in order."""
    conn = service.store.reader()
    s = service.standings.setup
    fixed = roster.fixes(conn)
    sections = {}
    for sec in (s.event.session(s.session).sections if s is not None else []):
        found = roster.players(conn, s, sec.name, fixed)
        said = roster.names(conn, s, sec.name, found)
        sections[sec.name] = [{"direction": who[0] if isinstance(who, tuple) else None,
                               "pair": who[1] if isinstance(who, tuple) else who, "names": said.get(who),
                               "players": roster.as_json(pl), "fix": (fixed.get((sec.name, who)) or {}).get("id")}
                              for who, pl in found.items()]
    return {"sections": sections, "fixes": [a for a in fold(conn).actions if a["kind"] == "players"]}


class Resolution(BaseModel):
    """A held result accepted as played (credited to the section, table, round, board and pairs given here, by
    default those the unit reported) or voided. After the correction period only with `override` and `by`."""
    model_config = ConfigDict(extra="forbid")
    decision: Literal["accept", "void"]
    section: str | None = Field(None, max_length=8)
    table: int | None = Field(None, ge=1, le=10_000)
    round: int | None = Field(None, ge=1, le=10_000)
    board: int | None = Field(None, ge=1, le=10_000)
    ns: str | int | None = None
    ew: str | int | None = None
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)
    override: bool = False


class Correction(BaseModel):
    """A result as it really was: contract, declarer, tricks, lead, pair numbers (what is left out stays)."""
    model_config = ConfigDict(extra="forbid")
    contract: str | None = Field(None, max_length=8)
    declarer: Literal["N", "E", "S", "W"] | None = None
    tricks: int | None = Field(None, ge=0, le=13)
    lead: str | None = Field(None, max_length=4)
    ns: str | int | None = None
    ew: str | int | None = None
    reason: str = Field(..., max_length=500)
    by: str | None = Field(None, max_length=100)
    override: bool = False


class Entry(BaseModel):
    """A result the director enters for a table and board of the movement, whether or not a unit reported one."""
    model_config = ConfigDict(extra="forbid")
    section: str | None = Field(None, max_length=8)
    table: int = Field(..., ge=1, le=10_000)
    board: int = Field(..., ge=1, le=10_000)
    contract: str = Field(..., max_length=8, description="4S, 3NTX, 6HXX or Pass")
    declarer: Literal["N", "E", "S", "W"] | None = None
    tricks: int | None = Field(None, ge=0, le=13, description="the tricks declarer took")
    lead: Literal["S", "H", "D", "C"] | None = Field(None, description="the opening lead's suit")
    ns: str | int | None = Field(None, description="the NS pair who played, if not the movement's")
    ew: str | int | None = Field(None, description="the EW pair who played, if not the movement's")
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)
    override: bool = False


class TableGiven(BaseModel):
    """A table of the movement given to a unit (a spare in place of a dead one)."""
    model_config = ConfigDict(extra="forbid")
    section: str | None = Field(None, max_length=8)
    table: int = Field(..., ge=1, le=10_000)
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)


class Seating(BaseModel):
    """The pairs who really sat at a table in a round (a wrong pair at the table, Law 15)."""
    model_config = ConfigDict(extra="forbid")
    section: str | None = Field(None, max_length=8)
    table: int = Field(..., ge=1, le=10_000)
    round: int = Field(..., ge=1, le=10_000)
    ns: str | int | None = Field(None, description="the NS pair who sat there (default: the movement's)")
    ew: str | int | None = Field(None, description="the EW pair who sat there (default: the movement's)")
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)
    override: bool = False


class AlertClose(BaseModel):
    """Close an alert (its id as the director's page and GET /api/v1/queue give it) with a note."""
    model_config = ConfigDict(extra="forbid")
    alert: str = Field(..., max_length=200)
    note: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)


class LeadChoiceIn(BaseModel):
    """Declarer's choice at a Law 26 lead restriction: the alert (its id as GET /api/v1/queue gives it), `choice`
    bar, require or waive, and the suit barred or required."""
    model_config = ConfigDict(extra="forbid")
    alert: str = Field(..., max_length=200)
    choice: Literal["bar", "require", "waive"]
    suit: Literal["C", "D", "H", "S"] | None = None
    seat: Literal["N", "E", "S", "W"] | None = None
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)


@router.post("/api/v1/leads", tags=["director"], status_code=201)
async def post_lead(service: Service, body: LeadChoiceIn, key: IdempotencyKey = None):
    """Record declarer's Law 26 choice for the restricted player's first lead; when he is the opening leader it
    goes to his table as a `lead_choice` command. 409 once the lead is made or a choice is recorded."""
    return await _decide(service, "lead", body, key)


@router.post("/api/v1/results", tags=["director"], status_code=201)
async def post_result(service: Service, body: Entry, key: IdempotencyKey = None):
    """Enter a result for a table and board of the movement (a dead unit, a paper traveller): scored at once,
    marked on the traveller as entered by the director; a unit's result that comes later for that table and board
    is held for a decision. After the correction period only with `override` and `by` (Law 79 C)."""
    return await _decide(service, "enter", body, key)


@router.post("/api/v1/units/{unit}/table", tags=["director"], status_code=201)
async def post_unit_table(service: Service, unit: Annotated[str, FastPath(max_length=32, pattern=r"^[A-Za-z0-9_-]+$")],
                          body: TableGiven, key: IdempotencyKey = None):
    """Give a table to a provisioned unit (a spare for a unit that died): it starts at the table's current round
    with the boards the table has still to play; the unit that had the table is retired from it (what it sends
    for it from then on is held for the director, with that reason)."""
    return await _decide(service, "table", body, key, unit=unit)


@router.post("/api/v1/seated", tags=["director"], status_code=201)
async def post_seated(service: Service, body: Seating, key: IdempotencyKey = None):
    """Record which pairs really sat at a table in a round: its results count for them in the ranking, the pages
    and the exports; a unit's result naming the movement's pairs or these is not held for it."""
    return await _decide(service, "seated", body, key)


@router.post("/api/v1/results/{unit}/{seq}/resolve", tags=["director"], status_code=201)
async def post_resolve(service: Service, unit: str, seq: EventSeq, body: Resolution, key: IdempotencyKey = None):
    """Decide a held result: accept it as played (re-attributed) or void it."""
    return await _decide(service, "resolve", body, key, unit=unit, seq=seq)


@router.post("/api/v1/results/{unit}/{seq}/correct", tags=["director"], status_code=201)
async def post_correct(service: Service, unit: str, seq: EventSeq, body: Correction, key: IdempotencyKey = None):
    """Correct a result (Law 79 C): contract, declarer, tricks, lead, pairs; scored again by Law 77."""
    return await _decide(service, "correct", body, key, unit=unit, seq=seq)


@router.post("/api/v1/alerts/close", tags=["director"], status_code=201)
async def post_close(service: Service, body: AlertClose, key: IdempotencyKey = None):
    """Close an alert with a note (resolved by the director)."""
    return await _decide(service, "close", body, key)


@router.get("/api/v1/held", tags=["director"])
def held(service: Service):
    """The results held for the director (attribution.py): what differs from the event, and the decision if any."""
    conn = service.store.reader()
    decided = fold(conn).resolutions
    out = []
    for r in conn.execute("SELECT * FROM results WHERE held IS NOT NULL ORDER BY rowid"):
        item = _row(r, ("held", "expected"))
        item["table"] = item.pop("table_no")
        item["decision"] = decided.get((r["unit"], r["seq"]))
        out.append(item)
    return {"held": out}


@router.get("/api/v1/publish", tags=["director"])
def get_publish(service: Service):
    """The last publication, when the correction period ends, whether it is open; corrections made after it."""
    return fold(service.store.reader()).publication(service.clock())


@router.get("/api/v1/export/{fmt}", tags=["director"])
def get_export(service: Service, fmt: str, section: str | None = None, table: str | None = None,
               irregular: str = "notes", board: int | None = None):
    """The scored session as PBN 2.1, USEBIO 1.2 XML, CSV or LIN: `table` one of ranking, travellers, scorecards
    (one table per file), or without it a zip of the three; `board` one board's LIN file, or without it a zip of
    every board's; `irregular` (PBN) notes, the default, or marks (PBN §3.9's, which few readers replay)."""
    if fmt not in export.FORMATS:
        return _error(404, f"format: one of {', '.join(export.FORMATS)}, not {fmt!r}", "format")
    try:
        held_back = withheld.boards(service)
        body = export.render(service.store.reader(), service.standings, fmt, section, table, irregular, board,
                             withhold=held_back)
    except export.ExportError as e:
        return _error(422 if str(e).startswith(("table:", "irregular:", "board:")) else 409, str(e))
    media, ext = export.media_type(fmt, table, board)
    name = f"bidwire-{table}" if table else f"bidwire-board-{board}" if board is not None else "bidwire"
    headers = {"Content-Disposition": f'attachment; filename="{name}.{ext}"'}
    if held_back:  # what the file leaves out, and why (withheld.py)
        headers["X-Bidwire-Withheld"] = "; ".join(f"board {b}: {why}" for b, why in sorted(held_back.items()))
    return Response(body, media_type=media, headers=headers)
