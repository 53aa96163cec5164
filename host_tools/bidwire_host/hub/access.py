"""Who a request is: the organiser (a bearer password for the API, a session for the pages), or anyone.
Wrong passwords are counted per client address in the database, so every worker sees the same count.

A page's session is kept on the server (organiser_sessions): the cookie names it, signed. It ends at the
organiser's logout, after COOKIE_HOURS, and when the password changes (a session holds the fingerprint of the
password it was opened with): a cookie does not outlive any of them (issue 39, finding 6)."""
import hmac
import re
import secrets
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request
from itsdangerous import BadSignature
from starlette.concurrency import run_in_threadpool

from bidwire_host import signing
from bidwire_host.hub import storage
from bidwire_host.hub.storage import Refused
from bidwire_host.hub.worker import Worker, WorkerDep
from bidwire_host.sim_ids import CLUB_ID
from bidwire_host.web import errors

COOKIE = "bidwire_hub"
COOKIE_HOURS = 12


def source(request: Request, role="organiser"):
    """The key a wrong password is counted under: the role and the client's address (roles apart)."""
    address = request.client.host if request.client else "?"
    return address if role == "organiser" else f"{role} {address}"


def password_ok(hub: Worker, request: Request, given: str):
    """The organiser's password, checked in constant time; an address with LOGIN_TRIES wrong ones in the window
    waits (429), even with the right one."""
    where = source(request)
    with hub.pool.connection() as conn:
        if storage.login_blocked(conn, where):
            raise Refused(429, "too many wrong passwords from this address: try again in 10 minutes", "password")
        if hmac.compare_digest(given.encode(), hub.password.encode()):
            return True
        storage.login_failed(conn, where)
    return False


def organiser(request: Request, hub: WorkerDep, authorization: Annotated[str | None, Header()] = None):
    """The organiser, or 401: a bearer password (API) or the signed session cookie (pages)."""
    if authorization and authorization.startswith("Bearer ") and password_ok(hub, request, authorization[7:]):
        return True
    session = session_of(hub, request)
    if session is not None:
        with hub.pool.connection() as conn:
            if storage.session_live(conn, session, hub.password_print, COOKIE_HOURS):
                return True
    raise HTTPException(401, "organiser login needed")


def session_of(hub: Worker, request: Request):
    """The session id the request's cookie names, if the cookie is ours (signed) and young enough, else None."""
    cookie = request.cookies.get(COOKIE)
    if not cookie:
        return None
    try:
        session = hub.cookies.loads(cookie, max_age=COOKIE_HOURS * 3600)
    except BadSignature:
        return None
    return session if isinstance(session, str) and len(session) == 64 else None


def open_session(hub: Worker):
    """A new session for the organiser who just gave the password: its signed cookie value."""
    session = secrets.token_hex(32)
    with hub.pool.connection() as conn:
        storage.session_open(conn, session, hub.password_print)
    return hub.cookies.dumps(session)


def end_session(hub: Worker, request: Request):
    session = session_of(hub, request)
    if session is not None:
        with hub.pool.connection() as conn:
            storage.session_end(conn, session)


def is_organiser(hub: Worker, request: Request):
    """Whether the request is the organiser's, without refusing it."""
    try:
        return organiser(request, hub, request.headers.get("authorization"))
    except (HTTPException, Refused):
        return False


Organiser = [Depends(organiser)]

# The organiser's writes: a sim set up or changed, a club registered, its secret changed or the club removed, a
# result corrected, a held result decided
ORGANISER_WRITES = re.compile(r"/api/v1/sims(/[a-z0-9-]+(/clubs(/[^/]+(/secret)?)?|/corrections|/held)?)?")
HEAT = re.compile(r"/api/v1/sims/([a-z0-9-]+)/usebio")  # a club's signed USEBIO heat


def club_secret(hub: Worker, sim_id, club_id):
    """The secret of the club `club_id` (a header's or a form's text) names in the sim, or None when it names none;
    Refused (404) when there is no such sim."""
    with hub.pool.connection() as conn:
        storage.sim(conn, sim_id)
        return storage.club_secret(conn, sim_id, club_id) if re.fullmatch(CLUB_ID, club_id or "") else None


class CredentialFirst:
    """An ASGI middleware, outside the body limit (which reads a body whole before any route): a write to the
    organiser's API without the organiser's credential (a bearer password or a session), and a heat whose
    `X-Bidwire-Club` names no club of its sim, are refused on the request's head, before the body is read (a
    100 MB body to POST /api/v1/sims was parsed whole before its 401, and a 400 MB heat with a wrong club spooled
    to disk: issue 39 finding 4). The routes check again, with the body; nothing is counted twice, since a request
    refused here never reaches them."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] in ("POST", "PATCH", "PUT", "DELETE") \
                and ORGANISER_WRITES.fullmatch(scope["path"]):
            request = Request(scope)  # its headers and cookies: the body is not read
            try:
                await run_in_threadpool(organiser, request, scope["app"].state.worker,
                                        request.headers.get("authorization"))
            except HTTPException as e:
                await errors.reply(e.status_code, str(e.detail), "authorization",
                                   headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
                return
            except Refused as e:
                await errors.reply(e.status, e.reason, e.field)(scope, receive, send)
                return
        heat = HEAT.fullmatch(scope["path"]) if scope["type"] == "http" and scope["method"] == "POST" else None
        if heat:
            club = Request(scope).headers.get(signing.HEADER_CLUB, "")
            try:
                known = await run_in_threadpool(club_secret, scope["app"].state.worker, heat[1], club) is not None
            except Refused as e:  # no such sim
                known = False
                if e.status != 404:
                    raise
            if not known:
                await errors.reply(401, f"{signing.HEADER_CLUB}: not a club of this sim", "club")(scope, receive,
                                                                                                   send)
                return
        await self.app(scope, receive, send)
