"""The director's and the scorer's logins: the passwords (kept only as salted scrypt hashes), the signed session
cookie with its role, CSRF.

A session is a cookie signed with the server secret (`dashboard-secret` in the data directory, made on first
start): `{"role": "director" | "scorer", "csrf": token}`, valid for `SESSION_HOURS`. The director may see and do
everything; the scorer sees the /scorer pages and may publish and correct, but not rule at tables nor see
/director (`ROLES`). Every POST form carries the session's
CSRF token; the login form, before there is a session, a random token echoed from a short-lived cookie
(double submit). Only the dashboard reads the cookie: the units' sync endpoint takes nothing but its HMAC.
"""
import asyncio
import hashlib
import hmac
import logging
import os
import secrets
import threading
import time
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

log = logging.getLogger("bidwire.dashboard")

SESSION_COOKIE = "bidwire_session"
LOGIN_COOKIE = "bidwire_login"
SESSION_HOURS = 12
SECRET_FILE = "dashboard-secret"
PASSWORD_ENV = "BIDWIRE_DIRECTOR_PASSWORD"
SCORER_PASSWORD_ENV = "BIDWIRE_SCORER_PASSWORD"
ROLES = ("director", "scorer")
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}  # 16 MiB of memory per hash
HASHES_AT_ONCE = 2  # passwords hashed at the same time; other logins wait their turn (memory stays bounded)


class AuthError(Exception):
    pass


def hash_password(password, salt=None):
    """(salt, scrypt hash) of a password; the plain text is not kept."""
    salt = salt or os.urandom(16)
    return salt, hashlib.scrypt(password.encode(), salt=salt, **_SCRYPT)


def read_password(path=None, role="director"):
    """A role's password from a file (its first line) or, without one, $BIDWIRE_DIRECTOR_PASSWORD
    ($BIDWIRE_SCORER_PASSWORD for the scorer)."""
    if path is not None:
        try:
            text = Path(path).read_text().splitlines()
        except OSError as e:
            raise AuthError(f"{role} password file {path}: {e.strerror}") from None
        password = text[0] if text else ""
        if not password:
            raise AuthError(f"{role} password file {path} is empty")
        return password
    return os.environ.get(SCORER_PASSWORD_ENV if role == "scorer" else PASSWORD_ENV) or None


def private_secret(path):
    """A random secret (256 bits, hex) kept in a file readable by its owner only (mode 600): read if it is
    there, made (atomically) if not."""
    path = Path(path)
    try:
        secret = path.read_text().strip()
        if secret:
            return secret
    except FileNotFoundError:
        pass
    secret = secrets.token_hex(32)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secret + "\n")
    os.replace(tmp, path)
    return secret


def server_secret(data_dir):
    """The key sessions are signed with: made once, kept in the data directory (mode 600)."""
    return private_secret(Path(data_dir) / SECRET_FILE)


