"""What a hub worker holds: its connection pool, the organiser's cookie signer, and caches of the scored field
and of the public pages rendered from it (docs/hub.md "Stateless workers"). Nothing here is needed by another
worker: each reads the database."""
import hashlib
import hmac
import threading
import time
from collections import OrderedDict
from typing import Annotated

from fastapi import Depends, Request
from itsdangerous import URLSafeTimedSerializer

from bidwire_host.hub import db, storage
from bidwire_host.hub.live_field import LiveField

RESCORE_EVERY = 0.5  # seconds: how stale a served ranking may be while uploads stream in (docs/hub.md)
PAGES_KEPT = 512  # rendered public pages a worker keeps (pages of the ranking, clubs' pages, boards)
SIM_TTL = 0.25  # seconds a worker answers public reads from the sim's row as it last read it (docs/hub.md)


class Worker:
    def __init__(self, dsn, organiser_password):
        self.dsn = dsn
        self.password = organiser_password
        self.pool = db.pool(dsn)
        self._fields = {}  # sim id -> (changes, Field, when scored)
        self._live = {}  # sim id -> LiveField: the results it holds, and those set since merged in
        self._scoring = threading.Lock()
        self._pages = OrderedDict()  # (page, sim id, ...) -> (Field, html), the PAGES_KEPT last used
        self._rendering = set()  # keys of the pages being rendered again in the background
        self._sims = {}  # sim id -> (row, time.monotonic() when read)
        with self.pool.connection() as conn:
            secret = storage.hub_secret(conn)
        self.cookies = URLSafeTimedSerializer(secret, salt="organiser")
        # what a session keeps of the password it was opened with: a changed password ends every session
        self.password_print = hmac.new(secret, organiser_password.encode(), hashlib.sha256).hexdigest()

    def close(self):
        """Close the pool's connections (the app's lifespan, at shutdown)."""
        self.pool.close()

    def sim(self, conn, sim_id):
        """The sim's row as read at most SIM_TTL ago (it holds the hands and the double-dummy tables, so a read
        of a page does not parse them each time). Uploads and the organiser's changes read the row itself."""
        row = storage.sim(conn, sim_id)
        self._sims[sim_id] = (row, time.monotonic())
        return row

    def recent_sim(self, sim_id):
        """The sim's row if this worker read it less than SIM_TTL ago, else None: no database."""
        hit = self._sims.get(sim_id)
        return hit[0] if hit is not None and time.monotonic() - hit[1] < SIM_TTL else None

    def _fresh(self, cached, sim):
        return cached[0] == sim["changes"] or time.monotonic() - cached[2] < RESCORE_EVERY

    def field(self, conn, sim):
        """The scored field as of `sim["changes"]`, or as of at most RESCORE_EVERY ago. One request at a time
        rescores it in this worker; while one does, the others are served the field it replaces, so readers
        never queue behind a rescoring, and a stream of uploads costs one rescoring per RESCORE_EVERY, not one
        per read."""
        cached = self._fields.get(sim["id"])
        if cached is not None and self._fresh(cached, sim):
            return cached[1]
        if not self._scoring.acquire(blocking=cached is None):
            return cached[1]
        try:
            return self._rescore(conn, sim)
        finally:
            self._scoring.release()

    def served_field(self, sim):
        """The field to serve at once, without the database: the one this worker scored last (a rescoring starts
        in the background when it is stale), or None when the worker has scored none yet."""
        cached = self._fields.get(sim["id"])
        if cached is None:
            return None
        if not self._fresh(cached, sim) and self._scoring.acquire(blocking=False):
            threading.Thread(target=self._rescore_in_background, args=(sim,), daemon=True).start()
        return cached[1]

    def _rescore_in_background(self, sim):
        try:
            with self.pool.connection() as conn:
                self._rescore(conn, sim)
        except Exception:  # noqa: BLE001 - the next read tries again; the field served stays the last one scored
            pass
        finally:
            self._scoring.release()

    def _rescore(self, conn, sim):
        again = self._fields.get(sim["id"])
        if again is not None and again[0] >= sim["changes"]:
            return again[1]
        changes = storage.changes(conn, sim["id"])
        live = self._live.get(sim["id"])
        if live is None or not live.fits(sim):  # a new worker, or the scoring changed before play
            live = self._live[sim["id"]] = LiveField(sim)
        scored = live.refresh(conn, sim)
        scored.version = changes
        self._fields[sim["id"]] = (changes, scored, time.monotonic())
        return scored

    def page(self, key, f, render):
        """A public page's HTML, rendered once per scored field per worker (200 readers of one ranking page
        cost one rendering); `key` names the page, `f` is the field it shows."""
        hit = self._pages.get(key)
        if hit is not None and hit[0] is f:
            return hit[1]
        html = render()
        self._pages[key] = (f, html)
        self._pages.move_to_end(key)
        while len(self._pages) > PAGES_KEPT:
            self._pages.popitem(last=False)
        return html

    def served_page(self, key, f, again):
        """The page as last rendered, for a read that must not wait, or None when it never was. When it was
        rendered from an older field than `f`, `again` (which calls `page`) renders it in the background, once
        at a time: a new field costs one rendering, not one per reader waiting for it."""
        hit = self._pages.get(key)
        if hit is None:
            return None
        if hit[0] is not f and key not in self._rendering:
            self._rendering.add(key)
            threading.Thread(target=self._render_in_background, args=(key, again), daemon=True).start()
        return hit[1]

    def _render_in_background(self, key, again):
        try:
            again()
        except Exception:  # noqa: BLE001 - the page served stays the last one rendered; the next read tries again
            pass
        finally:
            self._rendering.discard(key)


def get_hub(request: Request) -> Worker:
    return request.app.state.worker


WorkerDep = Annotated[Worker, Depends(get_hub)]
