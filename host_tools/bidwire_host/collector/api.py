"""The director's and scorer's JSON API: units, boards, alerts, the command queue, the event, scores and exports.

Every route here needs the API token or a dashboard login (apiauth.py); /healthz (`service`) needs nothing.
"""
import json
from typing import Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from bidwire_host.collector import apiauth, commands, director, export, setup
from bidwire_host.collector.store import SCHEMA_VERSION, StoreError

router = APIRouter(dependencies=[apiauth.guard_dependency])
SQLITE_MAX = 2**63 - 1  # the largest integer SQLite stores
service = APIRouter()  # /healthz: no login


def _row(r, json_fields=()):
    out = {k: r[k] for k in r.keys()}
    for k in json_fields:
        if out.get(k) is not None:
            out[k] = json.loads(out[k])
    return out


def _error(status, reason):
    return JSONResponse({"error": reason}, status_code=status)


@service.get("/healthz", tags=["service"])
def healthz(request: Request):
    """Liveness: the store answers a query."""
    conn = request.app.state.collector.store.reader()
    events = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    return {"status": "ok", "schema_version": SCHEMA_VERSION, "events": events}


@router.get("/api/v1/units", tags=["director"])
def units(request: Request):
    """Every unit known (keyring, syncs, events): last seen, boot, the last hello's battery and backlog, alerts."""
    collector = request.app.state.collector
    conn = collector.store.reader()
    derived = {r["unit"]: r for r in conn.execute("SELECT * FROM units")}
    synced = {r["unit"]: r for r in conn.execute("SELECT * FROM unit_sync")}
    queued = dict(conn.execute("SELECT unit, max(seq) FROM commands GROUP BY unit").fetchall())
    alerts = dict(conn.execute("SELECT unit, count(*) FROM alerts GROUP BY unit").fetchall())
    provisioned = set(collector.keyring.units())
    out = []
    for unit in sorted(provisioned | set(derived) | set(synced)):
        d, s, live = derived.get(unit), synced.get(unit), collector.live.get(unit, {})
        cmd_ack = live.get("cmd_ack", s["cmd_ack"] if s else 0)
        out.append({
            "unit": unit,
            "provisioned": unit in provisioned,
            "last_seen": live.get("last_seen") or (s["last_seen"] if s else None),
            "boot": live.get("boot", s["boot"] if s else None),
            "cmd_ack": cmd_ack,
            "commands_pending": max(0, (queued.get(unit) or 0) - cmd_ack),
            "duplicates": s["duplicates"] if s else 0,  # events that came again, acknowledged, not stored twice
            "events": d["events"] if d else 0,
            "last_seq": d["last_seq"] if d else None,
            "board": d["board"] if d else None,
            "hello": {k: d[k] for k in ("firmware", "hardware", "boot", "battery", "rssi", "backlog")}
            if d and d["hello_seq"] else None,
            "alerts": alerts.get(unit, 0),
            "last_rejection": collector.rejections.get(unit),
        })
    return {"units": out}


@router.get("/api/v1/boards/{board}", tags=["director"])
def board(request: Request, board: int):
    """Every table's play of a board: the host's contract and declarer, the result (Law 77 on the host), alerts."""
    if board < 1:
        return _error(404, "boards are numbered from 1")
    if board > SQLITE_MAX:  # no such board is stored (and SQLite cannot take the number)
        return _error(404, f"no board {board}")
    conn = request.app.state.collector.store.reader()
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
def alerts(request: Request, unit: str | None = None, kind: str | None = None, board: int | None = None,
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
    conn = request.app.state.collector.store.reader()
    return {"alerts": [_row(a, ("data",)) for a in conn.execute(sql, (*args, limit))]}


@router.get("/api/v1/units/{unit}/commands", tags=["director"])
def list_commands(request: Request, unit: str):
    """The unit's command queue, with whether the unit has reported each one applied."""
    conn = request.app.state.collector.store.reader()
    return {"unit": unit, "commands": commands.listing(conn, unit)}


@router.post("/api/v1/units/{unit}/commands", tags=["director"], status_code=201)
def enqueue(request: Request, unit: str, command: commands.Command):
    """Queue a command for a unit; it goes out in the unit's next sync reply. No authentication yet (TODO)."""
    collector = request.app.state.collector
    if collector.keyring.key(unit) is None:
        return _error(404, f"unknown unit {unit!r}: not in the keyring")
    body = command.model_dump(exclude_none=True)
    try:
        queued = collector.store.write(lambda conn: commands.enqueue(conn, unit, body))
    except commands.CommandError as e:
        return _error(400, str(e))
    except StoreError as e:
        return _error(503, str(e))
    return {"unit": unit, "command": queued}


# ---- the event: setup, rounds, scores ------------------------------------------------------------------------
class EventSetup(BaseModel):
    """An event file's JSON (`bidwire event create`), which unit sits where, and the scoring method."""
    event: dict
    tables: dict[str, int | tuple[str, int]] = {}
    method: str = "mp"
    session: str | None = None
    start: bool = True


def _setup_view(conn):
    s = setup.load(conn)
    if s is None:
        return None
    return {"event": s.event.name, "session": s.event.session(s.session).name, "method": s.method,
            "tables": s.tables, "rounds": s.rounds,
            "sections": [{"name": sec.name, "movement": sec.movement_plan().title,
                          "rounds": sec.movement_plan().rounds} for sec in s.event.session(s.session).sections]}


@router.post("/api/v1/event", tags=["director"])
def load_event(request: Request, body: EventSetup):
    """Load (or replace) the event and the unit -> table map; round 1's assigns are queued (unless start is
    false, or they were queued already). No authentication yet (TODO)."""
    collector = request.app.state.collector
    tables = {u: list(w) if isinstance(w, tuple) else w for u, w in body.tables.items()}
    unknown = [u for u in tables if collector.keyring.key(u) is None]
    if unknown:
        return _error(400, f"tables: unit {', '.join(unknown)} not in the keyring")
    try:
        started = collector.store.write(lambda conn: setup.save(conn, body.event, tables, body.method, body.session,
                                                                body.start))
    except setup.SetupError as e:
        return _error(400, str(e))
    except StoreError as e:
        return _error(503, str(e))
    conn = collector.store.reader()
    collector.standings.load(conn)
    return {"setup": _setup_view(conn), "started": started}


@router.get("/api/v1/event", tags=["director"])
def get_event(request: Request):
    """The event loaded: its sections and movements, the unit -> table map, the round each section is on."""
    view = _setup_view(request.app.state.collector.store.reader())
    if view is None:
        return _error(404, "no event loaded")
    return view


@router.post("/api/v1/rounds/{round_no}/start", tags=["director"])
def start_round(request: Request, round_no: int, section: str | None = None):
    """Queue the round's assigns (and sit-out messages) now, without waiting for every table to finish."""
    if round_no < 1:
        return _error(404, "rounds are numbered from 1")
    try:
        return request.app.state.collector.store.write(lambda conn: setup.start_round(conn, round_no, section))
    except setup.SetupError as e:
        return _error(400, str(e))
    except StoreError as e:
        return _error(503, str(e))


@router.get("/api/v1/travellers/{board}", tags=["director"])
def traveller(request: Request, board: int):
    """A board's results, scored: NS score, matchpoints (2 per result beaten, 1 per tie) and percentages, or IMPs;
    adjusted and assigned scores marked."""
    return {"board": board, "method": request.app.state.collector.standings.method,
            "rows": request.app.state.collector.standings.traveller(board)}


@router.get("/api/v1/ranking", tags=["director"])
def ranking_(request: Request):
    """The standings per section (NS and EW apart in a Mitchell): totals, percentages, ranks with ties."""
    st = request.app.state.collector.standings
    return {"method": st.method, "ranking": st.ranking(), "problems": list(st.problems)}


# ---- the director's decisions: adjusted scores, penalties, publication (director.py) -------------------------
class Adjustment(BaseModel):
    """An artificial adjusted score (ns and ew: A+, A, A- or a percentage), an assigned score (score_ns, and
    score_ew if non-balancing), or `clear`, for one board at one table."""
    model_config = ConfigDict(extra="forbid")
    section: str | None = None
    table: int
    board: int
    ns: str | int | float | None = None
    ew: str | int | float | None = None
    score_ns: int | None = None
    score_ew: int | None = None
    clear: bool = False
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)
    override: bool = False


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


