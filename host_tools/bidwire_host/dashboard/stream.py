"""The director's live pages over Server-Sent Events, pushed by the collector's after-commit step (no polling).

Each stream waits on the service's change feed (collector/change_feed.py). When a change arrives (several within
`COALESCE_S` are taken together) it renders, in a worker thread, only what the change can touch — the rows of
the units named, the first page of the open alerts if the queue changed, the rounds panel after a result or a
decision, the audit list after a decision — and sends only the pieces whose HTML differs from what this stream sent
before: `rows` (table rows), `alerts` (alerts added or changed, the ids no longer open, the order), `rounds`,
`audit`, `cards` (the live auctions). The page
replaces those elements alone, so keyboard focus, hover and typed text elsewhere survive. Every `TICK_S` the
rows are looked at again (the minutes in the round move with the clock): only the rows whose data changed are
rendered, and the queue and the audit are left alone. A stream lives no longer than its session: it ends at
logout (the feed's `revoked` wakes it at once) and, at its next wake-up, when the session has ended otherwise
(auth.py: idle, lifetime); an open stream counts as the session being used.
"""
import asyncio
import json

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from bidwire_host.collector.deps import Service
from bidwire_host.dashboard import fragments as frag

router = APIRouter(include_in_schema=False)
COALESCE_S = 0.05
TICK_S = 15.0
VIEWS = ("director", "live")


def _send(event, data):
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class _Seen:
    """What one stream has sent: element id -> hash, per kind."""

    def __init__(self):
        self.rows, self.alerts, self.cards, self.order, self.audit, self.rounds = {}, {}, {}, [], None, None
        self.drawn = {}  # row element id -> the row's data when last rendered (fragments.rows)

    def changed(self, kind, pieces):
        seen = getattr(self, kind)
        out = [p for p in pieces if seen.get(p["id"]) != p["h"]]
        for p in out:
            seen[p["id"]] = p["h"]
        return [{"id": p["id"], "h": p["h"], "html": p["html"]} for p in out]


def _director_update(service, session, seen, change, full):
    out = []
    units = None if full or change.get("event") or change.get("tick") else set(change.get("units") or ())
    if units is None or units:
        if full:
            seen.drawn.clear()  # every row rendered again
        pieces = frag.rows(service, units, seen.drawn)
        changed = seen.changed("rows", pieces)
        if changed:
            out.append(_send("rows", {"rows": changed}))
    if full or change.get("alerts") or change.get("decisions"):  # the after-commit step says when the queue moved
        pieces, total = frag.alert_pieces(service, session)
        changed = seen.changed("alerts", pieces)
        order = [p["id"] for p in pieces]
        gone = [i for i in seen.order if i not in order]
        for i in gone:
            seen.alerts.pop(i, None)
        if changed or gone or order != seen.order or full:
            out.append(_send("alerts", {"upsert": changed, "remove": gone, "order": order, "open": total}))
        seen.order = order
    if full or change.get("decisions") or change.get("scores") or change.get("event"):
        html = frag.rounds_html(service, session)
        if html != seen.rounds:
            seen.rounds = html
            out.append(_send("rounds", {"html": html}))
    if full or change.get("decisions"):
        html = frag.audit_html(service)
        if html != seen.audit:
            seen.audit = html
            out.append(_send("audit", {"html": html}))
    return out


def _live_update(service, seen, change, full):
    units = None if full or change.get("event") else set(change.get("units") or ())
    if units is not None and not units:
        return []
    changed = seen.changed("cards", frag.live_cards(service, units))
    return [_send("cards", {"cards": changed})] if changed else []


@router.get("/director/events")
async def director_events(request: Request, service: Service, view: str = "director"):
    """Server-Sent Events for the director's page (`rows`, `alerts`, `audit`) or, with `?view=live`, the live
    auctions (`cards`): each carries only what changed since the stream's last message."""
    session = request.app.state.auth.director(request)
    if session is None:
        return Response("Forbidden: log in as the director first.", status_code=403)
    if view not in VIEWS:
        return Response(f"view: one of {', '.join(VIEWS)}", status_code=400)
    auth, service = request.app.state.auth, service
    queue = service.changes.subscribe()
    seen = _Seen()

    def update(change, full):
        if view == "live":
            return _live_update(service, seen, change, full or bool(change.get("tick")))
        return _director_update(service, session, seen, change, full)

    async def stream():
        try:
            for message in await run_in_threadpool(update, {}, True):  # the state now: the page's, or newer
                yield message
            yield _send("ready", {})
            while True:
                try:
                    change = await asyncio.wait_for(queue.get(), TICK_S)
                except asyncio.TimeoutError:
                    change = {"tick": True}
                await asyncio.sleep(COALESCE_S)
                changes = [change]
                while not queue.empty():
                    changes.append(queue.get_nowait())
                if not auth.still_valid(session):
                    break  # logged out or expired: nothing more for this cookie
                # the clock's tick looks at every row again (their minutes), not at the queue or the audit
                full = any(c.get("resync") or c.get("event") for c in changes)
                merged = {"units": set()}
                for c in changes:
                    for k in ("alerts", "decisions", "calls", "scores", "tick"):
                        merged[k] = merged.get(k) or c.get(k)
                    merged["units"].update(c.get("units") or ())
                messages = await run_in_threadpool(update, merged, full)
                for message in messages:
                    yield message
                if not messages and (full or merged.get("tick")):
                    yield ": keep-alive\n\n"
                if await request.is_disconnected():
                    break
        finally:
            service.changes.unsubscribe(queue)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
