"""What a hub worker holds: its connection pool, the organiser's cookie signer, and caches of the scored field
and of the public pages rendered from it (docs/hub.md "Stateless workers"). Nothing here is needed by another
worker: each reads the database."""
import threading
import time
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Depends, Request
from itsdangerous import URLSafeTimedSerializer

from bidwire_host.hub import db, records
from bidwire_host.hub.live import LiveField

RESCORE_EVERY = 0.5  # seconds: how stale a served ranking may be while uploads stream in (docs/hub.md)


def now():
    return datetime.now(UTC)


def released(sim):
    """Whether the sim's release time has come, by the hub's clock (a club's clock is never read)."""
    return now() >= sim["release_at"]


class Hub:
    def __init__(self, dsn, organiser_password):
        self.dsn = dsn
        self.password = organiser_password
        self.pool = db.pool(dsn)
        self._fields = {}  # sim id -> (changes, Field, when scored)
        self._live = {}  # sim id -> LiveField: the sums each board adds, read again board by board
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
            live = self._live.get(sim["id"])
            if live is None or not live.fits(sim):  # a new worker, or the scoring changed before play
                live = self._live[sim["id"]] = LiveField(sim)
            scored = live.refresh(conn, sim)
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


def get_hub(request: Request) -> Hub:
    return request.app.state.hub


HubDep = Annotated[Hub, Depends(get_hub)]
