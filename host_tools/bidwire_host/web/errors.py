"""The one shape of every refusal the collector and the hub answer, documented in their API docs (DESCRIPTION):

    {"error": why, in words the person can act on, "field": the input it names, or null}

A request that did not parse also carries "detail", the parser's list of what was wrong. Nothing else is
in a refusal: no traceback, no secret (docs/security.md).
"""
import json

from fastapi.responses import JSONResponse

DESCRIPTION = ("Every refusal is a JSON object `{\"error\": why, \"field\": the input it names or null}` with a 4xx "
               "or 5xx status; a request that did not parse adds `detail`, the parser's list of what was wrong.")


def body(reason, field=None, **extra):
    return {"error": reason, "field": field, **extra}


def reply(status, reason, field=None, headers=None, **extra):
    """A refusal as a response."""
    return JSONResponse(body(reason, field, **extra), status_code=status, headers=headers)


def encoded(reason, field=None):
    """A refusal's bytes, for those who write a response themselves (an ASGI middleware, a raw transport)."""
    return json.dumps(body(reason, field)).encode()


def parse_errors(errors):
    """(reason, field, detail) of a parser's errors (pydantic's list): the first one named, and every one as the
    API schema declares them (loc, msg, type, ctx; never the value sent, so a reply never echoes a body)."""
    first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
    where = ".".join(str(x) for x in first["loc"]) or None
    reason = f"{where}: {first['msg']}" if where else first["msg"]
    return reason, where, [{k: (_ctx(v) if k == "ctx" else v) for k, v in e.items() if k in ("loc", "msg", "type",
                                                                                              "ctx")} for e in errors]


async def invalid_request(request, exc):
    """The handler both apps give RequestValidationError: a 422 naming the first field, with the parser's detail."""
    reason, field, detail = parse_errors(exc.errors())
    return reply(422, reason, field, detail=detail)


def _ctx(ctx):
    """A ctx value that is not a JSON string, integer or boolean (an exception, a float that may be inf) as text."""
    if not isinstance(ctx, dict):
        return {"value": str(ctx)}
    return {str(k): v if v is None or isinstance(v, str | int) else str(v) for k, v in ctx.items()}
