"""What the clubs send: a bidwire club's signed uploads (store and forward, exactly once), and a heat as a
USEBIO file from a club that scores with another program, by the API or the page form."""
import hmac
import json
import re
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from bidwire_host import signing
from bidwire_host.hub import storage, usebio_in
from bidwire_host.hub.access import club_secret, source
from bidwire_host.hub.inputs import SECTION, SECTION_IN_FORM, SESSION_IN_FORM, SessionInQuery, SimInPath, Upload
from bidwire_host.hub.storage import Refused
from bidwire_host.hub.views import TEMPLATES
from bidwire_host.hub.worker import Worker, WorkerDep
from bidwire_host.sim_ids import CLUB_ID, SIM_ID
from bidwire_host.web import errors

MAX_BODY = 2_000_000  # bytes of one upload: 2,000 results fit in well under a third of it

router = APIRouter()


@router.post("/api/v1/upload")
async def upload(request: Request, hub: WorkerDep):
    club_id = request.headers.get(signing.HEADER_CLUB, "")
    signature = request.headers.get(signing.HEADER_SIGNATURE, "")
    body = await request.body()  # read whole, within its limit and deadline, by the app's body limit
    try:
        sim_id = json.loads(body).get("sim")
    except (ValueError, AttributeError, RecursionError):  # (a body nested 100,000 deep: RecursionError)
        raise Refused(422, "the body is not a JSON object of the upload's shape", "body") from None
    if not isinstance(sim_id, str) or not re.fullmatch(SIM_ID, sim_id):
        raise Refused(422, "sim: the sim's id", "sim")
    if not re.fullmatch(CLUB_ID, club_id):
        raise Refused(401, f"{signing.HEADER_CLUB}: not a club of this sim", "club")
    return await run_in_threadpool(_take, hub, sim_id, club_id, signature, body)  # the pool blocks


def _take(hub: Worker, sim_id, club_id, signature, body):
    with hub.pool.connection() as conn:
        secret = storage.club_secret(conn, sim_id, club_id)
        if secret is None or not signing.valid(body, secret, signature):
            raise Refused(401, f"{signing.HEADER_SIGNATURE}: not signed by a club of this sim", "signature")
        try:
            up = Upload.model_validate_json(body)
        except ValidationError as e:
            reason, field, detail = errors.parse_errors(e.errors())
            return errors.reply(422, f"the upload does not parse: {reason}", field, detail=detail)
        if up.club != club_id:
            raise Refused(403, f"club: club {club_id} cannot upload for club {up.club}", "club")
        status, n, held = storage.store_upload(conn, up, signing.digest(body))
    return {"upload": up.upload, "stored": n, "held": held, "again": status == "again"}


def _heat(hub: Worker, sim_id, club_id, data, section=None, number=None, session=None):
    """A USEBIO heat from a club whose secret was checked: parsed, then replacing the club's results in the
    sections it holds, of the session it names (in a sim of several). `number`: the signed upload's number (the
    page form, where a person types the secret, has none)."""
    results = usebio_in.parse(data, section)
    digest = signing.digest(f"{section or ''}\n".encode() + data)
    with hub.pool.connection() as conn:
        status, n, withdrawn, held = storage.replace_heat(conn, sim_id, club_id, results, digest, number, session)
    return {"stored": n, "withdrawn": withdrawn, "held": held, "again": status == "again"}


@router.post("/api/v1/sims/{sim_id}/usebio")
async def upload_usebio(sim_id: SimInPath, request: Request, hub: WorkerDep,
                        section: Annotated[str | None, Query(pattern=SECTION)] = None,
                        session: SessionInQuery = None):
    """A club that does not use bidwire: its heat as a USEBIO file (one section, `?section=B` when not A; in a
    sim of several sessions, `?session=` its own), the body signed with the sim, the session, the section and the
    upload's number (signing.heat_message)."""
    club_id = request.headers.get(signing.HEADER_CLUB, "")
    signature = request.headers.get(signing.HEADER_SIGNATURE, "")
    number = request.headers.get(signing.HEADER_UPLOAD, "")
    if not re.fullmatch(r"[1-9][0-9]{0,8}", number):
        raise Refused(422, f"{signing.HEADER_UPLOAD}: the upload's number, 1, 2, ... (signed with the file)",
                      "upload")
    data = await request.body()  # read whole, within its limit and deadline, by the app's body limit; the club was
    # known before (access.CredentialFirst)
    return await run_in_threadpool(_signed_heat, hub, sim_id, club_id, signature, data, section, int(number),
                                   session)


def _signed_heat(hub: Worker, sim_id, club_id, signature, data, section, number, session):
    secret = club_secret(hub, sim_id, club_id)
    if secret is None or not signing.valid(signing.heat_message(sim_id, session, section, number, data), secret,
                                           signature):
        raise Refused(401, f"{signing.HEADER_SIGNATURE}: not signed by a club of this sim for this sim, session, "
                      "section and upload number", "signature")
    return _heat(hub, sim_id, club_id, data, section, number, session)


@router.get("/sims/{sim_id}/upload", response_class=HTMLResponse)
def upload_page(sim_id: SimInPath, request: Request, hub: WorkerDep):
    with hub.pool.connection() as conn:
        sim = storage.sim(conn, sim_id)
    return TEMPLATES.TemplateResponse(request, "upload.html", {"sim": sim, "error": None, "done": None})


@router.post("/sims/{sim_id}/upload", response_class=HTMLResponse)
async def upload_form(sim_id: SimInPath, request: Request, hub: WorkerDep, file: Annotated[UploadFile, File()],
                      club: str = Form(pattern=CLUB_ID), secret: str = Form(max_length=200),
                      section: str = Form(default="", pattern=SECTION_IN_FORM),
                      session: str = Form(default="", pattern=SESSION_IN_FORM)):
    """The page form: the club's id and secret (as the organiser gave them) and the USEBIO file. Wrong
    secrets are counted per address, apart from the organiser's logins."""
    data = await file.read(usebio_in.MAX_BYTES + 1)
    return await run_in_threadpool(_form_heat, hub, sim_id, request, club, secret, data, section.strip() or None,
                                   session.strip() or None)


def _form_heat(hub: Worker, sim_id, request, club, secret, data, section, session):
    where = source(request, "usebio")
    with hub.pool.connection() as conn:
        sim = storage.sim(conn, sim_id)
        if storage.login_blocked(conn, where):
            raise Refused(429, "too many wrong secrets from this address: try again in 10 minutes", "secret")
        held = storage.club_secret(conn, sim_id, club)
        try:
            given = bytes.fromhex(secret.strip())
        except ValueError:
            given = b""
        ok = held is not None and hmac.compare_digest(held, given)
        if not ok:
            storage.login_failed(conn, where)

    def page(status, **context):
        return TEMPLATES.TemplateResponse(request, "upload.html", {"sim": sim, "error": None, "done": None,
                                                                   **context}, status_code=status)
    if not ok:
        return page(401, error="the club id and secret do not match a club of this sim")
    if len(data) > usebio_in.MAX_BYTES:
        return page(413, error=f"a USEBIO file is at most {usebio_in.MAX_BYTES} bytes")
    try:
        done = _heat(hub, sim_id, club, data, section, session=session)
    except Refused as e:
        return page(e.status, error=e.reason)
    return page(200, done=done, club=club)
