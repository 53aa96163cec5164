"""POST /api/v1/sync (docs/architecture.md §4): the one endpoint the table units call. A thin route: the body
goes whole to the collector service, which takes it in (ingest.py says how) and answers only after the commit.
"""
from fastapi import APIRouter, Request

from bidwire_host.collector.apiauth import client_of
from bidwire_host.collector.deps import Service
from bidwire_host.collector.ingest import MAX_BODY, PATH, SIGNATURE, Rejected
from bidwire_host.collector.sync_body import ErrorReply, SyncReply
from bidwire_host.web import errors

router = APIRouter()
__all__ = ["MAX_BODY", "PATH", "SIGNATURE", "router"]

_ERRORS = {
    400: "malformed body: not JSON, a missing or wrong field, an unknown event type, seqs not increasing",
    401: "missing or bad signature",
    403: "unknown unit: not in the keyring",
    409: "a result for a board the unit's assignment does not hold",
    413: "body over the size limit",
    503: "the store cannot commit now: retry later",
}


@router.post(PATH, response_model=SyncReply, tags=["units"],
             responses={status: {"model": ErrorReply, "description": text} for status, text in _ERRORS.items()},
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
                 "schema": {"$ref": "#/components/schemas/SyncBody"}}}},
                 "parameters": [{"name": SIGNATURE, "in": "header", "required": True,
                                 "schema": {"type": "string"},
                                 "description": "hex HMAC-SHA256 of the raw body, keyed with the unit's secret"}]})
async def sync(request: Request, service: Service):
    """A table unit's sync: store its new events (once each), acknowledge them, hand it its commands."""
    raw = await request.body()  # whole, within MAX_BODY: the body guard has read it
    try:
        ack, cmds = await service.sync(raw, request.headers.get(SIGNATURE), client_of(request))
    except Rejected as e:
        return errors.reply(e.status, e.reason)
    return {"ack": ack, "commands": cmds}