def _decide(request, action, body):
    collector = request.app.state.collector
    at = collector.clock()
    try:
        item = collector.store.write(lambda conn: action(conn, setup.load(conn), body.model_dump(), at))
    except director.ActionError as e:
        return _error(e.status, str(e))
    except StoreError as e:
        return _error(503, str(e))
    collector.standings.load(collector.store.reader())
    return JSONResponse({"action": item}, status_code=201)


@router.post("/api/v1/adjustments", tags=["director"], status_code=201)
def post_adjustment(request: Request, body: Adjustment):
    """Set an adjusted score (Laws 12 C, 86) or an assigned score for a board at a table, or clear it.
    After the correction period only with `override` and `by` (Law 79 C). No authentication yet (TODO)."""
    return _decide(request, director.adjust, body)


@router.get("/api/v1/adjustments", tags=["director"])
def get_adjustments(request: Request):
    """Every `adjust` action in order, and the adjustments in force."""
    st = director.fold(request.app.state.collector.store.reader())
    return {"actions": [a for a in st.actions if a["kind"] == "adjust"],
            "in_force": [dict(a, label=director.label(a)) for a in st.adjustments.values()]}


@router.post("/api/v1/penalties", tags=["director"], status_code=201)
def post_penalty(request: Request, body: PenaltyIn):
    """Record a penalty as a ledger entry; deducted from the total before ranking. No authentication yet (TODO)."""
    return _decide(request, director.penalty, body)


@router.get("/api/v1/penalties", tags=["director"])
def get_penalties(request: Request):
    """The penalty ledger, in order."""
    return {"penalties": director.fold(request.app.state.collector.store.reader()).penalties}


@router.post("/api/v1/publish", tags=["director"], status_code=201)
def post_publish(request: Request, body: Publish | None = None):
    """Publish the results: the correction period (Law 79 C) starts again. No authentication yet (TODO)."""
    return _decide(request, director.publish, body or Publish())


@router.get("/api/v1/publish", tags=["director"])
def get_publish(request: Request):
    """The last publication, when the correction period ends, whether it is open; corrections made after it."""
    collector = request.app.state.collector
    return director.fold(collector.store.reader()).publication(collector.clock())


@router.get("/api/v1/export/{fmt}", tags=["director"])
def get_export(request: Request, fmt: str, section: str | None = None):
    """The scored session as PBN 2.1, USEBIO 1.2 XML or CSV (travellers, a blank line, the ranking)."""
    if fmt not in export.FORMATS:
        return _error(404, f"format: one of {', '.join(export.FORMATS)}, not {fmt!r}")
    collector = request.app.state.collector
    try:
        text = export.render(collector.store.reader(), collector.standings, fmt, section)
    except export.ExportError as e:
        return _error(409, str(e))
    ext = {"pbn": "pbn", "usebio": "xml", "csv": "csv"}[fmt]
    return Response(text, media_type=export.FORMATS[fmt],
                    headers={"Content-Disposition": f'attachment; filename="bidwire.{ext}"'})
