"""The dashboard's routes: login and logout, the director's page, the live auctions (/director/live), the closed
alerts and a board's whole auction, rulings, held results and closing alerts from the page, and the director's
adjusted scores (artificial or assigned) and procedural penalties; the pairs page (/director/pairs), where the
director fixes a pair's players. Every change goes through the collector
service (collector/service.py); these routes parse the form, call it and render. Every form carries an
idempotency key (`idem`), so a form sent twice (a retry after a lost answer) records one decision. Every
/director route needs the director's session: the scorer's login gets 403 there (auth.py, roles). The pages'
live updates: stream.py."""
import logging
import secrets
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from bidwire_host.auth import LOGIN_COOKIE, SESSION_COOKIE, form_refused, same_token
from bidwire_host.collector import bounds, event_setup, roster
from bidwire_host.collector.apiauth import client_of
from bidwire_host.collector.decisions.journal import ActionError
from bidwire_host.collector.deps import Service
from bidwire_host.collector.service import Refused
from bidwire_host.dashboard import clock, queries
from bidwire_host.dashboard import fragments as frag
from bidwire_host.dashboard.fragments import templates
from bidwire_host.dashboard.scorer import event_head, teams_views

log = logging.getLogger("bidwire.dashboard")
router = APIRouter(include_in_schema=False)


def _auth(request):
    return request.app.state.auth


def _login_page(request, error="", status=200, headers=None):
    token = secrets.token_urlsafe(24)
    page = templates.TemplateResponse(request, "login.html", {"csrf": token, "error": error,
                                                              "enabled": _auth(request).enabled,
                                                              "roles": list(_auth(request).hashes)},
                                      status_code=status, headers=headers)
    page.set_cookie(LOGIN_COOKIE, token, max_age=1800, httponly=True, samesite="strict", path="/login")
    return page


def _forbidden_or_login(request):
    """No director session: a scorer is refused (403), anyone else is sent to the login page."""
    if _auth(request).session(request) is not None:
        return Response("Forbidden: the director's pages need the director's login (this is the scorer's).",
                        status_code=403)
    return RedirectResponse("/login", status_code=303)


HOME = {"director": "/director", "scorer": "/scorer"}


@router.get("/", response_class=HTMLResponse)
def home(request: Request):
    session = _auth(request).session(request)
    return RedirectResponse(HOME[session["role"]] if session else "/login", status_code=303)


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request):
    return _login_page(request)


