"""The dashboard's routes: login and logout, the director's page and the live auctions (/director/live), their
event stream, rulings from the page, and the director's adjusted scores (artificial or assigned) and procedural
penalties (with the collector's own logic: collector/director.py). Every /director route needs the director's
session: the scorer's login gets 403 there (auth.py, roles)."""
import asyncio
import json
import logging
import secrets
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from bidwire_host.collector import commands, director, setup
from bidwire_host.collector.apiauth import client_of
from bidwire_host.collector.store import StoreError
from bidwire_host.dashboard import queries
from bidwire_host.dashboard.auth import LOGIN_COOKIE, SESSION_COOKIE, SESSION_HOURS, form_refused, same_token

log = logging.getLogger("bidwire.dashboard")
router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
POLL_S = 0.5  # how often the event stream looks at the store
KEEPALIVE_S = 15


def _auth(request):
    return request.app.state.auth


def _login_page(request, error="", status=200, headers=None):
    token = secrets.token_urlsafe(24)
    page = templates.TemplateResponse(request, "login.html", {"csrf": token, "error": error,
                                                              "enabled": _auth(request).enabled},
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
    wait = auth.limiter.wait(address)
    if wait:  # refused before the password is even looked at
        log.warning("login refused from %s: too many wrong passwords, %d s to wait", address, wait)
        return _login_page(request, f"Too many wrong passwords from this device: try again in {wait} s.", 429,
                           {"Retry-After": str(wait)})
    role = await run_in_threadpool(auth.check_password, str(form.get("password", "")))
    if role is None:
        n = auth.limiter.failed(address)
        log.warning("login refused from %s: wrong password (%d in a row)", address, n)
        return _login_page(request, "Wrong password.", 401)
    auth.limiter.succeeded(address)
    log.info("login from %s as %s", address, role)
    cookie, _ = auth.new_session(role)
    response = RedirectResponse(HOME[role], status_code=303)
    response.set_cookie(SESSION_COOKIE, cookie, max_age=SESSION_HOURS * 3600, httponly=True, samesite="strict")
    response.delete_cookie(LOGIN_COOKIE, path="/login")
    return response


@router.post("/logout")
async def logout(request: Request):
    session = _auth(request).session(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return form_refused(request)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


VIEWS = {"director": ("grid", "alerts", "audit"), "live": ("live",)}


def _fragments(request, session, view="director"):
    collector = request.app.state.collector
    ctx = {"csrf": session["csrf"]}
    if view == "live":
        ctx["tables"] = queries.live(collector)
    else:
        conn = collector.store.reader()
        ctx.update(units=queries.grid(collector), alerts=queries.alerts(conn, queries.cmd_acks(collector)),
                   audit=queries.audit(conn), round_minutes=queries.ROUND_MINUTES, idle_minutes=queries.IDLE_MINUTES)
    return {name: templates.get_template(f"_{name}.html").render(ctx) for name in VIEWS[view]}, ctx


def _director(request, session, error="", form=None, status=200):
    fragments, ctx = _fragments(request, session)
    q = request.query_params
    flash = {"ruled": q.get("ruled", ""), "done": q.get("done", "")}
    return templates.TemplateResponse(request, "director.html",
                                      dict(ctx, fragments=fragments, flash=flash, error=error, form=form or {}),
                                      status_code=status)


@router.get("/director", response_class=HTMLResponse)
def director_page(request: Request):
    session = _auth(request).director(request)
    if session is None:
        return _forbidden_or_login(request)
    return _director(request, session)


@router.get("/director/live", response_class=HTMLResponse)
def live_page(request: Request):
    """The live auctions: the calls at every table as they are made (vugraph-style), over the same event stream."""
    session = _auth(request).director(request)
    if session is None:
        return _forbidden_or_login(request)
    fragments, ctx = _fragments(request, session, "live")
    return templates.TemplateResponse(request, "live.html", dict(ctx, fragments=fragments))


@router.get("/director/events")
async def director_events(request: Request, view: str = "director"):
    """Server-Sent Events: `update` with the page's fragments (the grid, alerts and audit list, or with
    `?view=live` the live auctions) as HTML whenever the store changes."""
    session = _auth(request).director(request)
    if session is None:
        return Response("Forbidden: log in as the director first.", status_code=403)
    if view not in VIEWS:
        return Response(f"view: one of {', '.join(VIEWS)}", status_code=400)
    collector = request.app.state.collector

    async def stream():
        last, quiet = None, 0.0
        while not await request.is_disconnected():
            now = await run_in_threadpool(queries.fingerprint, collector)
            if now != last:
                last, quiet = now, 0.0
                fragments, ctx = await run_in_threadpool(_fragments, request, session, view)
                open_alerts = sum(1 for a in ctx.get("alerts", ()) if a["open"])
                yield f"event: update\ndata: {json.dumps(dict(fragments, open=open_alerts))}\n\n"
            elif quiet >= KEEPALIVE_S:
                quiet = 0.0
                yield ": keep-alive\n\n"
            await asyncio.sleep(POLL_S)
            quiet += POLL_S

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _int(form, name, required=True):
    text = str(form.get(name) or "").strip()
    if not text and not required:
        return None
    try:
        return int(text)
    except ValueError:
        raise director.ActionError(f"{name}: a whole number, not {text!r}") from None


def _decision(request, session, form, action, body):
    """Store a director's decision with the collector's own logic (director.py) and reload the standings."""
    collector = request.app.state.collector
    at = collector.clock()
    try:
        collector.store.write(lambda conn: action(conn, setup.load(conn), body, at))
    except director.ActionError as e:
        return _director(request, session, str(e), dict(form), 400 if e.status == 400 else e.status)
    except StoreError as e:
        return _director(request, session, str(e), dict(form), 503)
    collector.standings.load(collector.store.reader())
    return None


def _checked_form(request, form):
    session = _auth(request).director(request)
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return None
    return session


ARTIFICIAL = ("A+", "A", "A-")


def adjust_body(form, by):
    """The body of director.adjust from an adjusted-score form: `kind` "artificial" (ns and ew: A+, A or A-,
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
            raise director.ActionError("ns and ew: A+, A or A- (Law 12 C)")
    else:
        raise director.ActionError(f"kind: artificial or assigned, not {kind!r}")
    return body


@router.post("/director/adjust")
async def adjust(request: Request):
    """An adjusted score for one board at one table, from the page's form: artificial (A+, A, A-: Law 12 C) or
    assigned (NS's score, and EW's when it does not balance)."""
    form = await request.form()
    session = _checked_form(request, form)
    if session is None:
        return form_refused(request)
    try:
        body = adjust_body(form, str(form.get("by") or "").strip()[:100] or "director")
    except director.ActionError as e:
        return _director(request, session, str(e), dict(form), 400)
    refused = _decision(request, session, form, director.adjust, body)
    return refused or RedirectResponse("/director?done=adjust#audit-h", status_code=303)


@router.post("/director/penalty")
async def penalty(request: Request):
    """A procedural penalty (Law 90) against a pair, from the page's form: deducted from its total."""
    form = await request.form()
    session = _checked_form(request, form)
    if session is None:
        return form_refused(request)
    try:
        body = {"section": str(form.get("section") or "").strip() or None,
                "direction": str(form.get("direction") or "") or None, "pair": str(form.get("pair") or "").strip(),
                "amount": str(form.get("amount") or "").strip(), "unit": str(form.get("unit") or "") or None,
                "kind": "disciplinary" if form.get("kind") == "disciplinary" else "procedural",
                "reason": str(form.get("reason") or "")[:500], "board": _int(form, "board", required=False),
                "by": str(form.get("by") or "").strip()[:100] or "director",
                "override": form.get("override") == "on"}
        if not body["pair"]:
            raise director.ActionError("pair: which pair (its number)")
    except director.ActionError as e:
        return _director(request, session, str(e), dict(form), 400)
    refused = _decision(request, session, form, director.penalty, body)
    return refused or RedirectResponse("/director?done=penalty#audit-h", status_code=303)


@router.post("/director/rulings")
async def ruling(request: Request):
    """The director's ruling on a pending irregularity: a `ruling` command queued for the unit."""
    session = _auth(request).director(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return form_refused(request)
    collector = request.app.state.collector
    unit, choice = str(form.get("unit", "")), str(form.get("ruling", ""))
    try:
        seq = int(str(form.get("seq", "")))
    except ValueError:
        return Response("seq: a number", status_code=400)
    found = queries.irregularity(collector.store.reader(), unit, seq)
    if found is None or collector.keyring.key(unit) is None:
        return Response(f"no irregularity {seq} from unit {unit}", status_code=404)
    if choice not in found["options"]:
        return Response(f"ruling: one of {', '.join(found['options'])}, not {choice}", status_code=400)
    body = {"type": "ruling", "board": found["board"], "ruling": choice, "seat": found["offender"] or "N"}
    try:
        collector.store.write(lambda conn: commands.enqueue(conn, unit, body))
    except commands.CommandError as e:
        return Response(str(e), status_code=400)
    except StoreError as e:
        return Response(str(e), status_code=503)
    return RedirectResponse(f"/director?ruled={unit}", status_code=303)
