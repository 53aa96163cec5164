"""The hub's web app (docs/hub.md): the routes of routes/ (organiser, clubs, public) over one Worker per worker
process, opened (its connection pool) when the app starts and closed when it stops (`lifespan`).

Every request body is read by the body limit (web/body_limit.py) before any route sees it: a club's upload and a
USEBIO file within their limits, anything else within MAX_BODY, each within BODY_TIMEOUT_S. Every refusal is in
the one shape (web/errors.py).

Stateless: every request reads the database through the worker's pool, so any number of workers serve one hub.
What a worker keeps (worker.Worker) is a cache of the scored field and of the pages rendered from it, keyed on the
sim's `changes` counter, which every change of the field bumps in the same transaction.
"""
import os
import re
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import psycopg
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from bidwire_host.hub import access, usebio_in
from bidwire_host.hub.routes import clubs, organiser, public
from bidwire_host.hub.storage import Refused
from bidwire_host.hub.worker import Worker
from bidwire_host.web import body_limit, errors

SWITCH_INTERVAL = 0.001  # seconds
MAX_BODY = 1024 * 1024  # bytes of any other request: a sim with its hand set, a correction, a login
FORM_OVERHEAD = 64 * 1024  # the upload page's form fields and multipart framing around a USEBIO file
BODY_LIMITS = {
    "/api/v1/upload": (clubs.MAX_BODY, ": send fewer results an upload"),
    re.compile(r"/api/v1/sims/[^/]+/usebio"): (usebio_in.MAX_BYTES, ": a USEBIO file of one heat"),
    re.compile(r"/sims/[^/]+/upload"): (usebio_in.MAX_BYTES + FORM_OVERHEAD, ": a USEBIO file of one heat"),
}


def create_app(dsn=None, organiser_password=None):
    dsn = dsn or os.environ["BIDWIRE_HUB_DSN"]
    if organiser_password is None:
        organiser_password = Path(os.environ["BIDWIRE_HUB_PASSWORD_FILE"]).read_text(encoding="utf-8").strip()
    # A worker's event loop shares the GIL with its rescoring and rendering threads: hand it over every 1 ms, not
    # Python's 5 ms, so that a read answered from memory does not wait behind a rescoring (docs/hub.md).
    sys.setswitchinterval(SWITCH_INTERVAL)

    @asynccontextmanager
    async def lifespan(app):
        app.state.worker = await run_in_threadpool(Worker, dsn, organiser_password)  # opens its pool
        try:
            yield
        finally:
            await run_in_threadpool(app.state.worker.close)

    app = FastAPI(title="bidwire hub", description=errors.DESCRIPTION, docs_url=None, redoc_url=None,
                  lifespan=lifespan)
    app.add_middleware(body_limit.BodyGuard, limits=BODY_LIMITS, default_limit=MAX_BODY)
    app.add_middleware(access.CredentialFirst)  # outside the body limit: the organiser known before any body

    @app.exception_handler(Refused)
    async def refused(request, exc: Refused):
        return errors.reply(exc.status, exc.reason, exc.field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request, exc):
        return errors.reply(exc.status_code, str(exc.detail), headers=exc.headers)

    app.add_exception_handler(RequestValidationError, errors.invalid_request)

    @app.exception_handler(psycopg.OperationalError)
    async def database_down(request, exc):
        return errors.reply(503, "the hub's database is unreachable: try again", headers={"Retry-After": "2"})

    for routes in (organiser, clubs, public):
        app.include_router(routes.router)
    return app


def app_from_env():
    """`uvicorn --factory bidwire_host.hub.app:app_from_env`: DSN and password file from the environment."""
    return create_app()
