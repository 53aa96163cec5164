"""The dashboard's routes: login and logout, the director's page, its event stream, and rulings from the page."""
import asyncio
import json
import secrets
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from bidwire_host.collector import commands
from bidwire_host.collector.store import StoreError
from bidwire_host.dashboard import queries
from bidwire_host.dashboard.auth import LOGIN_COOKIE, SESSION_COOKIE, SESSION_HOURS, same_token

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
POLL_S = 0.5  # how often the event stream looks at the store
KEEPALIVE_S = 15


def _auth(request):
    return request.app.state.auth


def _login_page(request, error="", status=200):
    token = secrets.token_urlsafe(24)
    page = templates.TemplateResponse(request, "login.html", {"csrf": token, "error": error,
                                                              "enabled": _auth(request).enabled},
                                      status_code=status)
    page.set_cookie(LOGIN_COOKIE, token, max_age=1800, httponly=True, samesite="strict", path="/login")
    return page


@router.get("/", response_class=HTMLResponse)
def home(request: Request):
    return RedirectResponse("/director" if _auth(request).session(request) else "/login", status_code=303)


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request):
    return _login_page(request)


@router.post("/login")
async def login(request: Request):
    form = await request.form()
    if not same_token(form.get("csrf"), request.cookies.get(LOGIN_COOKIE)):
        return _login_page(request, "The form had expired: please sign in again.", 403)
    auth = _auth(request)
    if not auth.check_password(str(form.get("password", ""))):
        return _login_page(request, "Wrong password.", 401)
    cookie, _ = auth.new_session()
    response = RedirectResponse("/director", status_code=303)
    response.set_cookie(SESSION_COOKIE, cookie, max_age=SESSION_HOURS * 3600, httponly=True, samesite="strict")
    response.delete_cookie(LOGIN_COOKIE, path="/login")
    return response


@router.post("/logout")
async def logout(request: Request):
    session = _auth(request).session(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return Response("Forbidden: no session, or a form without its CSRF token.", status_code=403)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


def _fragments(request, session):
    collector = request.app.state.collector
    ctx = {"units": queries.grid(collector), "csrf": session["csrf"],
           "alerts": queries.alerts(collector.store.reader(), queries.cmd_acks(collector))}
    return {name: templates.get_template(f"_{name}.html").render(ctx) for name in ("grid", "alerts")}, ctx


@router.get("/director", response_class=HTMLResponse)
def director_page(request: Request):
    session = _auth(request).session(request)
    if session is None:
        return RedirectResponse("/login", status_code=303)
    fragments, ctx = _fragments(request, session)
    flash = request.query_params.get("ruled", "")
    return templates.TemplateResponse(request, "director.html", dict(ctx, fragments=fragments, flash=flash))


@router.get("/director/events")
async def director_events(request: Request):
    """Server-Sent Events: `update` with the grid's and the alerts' HTML whenever the store changes."""
    session = _auth(request).session(request)
    if session is None:
        return Response("Forbidden: log in first.", status_code=403)
    collector = request.app.state.collector

    async def stream():
        last, quiet = None, 0.0
        while not await request.is_disconnected():
            now = await run_in_threadpool(queries.fingerprint, collector)
            if now != last:
                last, quiet = now, 0.0
                fragments, ctx = await run_in_threadpool(_fragments, request, session)
                open_alerts = sum(1 for a in ctx["alerts"] if a["open"])
                yield f"event: update\ndata: {json.dumps(dict(fragments, open=open_alerts))}\n\n"
            elif quiet >= KEEPALIVE_S:
                quiet = 0.0
                yield ": keep-alive\n\n"
            await asyncio.sleep(POLL_S)
            quiet += POLL_S

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.post("/director/rulings")
async def ruling(request: Request):
    """The director's ruling on a pending irregularity: a `ruling` command queued for the unit."""
    session = _auth(request).session(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return Response("Forbidden: no session, or a form without its CSRF token.", status_code=403)
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