class LoginLimiter:
    """Login attempts per client address: FREE_TRIES wrong passwords in a row are let through at once, then each
    further attempt must wait FIRST_WAIT_S, doubled after every wrong one, up to MAX_WAIT_S. A right password
    clears the address's count. Per address only: one address guessing cannot lock the director out of the
    room's own tablet. The address is the real peer unless the operator named a proxy (server.serve). The login
    route counts an attempt as it starts (`begin`), so attempts sent at once are limited as well as those sent one
    after another. `clock` is time.monotonic unless a test gives its own."""

    FREE_TRIES = 5
    FIRST_WAIT_S = 30
    MAX_WAIT_S = 15 * 60
    FORGET_S = 60 * 60  # an address quiet this long starts afresh

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._failures = {}  # address -> (wrong passwords in a row, time of the last)
        self._lock = threading.Lock()

    def begin(self, address):
        """An attempt from the address: the seconds it must still wait (then it is refused, and nothing is counted),
        or 0, and then the attempt counts as a wrong password until `succeeded()` clears the count, so that
        attempts made at once are counted as they start (200 at once get 5 tries, not 200)."""
        with self._lock:
            wait = self._wait(address)
            if not wait:
                n = self._failures.get(address, (0, 0.0))[0] + 1
                self._failures[address] = (n, self.clock())
            return wait

    def count(self, address):
        """Wrong passwords (and attempts under way) from the address in a row."""
        with self._lock:
            return self._failures.get(address, (0, 0.0))[0]

    def wait(self, address):
        """Seconds the address must still wait before its next attempt (0: it may try now)."""
        with self._lock:
            return self._wait(address)

    def _wait(self, address):
        n, last = self._failures.get(address, (0, 0.0))
        now = self.clock()
        if n and now - last > self.FORGET_S:
            del self._failures[address]
            return 0
        if n < self.FREE_TRIES:
            return 0
        delay = min(self.MAX_WAIT_S, self.FIRST_WAIT_S * 2 ** (n - self.FREE_TRIES))
        return max(0, int(last + delay - now + 0.999))

    def failed(self, address):
        """A wrong password from the address; how many in a row now."""
        with self._lock:
            n = self._failures.get(address, (0, 0.0))[0] + 1
            self._failures[address] = (n, self.clock())
            return n

    def succeeded(self, address):
        with self._lock:
            self._failures.pop(address, None)


class Auth:
    """The director's and the scorer's password checks and the session cookie's signer."""

    def __init__(self, data_dir, password=None, scorer_password=None):
        self.limiter = LoginLimiter()
        self._hashing = asyncio.Semaphore(HASHES_AT_ONCE)
        self.hashes = {role: hash_password(pw) for role, pw in (("director", password),
                                                               ("scorer", scorer_password)) if pw}
        # no password, no sessions: the data directory is left as it is
        self._signer = URLSafeTimedSerializer(server_secret(data_dir), salt="bidwire-director-session") \
            if self.hashes else None

    @property
    def hashed(self):
        """The director's (salt, hash), or None."""
        return self.hashes.get("director")

    @property
    def enabled(self):
        return bool(self.hashes)

    async def verify(self, password):
        """check_password in a worker thread, at most HASHES_AT_ONCE at a time: 200 logins at once wait for their
        turn instead of taking 16 MiB each (and the worker threads every other request needs)."""
        async with self._hashing:
            return await run_in_threadpool(self.check_password, password)

    def check_password(self, password):
        """The role whose password this is ("director" first), or None."""
        found = None
        for role in ROLES:  # every hash is computed: the time taken does not tell which role exists
            if role in self.hashes:
                salt, expected = self.hashes[role]
                if hmac.compare_digest(hash_password(password, salt)[1], expected) and found is None:
                    found = role
        return found

    def new_session(self, role="director"):
        """(cookie value, session) for someone who just logged in as `role`."""
        if role not in ROLES:
            raise AuthError(f"role: one of {', '.join(ROLES)}, not {role!r}")
        session = {"role": role, "csrf": secrets.token_urlsafe(24)}
        return self._signer.dumps(session), session

    def session(self, request, roles=ROLES):
        """The request's valid session whose role is one of `roles`, or None."""
        raw = request.cookies.get(SESSION_COOKIE)
        if not raw or self._signer is None:
            return None
        try:
            session = self._signer.loads(raw, max_age=SESSION_HOURS * 3600)
        except BadSignature:
            return None
        ok = isinstance(session, dict) and session.get("role") in roles and isinstance(session.get("csrf"), str)
        return session if ok else None

    def director(self, request):
        """The request's valid director session, or None (a scorer's session does not count)."""
        return self.session(request, ("director",))


def same_token(given, expected):
    return bool(given) and bool(expected) and hmac.compare_digest(str(given), str(expected))


def form_refused(request):
    """403 for a form posted without a session of the right role or without the session's CSRF token; logged."""
    client = request.client.host if request.client else "?"
    log.warning("form refused (403) %s %s from %s: no session of the right role, or a form without its CSRF token",
                request.method, request.url.path, client)
    return Response("Forbidden: no session, or a form without its CSRF token.", status_code=403)
