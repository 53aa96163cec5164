"""Every request body is read by this ASGI middleware before any route sees it, with a size limit and a deadline.

- Over the limit (the units' sync: sync.MAX_BODY; anything else: MAX_BODY, far above any event file or
  ruling): 413 as soon as the Content-Length says so, or as soon as the bytes that came exceed it.
- Not all there BODY_TIMEOUT_S after the request began (a client that stalls or trickles a byte at a time):
  408, and the connection is closed. The server goes on serving everybody else meanwhile: a slow client holds
  only its own connection (uvicorn's event loop waits on it without blocking).

Each refusal is answered in the one shape (web/errors.py: `{"error": reason, "field": "body"}`) and logged with
the reason, the path and the client address. The body, once whole, is handed to the app unchanged (requests are
small: at most a few megabytes).
"""
import asyncio
import logging
import re

from bidwire_host.web import errors

log = logging.getLogger("bidwire.web")

MAX_BODY = 1024 * 1024
BODY_TIMEOUT_S = 30.0


class BodyRefused(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class BodyGuard:
    def __init__(self, app, limits=None, timeout_s=BODY_TIMEOUT_S, default_limit=MAX_BODY):
        self.app = app
        # path (exact) or compiled pattern (matching the whole path) -> (its own limit, a hint for the refusal)
        self.limits = dict(limits or {})
        self.timeout_s = timeout_s
        self.default_limit = default_limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        limit, hint = self._limit(scope["path"])
        try:
            messages = await asyncio.wait_for(self._read(scope, receive, limit, hint), self.timeout_s)
        except asyncio.TimeoutError:
            return await self._refuse(scope, send, 408, f"the request body did not arrive within "
                                                        f"{self.timeout_s:g} s")
        except BodyRefused as e:
            return await self._refuse(scope, send, e.status, e.reason)
        if messages is None:
            return  # the client went away before its body was whole: nobody to answer
        pending = list(messages)

        async def replay():
            if pending:
                return pending.pop(0)
            return await receive()  # after the body: a disconnect, when it comes

        return await self.app(scope, replay, send)

    def _limit(self, path):
        found = self.limits.get(path)
        if found is not None:
            return found
        for key, value in self.limits.items():
            if isinstance(key, re.Pattern) and key.fullmatch(path):
                return value
        return self.default_limit, ""

    async def _read(self, scope, receive, limit, hint):
        """The request's body messages, or None if the client disconnected; BodyRefused if over the limit."""
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    n = int(value)
                except ValueError:
                    raise BodyRefused(400, "Content-Length is not a number") from None
                if n > limit:
                    raise BodyRefused(413, f"body of {n} bytes is over the {limit}-byte limit{hint}")
        messages, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            size += len(message.get("body", b""))
            if size > limit:
                raise BodyRefused(413, f"body over the {limit}-byte limit{hint}")
            messages.append(message)
            if not message.get("more_body", False):
                return messages

    async def _refuse(self, scope, send, status, reason):
        client = scope.get("client") or ("?", 0)
        log.warning("request refused (%d) %s %s from %s: %s", status, scope["method"], scope["path"], client[0],
                    reason)
        body = errors.encoded(reason, "body")
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
