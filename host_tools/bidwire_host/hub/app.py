"""The hub's web app: the organiser's API and pages, the clubs' uploads, the public pages (docs/hub.md).

Stateless: every request reads the database through the worker's pool, so any number of workers serve one hub.
The only thing a worker keeps is a cache of the scored field, keyed on the sim's `changes` counter, which every
change of the field bumps in the same transaction; a worker that has not seen a change scores again.
"""
import hmac
import json
import os
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import psycopg
from fastapi import Depends, FastAPI, File, Form, Header, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from itsdangerous import BadSignature, URLSafeTimedSerializer
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from bidwire.core import board as core_board
from bidwire_host.event import analysis
from bidwire_host.formats.pbn import PbnError, parse_deal
from bidwire_host.formats.pbn_import import load as load_pbn
from bidwire_host.hub import db, exports, field, records, signing, usebio_in
from bidwire_host.hub.inputs import ClubRegistration, OrganiserCorrection, SimChange, SimSetup, Upload
from bidwire_host.hub.records import Refused
from bidwire_host.scoring.model import format_number

MAX_BODY = 2_000_000  # bytes of one upload: 2,000 results fit in well under a third of it
COOKIE = "bidwire_hub"
RESCORE_EVERY = 0.5  # seconds: how stale a served ranking may be while uploads stream in (docs/hub.md)
TEMPLATES = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
TEMPLATES.env.globals["zip"] = zip


def _now():
    return datetime.now(UTC)


def _errors(e: ValidationError):
    """Pydantic's errors without the values sent (a reply never echoes a body): field path and reason."""
    return [{"field": ".".join(str(p) for p in err["loc"]), "reason": err["msg"]} for err in e.errors()]


class Hub:
    def __init__(self, dsn, organiser_password):
        self.dsn = dsn
        self.password = organiser_password
        self.pool = db.pool(dsn)
        self._fields = {}  # sim id -> (changes, Field)
        self._scoring = threading.Lock()
        self._pages = {}  # (page, sim id, ...) -> (Field, html)
        with self.pool.connection() as conn:
            self.cookies = URLSafeTimedSerializer(records.hub_secret(conn), salt="organiser")

    def field(self, conn, sim):
        """The scored field as of `sim["changes"]`, or as of at most RESCORE_EVERY ago. One request at a time
        rescores it in this worker; while one does, the others are served the field it replaces, so readers
        never queue behind a rescoring, and a stream of uploads costs one rescoring per RESCORE_EVERY, not one
        per read."""
        cached = self._fields.get(sim["id"])
        if cached is not None and (cached[0] == sim["changes"] or time.monotonic() - cached[2] < RESCORE_EVERY):
            return cached[1]
        if not self._scoring.acquire(blocking=cached is None):
            return cached[1]
        try:
            again = self._fields.get(sim["id"])
            if again is not None and again[0] >= sim["changes"]:
                return again[1]
            changes = conn.execute("SELECT changes FROM sims WHERE id = %s", (sim["id"],)).fetchone()[0]
            scored = field.score(sim, records.results(conn, sim["id"]))
            scored.version = changes
            self._fields[sim["id"]] = (changes, scored, time.monotonic())
            return scored
        finally:
            self._scoring.release()

    def page(self, key, f, render):
        """A public page's HTML, rendered once per scored field per worker (200 readers of one ranking page
        cost one rendering); `key` names the page, `f` is the field it shows."""
        hit = self._pages.get(key)
        if hit is not None and hit[0] is f:
            return hit[1]
        html = render()
        self._pages[key] = (f, html)
        return html


