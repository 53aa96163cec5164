"""Who may use the director's JSON API (every /api/v1 route but the units' /api/v1/sync, which takes only its
HMAC): the holder of the API token, or someone logged in to the dashboard.

- `Authorization: Bearer <token>`: the token is made once, at the collector's first start, and kept in the data
  directory (`api-token`, mode 600, like the dashboard's session secret). Scripts and tools use it; it may do
  everything.
- The dashboard's session cookie: the director may do everything; the scorer may read (GET). A request that
  changes something with only a cookie must carry the session's CSRF token in `X-CSRF-Token`, so a page on
  another site cannot make a logged-in browser post to the API.

Refusals are 401 (no valid token or session) or 403 (a scorer writing, a cookie without its CSRF token), with
`{"error": reason}`, and logged with the reason, the method, the path and the client address; a token or
cookie value is never logged.
"""
import hmac
import logging
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from bidwire_host.auth import private_secret, same_token

log = logging.getLogger("bidwire.collector")

TOKEN_FILE = "api-token"
CSRF_HEADER = "X-CSRF-Token"
READS = ("GET", "HEAD", "OPTIONS")

bearer = HTTPBearer(auto_error=False, scheme_name="APIToken",
                    description=f"The collector's API token: the file `{TOKEN_FILE}` in its data directory.")


class ApiRefused(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


def api_token(data_dir):
    """The API token: made once (256 random bits, hex), kept in the data directory (mode 600)."""
    return private_secret(Path(data_dir) / TOKEN_FILE)


def client_of(request):
    return request.client.host if request.client else "?"


def _check(request, credentials):
    """None if the request may go on, else ApiRefused."""
    if credentials is not None:
        expected = request.app.state.api_token
        if hmac.compare_digest(credentials.credentials.encode("utf-8", "replace"), expected.encode()):
            return None
        return ApiRefused(401, "wrong API token")
    auth = getattr(request.app.state, "auth", None)
    session = auth.session(request) if auth is not None else None
    if session is None:
        return ApiRefused(401, f"the API needs 'Authorization: Bearer <token>' (the file {TOKEN_FILE} in the "
                               "collector's data directory) or a dashboard login")
    if request.method in READS:
        return None
    if session["role"] != "director":
        return ApiRefused(403, "the scorer's login may read the API, not change anything through it")
    if not same_token(request.headers.get(CSRF_HEADER), session["csrf"]):
        return ApiRefused(403, f"a change made with the dashboard's login needs its CSRF token in {CSRF_HEADER}")
    return None


async def guard(request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]):
    """The API router's dependency (module docstring); raises ApiRefused, which the app answers."""
    refused = _check(request, credentials)
    if refused is not None:
        address = client_of(request)
        request.app.state.service.refusals.warning(log, address, f"api {refused.status} {refused.reason}",
                                                   "API refused (%d) %s %s from %s: %s",
                              refused.status, request.method, request.url.path, address, refused.reason)
        raise refused


guard_dependency = Depends(guard)