@router.post("/login")
async def login(request: Request):
    form = await request.form()
    address = client_of(request)
    if not same_token(form.get("csrf"), request.cookies.get(LOGIN_COOKIE)):
        log.warning("login refused from %s: the form's CSRF token is missing or stale", address)
        return _login_page(request, "The form had expired: please sign in again.", 403)
    auth = _auth(request)
    asked = str(form.get("role", ""))  # the login page's choice; without one, any role with a password
    if asked and asked not in auth.hashes:
        return _login_page(request, f"role: one of {', '.join(auth.hashes) or 'none (no password set)'}.", 400)
    roles = (asked,) if asked else tuple(auth.hashes) or ("director",)
    wait = auth.limiter.begin(address, roles)  # counted as it starts: logins sent at once are limited too
    if wait:  # refused before the password is even looked at
        log.warning("login refused from %s: too many wrong passwords, %d s to wait", address, wait)
        return _login_page(request, f"Too many wrong passwords from this device: try again in {wait} s.", 429,
                           {"Retry-After": str(wait)})
    role = await auth.verify(str(form.get("password", "")))
    if role is None or role not in roles:
        n = auth.limiter.count(address, roles)
        log.warning("login refused from %s: wrong password (%d in a row)", address, n)
        return _login_page(request, "Wrong password.", 401)
    auth.limiter.succeeded(address, role, roles)  # its own role's count only: a scorer forgives no director guess
    log.info("login from %s as %s", address, role)
    cookie, _ = auth.new_session(role)
    response = RedirectResponse(HOME[role], status_code=303)
    # Secure when the browser came over https: the scheme is believed from X-Forwarded-Proto only when the peer is a
    # proxy the operator named (--forwarded-allow-ips; uvicorn's proxy headers), else it is the connection's own
    response.set_cookie(SESSION_COOKIE, cookie, max_age=auth.cookie_max_age, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")
    response.delete_cookie(LOGIN_COOKIE, path="/login")
    return response


@router.post("/logout")
async def logout(request: Request, service: Service):
    session = _auth(request).session(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return form_refused(request)
    _auth(request).logout(session)  # revoked: the cookie and its CSRF token open nothing any more
    service.changes.publish({"revoked": session["sid"]})  # its live streams end now
    log.info("logout from %s (%s)", client_of(request), session["role"])
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


def _director(request, session, error="", form=None, status=200):
    service = request.app.state.service
    q = request.query_params
    state = "closed" if q.get("state") == "closed" else "open"
    try:
        page = max(1, int(q.get("page") or 1))
    except ValueError:
        page = 1
    parts = frag.director(service, session, state, page)
    flash = {"ruled": q.get("ruled", ""), "done": q.get("done", "")}
    return templates.TemplateResponse(request, "director.html",
                                      dict(parts, csrf=session["csrf"], fragments=parts, flash=flash, error=error,
                                           form=form or {}, idem=secrets.token_urlsafe(16), state=state, page=page,
                                           hub=service.hub_status(), provisioned=service.keyring.units(),
                                           teams=teams_views(service), **_head(service)),
                                      status_code=status)


def _head(service):
    """What every director's page heads with: the event's name and date, and the club's time zone."""
    s = event_setup.load(service.store.reader())
    return {"event": event_head(s), "tz": clock.zone(s)}


@router.get("/director", response_class=HTMLResponse)
def director_page(request: Request):
    session = _auth(request).director(request)
    if session is None:
        return _forbidden_or_login(request)
    return _director(request, session)


@router.get("/director/live", response_class=HTMLResponse)
def live_page(request: Request, service: Service):
    """The live auctions: the calls at every table as they are made (vugraph-style), over the same event stream."""
    session = _auth(request).director(request)
    if session is None:
        return _forbidden_or_login(request)
    parts = frag.live(service)
    return templates.TemplateResponse(request, "live.html", dict(parts, csrf=session["csrf"], fragments=parts,
                                                                 **_head(service)))


@router.get("/director/boards/{board_id}", response_class=HTMLResponse)
def board_page(request: Request, service: Service, board_id: int):
    """One play of a board at a table: its whole auction (an alert's diagram shows only the last calls)."""
    session = _auth(request).director(request)
    if session is None:
        return _forbidden_or_login(request)
    conn = service.store.reader()
    b = conn.execute("SELECT * FROM boards WHERE id = ?", (board_id,)).fetchone() if 0 < board_id < 2**62 else None
    if b is None:
        return Response(f"no board {board_id}", status_code=404)
    made = queries.calls(conn, b["unit"], b["start_seq"], b["board"])
    return templates.TemplateResponse(request, "board.html", {"b": dict(b), "auction": queries.diagram(b["dealer"],
                                                                                                         made),
                                                              **_head(service)})


def _int(form, name, required=True):
    """A form's whole number, within 64 bits (a `seq` of 10^20 was a 500: issue 24.7)."""
    text = str(form.get(name) or "").strip()
    if not text and not required:
        return None
    try:
        return bounds.form_integer(text, name)
    except bounds.BoundsError as e:
        raise ActionError(str(e)) from None


async def _decision(request, session, form, kind, body):
    """A director's decision through the service; None when recorded, else the page with the reason."""
    try:
        await request.app.state.service.decide(kind, body, str(form.get("idem") or "") or None)
    except Refused as e:
        return await run_in_threadpool(_director, request, session, e.reason, dict(form), e.status)
    return None


def _checked_form(request, form):
    session = _auth(request).director(request)
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return None
    return session


ARTIFICIAL = ("A+", "A", "A-")


def adjust_body(form, by):
    """The body of decisions.scores.adjust from an adjusted-score form: `kind` "artificial" (ns and ew: A+, A or A-,
    Law 12 C) or "assigned" (score_ns, NS's view, and score_ew only if it is not the balancing score: Law 12 C1)."""
    body = {"section": str(form.get("section") or "").strip() or None, "table": _int(form, "table"),
            "board": _int(form, "board"), "reason": str(form.get("reason") or "").strip()[:500], "by": by,
            "override": form.get("override") == "on"}
    kind = str(form.get("kind") or "artificial")
    if kind == "assigned":
        body["score_ns"] = _int(form, "score_ns")
        body["score_ew"] = _int(form, "score_ew", required=False)
    elif kind == "artificial":
        body["ns"], body["ew"] = str(form.get("ns", "")), str(form.get("ew", ""))
        if body["ns"] not in ARTIFICIAL or body["ew"] not in ARTIFICIAL:
            raise ActionError("ns and ew: A+, A or A- (Law 12 C)")
    else:
        raise ActionError(f"kind: artificial or assigned, not {kind!r}")
    return body


async def _form_decision(request, kind, parse, done):
    """A decision from one of the page's forms: the session and its CSRF token, the form parsed by `parse(form)`
    into the decision's body (ActionError: the page again with the reason), the service's decision, the page."""
    form = await request.form()
    session = _checked_form(request, form)
    if session is None:
        return form_refused(request)
    try:
        body = parse(form)
    except ActionError as e:
        return await run_in_threadpool(_director, request, session, str(e), dict(form), 400)
    refused = await _decision(request, session, form, kind, body)
    return refused or RedirectResponse(done, status_code=303)


@router.post("/director/adjust")
async def adjust(request: Request):
    """An adjusted score for one board at one table, from the page's form: artificial (A+, A, A-: Law 12 C) or
    assigned (NS's score, and EW's when it does not balance)."""
    return await _form_decision(request, "adjust",
                                lambda form: adjust_body(form, str(form.get("by") or "").strip()[:100] or "director"),
                                "/director?done=adjust#audit-h")


def entry_body(form, by):
    """The body of decisions.results.enter from the page's "Enter a result" form."""
    tricks = str(form.get("tricks") or "").strip()
    return {"section": str(form.get("section") or "").strip() or None, "table": _int(form, "table"),
            "board": _int(form, "board"), "contract": str(form.get("contract") or "").strip()[:8],
            "declarer": str(form.get("declarer") or "").strip().upper()[:1] or None,
            "tricks": _int(form, "tricks") if tricks else None,
            "lead": str(form.get("lead") or "").strip().upper()[:1] or None,
            "ns": str(form.get("ns") or "").strip()[:8] or None, "ew": str(form.get("ew") or "").strip()[:8] or None,
            "reason": str(form.get("reason") or "").strip()[:500], "by": by, "override": form.get("override") == "on"}


@router.post("/director/result")
async def enter_result(request: Request):
    """A result the director enters for a table and board (decisions.results.enter), from the page's form."""
    return await _form_decision(request, "enter",
                                lambda form: entry_body(form, str(form.get("by") or "").strip()[:100] or "director"),
                                "/director?done=result#audit-h")


def table_body(form, by):
    """The body of the `table` decision (collector/spare_units.py) from the page's "Give a table" form."""
    unit = str(form.get("unit") or "").strip()
    if not unit or len(unit) > 32:
        raise ActionError("unit: the provisioned unit's id (e.g. T09)")
    return {"unit": unit, "section": str(form.get("section") or "").strip()[:8] or None, "table": _int(form, "table"),
            "reason": str(form.get("reason") or "").strip()[:500], "by": by}


@router.post("/director/table")
async def give_table(request: Request):
    """A table given to a unit (a spare for a dead unit), from the page's form."""
    return await _form_decision(request, "table", lambda form: table_body(form, "director"),
                                "/director?done=table#rounds-h")


def _board_at_table(form):
    return {"section": str(form.get("section") or "").strip()[:8] or None, "table": _int(form, "table"),
            "board": _int(form, "board"), "by": "director"}


@router.post("/director/not-played")
async def not_played(request: Request):
    """A board a table did not play: the event's evening.not_played adjusted score (Law 12 C), from the Rounds
    panel; the round goes on."""
    return await _form_decision(request, "adjust", lambda form: dict(_board_at_table(form), not_played=True),
                                "/director?done=adjust#rounds-h")


@router.post("/director/late")
async def late_play(request: Request):
    """A board a table has not played, to be played late at the same table (late_play.py), from the Rounds panel."""
    return await _form_decision(request, "late", lambda form: dict(
        _board_at_table(form), at_table=_int(form, "at_table", required=False)), "/director?done=late#rounds-h")


@router.post("/director/draw")
async def push_draw(request: Request):
    """A Swiss's next draw pushed to the tables, from the Teams panel: the rule's draw as the page gives it, or
    the director's own ("1-3, 5-2, 6-4": home team first): decisions.draws.draw."""
    return await _form_decision(request, "draw", lambda form: {
        "section": str(form.get("section") or "").strip()[:8] or None, "round": _int(form, "round"),
        "matches": draw_matches(str(form.get("matches") or "")), "repeats_ok": form.get("repeats_ok") == "on",
        "reason": str(form.get("reason") or "").strip()[:500], "by": "director"}, "/director?done=draw#teams-h")


def draw_matches(text):
    """ "1-3, 5-2, 6-4" as [[1, 3], [5, 2], [6, 4]] (home team first)."""
    out = []
    for part in (p.strip() for p in text.replace(";", ",").split(",")):
        if not part:
            continue
        home, sep, away = part.partition("-")
        if not sep or not home.strip().isdecimal() or not away.strip().isdecimal() or len(part) > 20:
            raise ActionError(f"matches: {part[:20]!r} is not a match: home team, -, away team (e.g. 1-3)")
        out.append([int(home), int(away)])
    if not out or len(out) > 50:
        raise ActionError("matches: the round's matches, home team first: 1-3, 5-2, 6-4")
    return out


@router.post("/director/seated")
async def record_seated(request: Request):
    """Who really sat at a table in a round (a wrong pair's alert), from the alert's form: decisions.players.seated."""
    return await _form_decision(request, "seated", lambda form: {
        "section": str(form.get("section") or "").strip()[:8] or None, "table": _int(form, "table"),
        "round": _int(form, "round"), "ns": str(form.get("ns") or "").strip()[:8] or None,
        "ew": str(form.get("ew") or "").strip()[:8] or None, "by": "director"}, "/director?done=seated#audit-h")


@router.post("/director/rounds")
async def start_round(request: Request):
    """Start a round now for a section, or one table of it (the page's buttons): setup.start_round."""
    form = await request.form()
    session = _checked_form(request, form)
    if session is None:
        return form_refused(request)
    service = request.app.state.service
    try:
        if form.get("all"):  # every section on to its own next round
            for sec in queries.rounds(service.store.reader())["sections"]:
                if sec["next"] is not None:
                    await service.start_round(sec["next"], sec["section"])
        else:
            round_no = _int(form, "round")
            table = _int(form, "table", required=False)
            bounds.integer(round_no, "round", 1, 10_000)
            await service.start_round(round_no, str(form.get("section") or "").strip()[:8] or None, None, table)
    except (ActionError, bounds.BoundsError) as e:
        return await run_in_threadpool(_director, request, session, str(e), dict(form), 400)
    except Refused as e:
        return await run_in_threadpool(_director, request, session, e.reason, dict(form), e.status)
    return RedirectResponse("/director?done=round#rounds-h", status_code=303)


def penalty_body(form):
    body = {"section": str(form.get("section") or "").strip() or None,
            "direction": str(form.get("direction") or "") or None, "pair": str(form.get("pair") or "").strip(),
            "amount": str(form.get("amount") or "").strip(), "unit": str(form.get("unit") or "") or None,
            "kind": "disciplinary" if form.get("kind") == "disciplinary" else "procedural",
            "reason": str(form.get("reason") or "")[:500], "board": _int(form, "board", required=False),
            "by": str(form.get("by") or "").strip()[:100] or "director",
            "override": form.get("override") == "on"}
    if not body["pair"]:
        raise ActionError("pair: which pair (its number)")
    return body


@router.post("/director/penalty")
async def penalty(request: Request):
    """A procedural penalty (Law 90) against a pair, from the page's form: deducted from its total."""
    return await _form_decision(request, "penalty", penalty_body, "/director?done=penalty#audit-h")


@router.post("/director/rulings")
async def ruling(request: Request, service: Service):
    """The director's ruling on an open irregularity: a `ruling` command naming it, queued for the unit; 409 with
    the reason on the page if it is no longer open."""
    form = await request.form()
    session = _checked_form(request, form)
    if session is None:
        return form_refused(request)
    unit, choice = str(form.get("unit", "")), str(form.get("ruling", ""))
    try:
        seq = bounds.form_integer(form.get("seq", ""), "seq", 1)
    except bounds.BoundsError as e:
        return _director(request, session, str(e), dict(form), 400)
    try:
        await service.rule(unit, seq, choice, str(form.get("idem") or "") or None)
    except Refused as e:
        return await run_in_threadpool(_director, request, session, f"ruling not sent: {e.reason}", dict(form),
                                       e.status)
    return RedirectResponse(f"/director?ruled={unit}", status_code=303)


def held_body(form):
    return {"unit": str(form.get("unit", "")), "seq": _int(form, "seq"), "decision": str(form.get("decision") or ""),
            "section": str(form.get("section") or "").strip() or None,
            "table": _int(form, "table", required=False), "board": _int(form, "board", required=False),
            "ns": str(form.get("ns") or "").strip() or None, "ew": str(form.get("ew") or "").strip() or None,
            "reason": str(form.get("reason") or "").strip()[:500], "by": "director",
            "override": form.get("override") == "on"}


@router.post("/director/held")
async def held(request: Request):
    """The director's decision on a held result: accept it as played (credited as the form says) or void it."""
    return await _form_decision(request, "resolve", held_body, "/director?done=held#alerts-h")


def lead_body(form):
    """The body of decisions.leads.lead from a lead restriction's buttons: `choice` "bar:S", "require:S" or
    "waive"."""
    choice, _, suit = str(form.get("choice") or "").partition(":")
    return {"alert": str(form.get("alert") or ""), "choice": choice, "suit": suit or None, "by": "director"}


@router.post("/director/lead")
async def lead(request: Request):
    """Declarer's choice at a Law 26 lead restriction (decisions.leads): recorded, and sent to the leader's unit."""
    return await _form_decision(request, "lead", lead_body, "/director?done=lead#alerts-h")


@router.post("/director/close")
async def close(request: Request):
    """The director closes an alert (dealt with), with an optional note."""
    return await _form_decision(request, "close", lambda form: {
        "alert": str(form.get("alert") or ""), "note": str(form.get("note") or "").strip()[:500], "by": "director"},
        "/director?done=close#alerts-h")


def _pairs(request, session, error="", status=200, done=""):
    """The pairs page: each pair's effective players (roster.py) and a form to fix them."""
    service = request.app.state.service
    conn = service.store.reader()
    s = service.standings.setup
    fixed = roster.fixes(conn)
    sections = []
    for sec in (s.event.session(s.session).sections if s is not None else []):
        found = roster.players(conn, s, sec.name, fixed)
        rows = []
        for who, pl in found.items():
            direction, pair = who if isinstance(who, tuple) else (None, who)
            rows.append({"label": f"{direction} {pair}" if direction else f"pair {pair}", "direction": direction,
                         "pair": pair, "players": pl, "fixed": fixed.get((sec.name, who)),
                         "fixable": not sec.is_teams, "idem": secrets.token_urlsafe(16)})
        sections.append((sec.name, rows))
    return templates.TemplateResponse(request, "pairs.html", {"csrf": session["csrf"], "sections": sections,
                                                              "error": error, "done": done, **_head(service)},
                                      status_code=status)


@router.get("/director/pairs", response_class=HTMLResponse)
def pairs_page(request: Request):
    session = _auth(request).director(request)
    if session is None:
        return _forbidden_or_login(request)
    return _pairs(request, session, done=str(request.query_params.get("done") or "")[:40])


def players_body(form):
    """The body of decisions.players.players from the pairs page's form: two players, each a name and an optional
    number."""
    return {"section": str(form.get("section") or "").strip() or None,
            "direction": str(form.get("direction") or "").strip() or None, "pair": str(form.get("pair") or "").strip(),
            "players": [{"name": str(form.get(f"name{k}") or "").strip(),
                         "id": str(form.get(f"id{k}") or "").strip() or None} for k in (0, 1)],
            "reason": str(form.get("reason") or "").strip()[:500], "by": "director",
            "override": form.get("override") == "on"}


@router.post("/director/players")
async def fix_players(request: Request, service: Service):
    """The director fixes a pair's players (decisions.players.players): recorded with the players it replaces."""
    form = await request.form()
    session = _checked_form(request, form)
    if session is None:
        return form_refused(request)
    body = players_body(form)
    try:
        await service.decide("players", body, str(form.get("idem") or "") or None)
    except Refused as e:
        return await run_in_threadpool(_pairs, request, session, e.reason, e.status)
    who = f"{body['direction']} {body['pair']}" if body["direction"] else f"pair {body['pair']}"
    return RedirectResponse(f"/director/pairs?done={quote(who)}", status_code=303)