def create_app(dsn=None, organiser_password=None):
    dsn = dsn or os.environ["BIDWIRE_HUB_DSN"]
    if organiser_password is None:
        organiser_password = Path(os.environ["BIDWIRE_HUB_PASSWORD_FILE"]).read_text(encoding="utf-8").strip()
    hub = Hub(dsn, organiser_password)
    app = FastAPI(title="bidwire hub", docs_url=None, redoc_url=None)
    app.state.hub = hub

    @app.exception_handler(Refused)
    async def refused(request, exc: Refused):
        return JSONResponse({"reason": exc.reason, "field": exc.field}, status_code=exc.status)

    @app.exception_handler(psycopg.OperationalError)
    async def database_down(request, exc):
        return JSONResponse({"reason": "the hub's database is unreachable: try again"}, status_code=503,
                            headers={"Retry-After": "2"})

    def password_ok(request, given):
        """The organiser's password, checked in constant time; wrong ones are counted per client address in the
        database (every worker sees them) and an address with LOGIN_TRIES of them in the window waits."""
        source = request.client.host if request.client else "?"
        with hub.pool.connection() as conn:
            if records.login_blocked(conn, source):
                raise Refused(429, "too many wrong passwords from this address: try again in 10 minutes",
                              "password")
            if hmac.compare_digest(given.encode(), hub.password.encode()):
                return True
            records.login_failed(conn, source)
        return False

    def organiser(request: Request, authorization: str | None = Header(default=None)):
        """The organiser: a bearer password (API) or the signed session cookie (pages)."""
        if authorization and authorization.startswith("Bearer "):
            if password_ok(request, authorization[7:]):
                return True
        cookie = request.cookies.get(COOKIE)
        if cookie:
            try:
                hub.cookies.loads(cookie, max_age=12 * 3600)
                return True
            except BadSignature:
                pass
        raise HTTPException(401, "organiser login needed")

    def is_organiser(request: Request):
        """Whether the request is the organiser's (a page's cookie or the API's password), without refusing it."""
        try:
            return organiser(request, request.headers.get("authorization"))
        except (HTTPException, Refused):
            return False

    def released(sim):
        return _now() >= sim["release_at"]

    # ---- organiser -------------------------------------------------------------------------------------
    @app.post("/api/v1/sims", status_code=201, dependencies=[Depends(organiser)])
    def create_sim(setup: SimSetup):
        hands, worked = {}, {}
        hand_set = analysis.deal_session(setup.boards, setup.deal_seed) if setup.deal else setup.hands_pbn
        if hand_set:
            try:
                records_in = load_pbn(hand_set).hands
            except PbnError as e:
                raise Refused(422, f"hands_pbn: {e}", "hands_pbn") from None
            hands = {b: h.deal.pbn() for b, h in records_in.items() if h.deal is not None}
            worked = analysis.tables({b: h for b, h in records_in.items() if b in setup.boards})
        with hub.pool.connection() as conn:
            records.create_sim(conn, setup, hands, worked)
        return {"id": setup.id}

    @app.patch("/api/v1/sims/{sim_id}", dependencies=[Depends(organiser)])
    def change_sim(sim_id: str, change: SimChange):
        with hub.pool.connection() as conn:
            records.change_sim(conn, sim_id, change)
        return {"id": sim_id}

    @app.get("/api/v1/sims/{sim_id}/hands.pbn", dependencies=[Depends(organiser)])
    def hand_set(sim_id: str):
        """The sim's hand set as PBN, for the organiser to send the clubs (they duplicate the boards from it)."""
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
        if not sim["hands"]:
            raise Refused(404, "the sim has no hand set", "sim")
        out, event = [], sim["name"].replace("\\", "\\\\").replace('"', '\\"')  # a PBN string's escapes
        for b in sim["boards"]:
            deal = sim["hands"].get(str(b))
            if deal:
                out.append(f'[Event "{event}"]\n[Board "{b}"]\n[Dealer "{"NESW"[core_board.dealer(b)]}"]\n'
                           f'[Vulnerable "{core_board.VUL_NAMES[core_board.vulnerability(b)]}"]\n[Deal "{deal}"]\n')
        return Response("\n".join(out), media_type="application/x-pbn; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{sim_id}-hands.pbn"'})

    @app.post("/api/v1/sims/{sim_id}/clubs", status_code=201, dependencies=[Depends(organiser)])
    def register_club(sim_id: str, club: ClubRegistration):
        with hub.pool.connection() as conn:
            secret = records.register_club(conn, sim_id, club)
        return {"id": club.id, "secret": secret}

    @app.get("/api/v1/sims/{sim_id}/progress", dependencies=[Depends(organiser)])
    def progress(sim_id: str):
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
            clubs = records.clubs(conn, sim_id)
            f = hub.field(conn, sim)
        return {"sim": sim_id, "changes": sim["changes"], "released": released(sim),
                "clubs": [{"id": c["club_id"], "name": c["name"], "results": c["results"], "boards": c["boards"],
                           "started": c["results"] > 0} for c in clubs],
                "clubs_started": sum(1 for c in clubs if c["results"]), "results": f.results,
                "ranking_changes": f.version,  # the ranking is as of this many changes (RESCORE_EVERY)
                "ranking": [_standing(e) for e in f.ranking]}

    @app.post("/api/v1/sims/{sim_id}/corrections", dependencies=[Depends(organiser)])
    def correct(sim_id: str, fix: OrganiserCorrection):
        """The organiser sets one club's result, with the reason (after the correction period, the only way)."""
        with hub.pool.connection() as conn:
            version = records.organiser_correct(conn, sim_id, fix)
        return {"version": version, "changed": version is not None}

    @app.get("/api/v1/sims/{sim_id}/audit", dependencies=[Depends(organiser)])
    def audit(sim_id: str):
        with hub.pool.connection() as conn:
            records.sim(conn, sim_id)
            rows = records.audit(conn, sim_id)
        return [{"id": r["id"], "at": r["at"].isoformat(), "by": r["by"], "what": r["what"], "detail": r["detail"]}
                for r in rows]

    # ---- clubs -----------------------------------------------------------------------------------------
    @app.post("/api/v1/upload")
    async def upload(request: Request):
        club_id = request.headers.get(signing.HEADER_CLUB, "")
        signature = request.headers.get(signing.HEADER_SIGNATURE, "")
        body = await _body(request, MAX_BODY)
        try:
            sim_id = json.loads(body).get("sim")
        except (ValueError, AttributeError):
            raise Refused(422, "the body is not a JSON object", "body") from None
        if not isinstance(sim_id, str) or len(sim_id) > 40:
            raise Refused(422, "sim: the sim's id", "sim")
        return await run_in_threadpool(_take, sim_id, club_id, signature, body)  # the pool blocks

    def _take(sim_id, club_id, signature, body):
        with hub.pool.connection() as conn:
            secret = records.club_secret(conn, sim_id, club_id) if len(club_id) <= 32 else None
            if secret is None or not signing.valid(body, secret, signature):
                raise Refused(401, f"{signing.HEADER_SIGNATURE}: not signed by a club of this sim", "signature")
            try:
                up = Upload.model_validate_json(body)
            except ValidationError as e:
                return JSONResponse({"reason": "the upload does not parse", "errors": _errors(e)}, status_code=422)
            if up.club != club_id:
                raise Refused(403, f"club: club {club_id} cannot upload for club {up.club}", "club")
            status, n = records.store_upload(conn, up, signing.digest(body))
        return {"upload": up.upload, "stored": n, "again": status == "again"}

    async def _body(request, limit):
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise Refused(413, f"a file is at most {limit} bytes", "file")
        return bytes(body)

    def _heat(sim_id, club_id, data):
        """A USEBIO heat from a club whose secret was checked: parsed, then replacing the club's results."""
        results = usebio_in.parse(data)
        with hub.pool.connection() as conn:
            status, n, withdrawn = records.replace_heat(conn, sim_id, club_id, results, signing.digest(data))
        return {"stored": n, "withdrawn": withdrawn, "again": status == "again"}

    @app.post("/api/v1/sims/{sim_id}/usebio")
    async def upload_usebio(sim_id: str, request: Request):
        """A club that does not use bidwire: its whole heat as a USEBIO file, the body signed as an upload is."""
        club_id = request.headers.get(signing.HEADER_CLUB, "")
        signature = request.headers.get(signing.HEADER_SIGNATURE, "")
        data = await _body(request, usebio_in.MAX_BYTES)
        return await run_in_threadpool(_signed_heat, sim_id, club_id, signature, data)

    def _signed_heat(sim_id, club_id, signature, data):
        with hub.pool.connection() as conn:
            records.sim(conn, sim_id)
            secret = records.club_secret(conn, sim_id, club_id) if len(club_id) <= 32 else None
        if secret is None or not signing.valid(data, secret, signature):
            raise Refused(401, f"{signing.HEADER_SIGNATURE}: not signed by a club of this sim", "signature")
        return _heat(sim_id, club_id, data)

    @app.get("/sims/{sim_id}/upload", response_class=HTMLResponse)
    def upload_page(sim_id: str, request: Request):
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
        return TEMPLATES.TemplateResponse(request, "upload.html", {"sim": sim, "error": None, "done": None})

    @app.post("/sims/{sim_id}/upload", response_class=HTMLResponse)
    async def upload_form(sim_id: str, request: Request, file: Annotated[UploadFile, File()],
                          club: str = Form(max_length=32), secret: str = Form(max_length=200)):
        """The page form: the club's id and secret (as the organiser gave them) and the USEBIO file. Wrong
        secrets are counted per address, apart from the organiser's logins."""
        data = await file.read(usebio_in.MAX_BYTES + 1)
        return await run_in_threadpool(_form_heat, sim_id, request, club, secret, data)

    def _form_heat(sim_id, request, club, secret, data):
        source = "usebio " + (request.client.host if request.client else "?")
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
            if records.login_blocked(conn, source):
                raise Refused(429, "too many wrong secrets from this address: try again in 10 minutes", "secret")
            held = records.club_secret(conn, sim_id, club)
            try:
                given = bytes.fromhex(secret.strip())
            except ValueError:
                given = b""
            ok = held is not None and hmac.compare_digest(held, given)
            if not ok:
                records.login_failed(conn, source)

        def page(status, **context):
            return TEMPLATES.TemplateResponse(request, "upload.html", {"sim": sim, "error": None, "done": None,
                                                                       **context}, status_code=status)
        if not ok:
            return page(401, error="the club id and secret do not match a club of this sim")
        if len(data) > usebio_in.MAX_BYTES:
            return page(413, error=f"a USEBIO file is at most {usebio_in.MAX_BYTES} bytes")
        try:
            done = _heat(sim_id, club, data)
        except Refused as e:
            return page(e.status, error=e.reason)
        return page(200, done=done, club=club)

    # ---- public ----------------------------------------------------------------------------------------
    @app.get("/api/v1/sims/{sim_id}/release")
    def release(sim_id: str):
        """Whether the sim's hands and frequencies may be shown: what a club collector asks before it shows them."""
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
        return {"sim": sim_id, "released": released(sim), "release_at": sim["release_at"].isoformat(),
                "boards": sim["boards"]}

    @app.get("/api/v1/sims/{sim_id}/results")
    def results(sim_id: str, request: Request):
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
            if not released(sim) and not is_organiser(request):
                raise Refused(403, f"embargoed until {sim['release_at'].isoformat()}", "sim")
            f = hub.field(conn, sim)
        return {"sim": sim_id, "name": sim["name"], "ranking": [_standing(e) for e in f.ranking],
                "boards": {str(b): [_plain(r) for r in rows] for b, rows in f.boards.items()}}

    @app.get("/api/v1/sims/{sim_id}/export.pbn")
    def export_pbn(sim_id: str, request: Request):
        sim, rows = _released_rows(sim_id, request)
        return Response(exports.pbn(sim, rows), media_type="application/x-pbn; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{sim_id}.pbn"'})

    @app.get("/api/v1/sims/{sim_id}/export.xml")
    def export_usebio(sim_id: str, request: Request):
        sim, rows = _released_rows(sim_id, request)
        return Response(exports.usebio_xml(sim, rows), media_type="application/xml; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{sim_id}.xml"'})

    def _released_rows(sim_id, request):
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
            if not released(sim) and not is_organiser(request):
                raise Refused(403, f"embargoed until {sim['release_at'].isoformat()}", "sim")
            rows = records.results(conn, sim_id)
        if not rows:
            raise Refused(409, "no result in yet", "sim")
        return sim, rows

    @app.get("/healthz")
    def healthz():
        with hub.pool.connection() as conn:
            conn.execute("SELECT 1")
        return {"ok": True, "pid": os.getpid()}

    # ---- pages -----------------------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request):
        with hub.pool.connection() as conn:
            all_sims = records.sims(conn)
        return TEMPLATES.TemplateResponse(request, "index.html", {"sims": all_sims, "now": _now()})

    @app.get("/sims/{sim_id}", response_class=HTMLResponse)
    def sim_page(sim_id: str, request: Request):
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
            shown = released(sim) or is_organiser(request)
            f = hub.field(conn, sim) if shown else None
            names = records.club_names(conn, sim_id) if shown else {}
        context = {"sim": sim, "field": f, "shown": shown, "pct": _pct, "club_names": names}
        if f is None:
            return TEMPLATES.TemplateResponse(request, "sim.html", context)
        return HTMLResponse(hub.page(("sim", sim_id, sim["name"], sim["release_at"]), f,
                                     lambda: TEMPLATES.get_template("sim.html").render(context)))

    @app.get("/sims/{sim_id}/boards/{board}", response_class=HTMLResponse)
    def board_page(sim_id: str, board: int, request: Request):
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
            if board not in sim["boards"]:
                raise Refused(404, f"board {board} is not in sim {sim_id}", "board")
            shown = released(sim) or is_organiser(request)
            f = hub.field(conn, sim) if shown else None
        def context():
            rows = f.boards.get(board, []) if f else []
            deal = sim["hands"].get(str(board)) if shown else None
            return {"sim": sim, "board": board, "shown": shown, "rows": rows, "pct": _pct,
                    "freq": field.frequencies(rows), "hands": parse_deal(deal).hands if deal else None,
                    "worked": sim["analysis"].get(str(board)) if shown else None,
                    "dealer": "NESW"[core_board.dealer(board)],
                    "vul": ("None", "NS", "EW", "Both")[core_board.vulnerability(board)]}
        if f is None:
            return TEMPLATES.TemplateResponse(request, "board.html", context())
        return HTMLResponse(hub.page(("board", sim_id, board, sim["name"]), f,
                                     lambda: TEMPLATES.get_template("board.html").render(context())))

    @app.get("/sims/{sim_id}/pairs/{club}/{section}/{direction}/{number}", response_class=HTMLResponse)
    def pair_page(sim_id: str, club: str, section: str, direction: str, number: str, request: Request):
        """A pair's card: every board it played, its opponents, the contract, the score and its percentage."""
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
            if not (released(sim) or is_organiser(request)):
                raise Refused(403, f"embargoed until {sim['release_at'].isoformat()}", "sim")
            f = hub.field(conn, sim)
        entry = next((e for e in f.ranking if (e["pair"].club, e["pair"].section, e["pair"].direction,
                                               e["pair"].number) == (club, section, direction, number)), None)
        if entry is None:
            raise Refused(404, "no such pair in the field", "pair")
        key = "ns" if direction == "NS" else "ew"
        card = [(b, r) for b, rows in sorted(f.boards.items()) for r in rows
                if r["club"] == club and r["section"] == section and r[key] == number]
        with hub.pool.connection() as conn:
            club_name = records.club_names(conn, sim_id).get(club, club)
        return TEMPLATES.TemplateResponse(request, "pair.html", {"sim": sim, "entry": entry, "card": card,
                                                                 "direction": direction, "pct": _pct,
                                                                 "club_name": club_name})

    @app.get("/organiser/login", response_class=HTMLResponse)
    def login_page(request: Request):
        return TEMPLATES.TemplateResponse(request, "login.html", {"error": None})

    @app.post("/organiser/login")
    def login(request: Request, password: str = Form(max_length=200)):
        if not password_ok(request, password):
            return TEMPLATES.TemplateResponse(request, "login.html", {"error": "wrong password"}, status_code=401)
        r = RedirectResponse("/", status_code=303)
        secure = request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https"
        r.set_cookie(COOKIE, hub.cookies.dumps("organiser"), httponly=True, samesite="strict", secure=secure)
        return r

    @app.get("/organiser/sims/{sim_id}", response_class=HTMLResponse)
    def organiser_page(sim_id: str, request: Request):
        if not is_organiser(request):
            return RedirectResponse("/organiser/login", status_code=303)
        with hub.pool.connection() as conn:
            sim = records.sim(conn, sim_id)
        return TEMPLATES.TemplateResponse(request, "organiser.html", {"sim": sim})

    return app


def _pct(value):
    return "" if value is None else f"{float(value):.2f}"


def _plain(r):
    """A traveller row for JSON: matchpoints and percentages as numbers rounded to 2 decimals (format_number)."""
    return {k: (format_number(v) if k in ("mp_ns", "mp_ew", "top", "pct_ns", "pct_ew") else v) for k, v in r.items()}


def _standing(e):
    p = e["pair"]
    return {"rank": e["rank"], "club": p.club, "section": p.section, "pair": p.number, "direction": p.direction,
            "names": e["names"], "pct": _pct(e["pct"]), "mp": format_number(e["mp"]), "top": e["top"],
            "boards": e["boards"],
            "field": e["field"]}


def app_from_env():
    """`uvicorn --factory bidwire_host.hub.app:app_from_env`: DSN and password file from the environment."""
    return create_app()
