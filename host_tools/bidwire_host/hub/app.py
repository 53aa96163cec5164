"""The hub's web app (docs/hub.md): the routes of routes/ (organiser, clubs, public) over one Worker per worker.

Stateless: every request reads the database through the worker's pool, so any number of workers serve one hub.
What a worker keeps (worker.Worker) is a cache of the scored field and of the pages rendered from it, keyed on the
sim's `changes` counter, which every change of the field bumps in the same transaction.
"""
import os
import sys
from pathlib import Path

import psycopg
from fastapi import FastAPI
from fastapi.responses import JSONResponse

from bidwire_host.hub.routes import clubs, organiser, public
from bidwire_host.hub.storage import Refused
from bidwire_host.hub.worker import Worker

SWITCH_INTERVAL = 0.001  # seconds


def create_app(dsn=None, organiser_password=None):
    dsn = dsn or os.environ["BIDWIRE_HUB_DSN"]
    if organiser_password is None:
        organiser_password = Path(os.environ["BIDWIRE_HUB_PASSWORD_FILE"]).read_text(encoding="utf-8").strip()
    # A worker's event loop shares the GIL with its rescoring and rendering threads: hand it over every 1 ms, not
    # Python's 5 ms, so that a read answered from memory does not wait behind a rescoring (docs/hub.md).
    sys.setswitchinterval(SWITCH_INTERVAL)
    app = FastAPI(title="bidwire hub", docs_url=None, redoc_url=None)
    app.state.hub = Worker(dsn, organiser_password)

    @app.exception_handler(Refused)
    async def refused(request, exc: Refused):
        return JSONResponse({"reason": exc.reason, "field": exc.field}, status_code=exc.status)

    @app.exception_handler(psycopg.OperationalError)
    async def database_down(request, exc):
        return JSONResponse({"reason": "the hub's database is unreachable: try again"}, status_code=503,
                            headers={"Retry-After": "2"})

    for routes in (organiser, clubs, public):
        app.include_router(routes.router)
    return app


def app_from_env():
    """`uvicorn --factory bidwire_host.hub.app:app_from_env`: DSN and password file from the environment."""
    return create_app()
