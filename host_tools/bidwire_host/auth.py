"""The director's and the scorer's logins: the passwords (kept only as salted scrypt hashes), the signed session
cookie with its role, CSRF.

A session lives in the collector's memory (`Sessions`): its id, role, CSRF token, when it began and when it was
last used. The cookie holds only its id, signed with the server secret (`dashboard-secret` in the data directory,
made on first start). Every request looks the id up, so a session ends for good at logout (revoked), after
`IDLE_MINUTES` without a request or an open live page, and `SESSION_HOURS` after the login whatever the use; a
restart of the collector ends every session (log in again). The director may see and do
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
SESSION_HOURS = 12  # a session's absolute lifetime
IDLE_MINUTES = 30  # a session unused this long ends
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


def private_secret(path, make=lambda: secrets.token_hex(32)):
    """A random secret (by default 256 bits, hex) kept in a file readable by its owner only (mode 600): read if it
    is there, made (atomically) by `make()` if not."""
    path = Path(path)
    try:
        secret = path.read_text().strip()
        if secret:
            return secret
    except FileNotFoundError:
        pass
    secret = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secret + "\n")
    os.replace(tmp, path)
    return secret


def first_run_password(data_dir, role):
    """(password, made now) of a role that was given no password: the first line of DATA/ROLE-password, made (16
    characters, mode 600) on the collector's first run."""
    path = Path(data_dir) / f"{role}-password"
    made = not path.exists()
    return private_secret(path, lambda: secrets.token_urlsafe(12)), made


def server_secret(data_dir):
    """The key sessions are signed with: made once, kept in the data directory (mode 600)."""
    return private_secret(Path(data_dir) / SECRET_FILE)


class LoginLimiter:
    """Login attempts per client address and role: FREE_TRIES wrong passwords in a row are let through at once,
    then each further attempt must wait FIRST_WAIT_S, doubled after every wrong one, up to MAX_WAIT_S. A right
    password clears the count of its own role only: a scorer's login from the address forgives nothing of the
    director's (issue 24: 4 wrong director passwords and a right scorer one, repeated, were never limited).
    A wrong password counts for every role it was tried for (all the roles with a password, unless the form
    named one): it cannot be told which it was meant for. Per address: one address guessing cannot lock the
    director out of the room's own tablet. The address is the real peer unless the operator named a proxy
    (server.serve). The login route counts an attempt as it starts (`begin`), so attempts sent at once are
    limited as well as those sent one after another. `clock` is time.monotonic unless a test gives its own."""

    FREE_TRIES = 5
    FIRST_WAIT_S = 30
    MAX_WAIT_S = 15 * 60
    FORGET_S = 60 * 60  # an address quiet this long starts afresh

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._failures = {}  # (address, role) -> (wrong passwords in a row, time of the last)
        self._lock = threading.Lock()

    def begin(self, address, roles=ROLES):
        """An attempt from the address for any of `roles`: the seconds it must still wait (then it is refused,
        and nothing is counted), or 0, and then the attempt counts as a wrong password for each of the roles until
        `succeeded()` clears its role's count, so that attempts made at once are counted as they start (200 at
        once get 5 tries, not 200)."""
        with self._lock:
            wait = max(self._wait((address, r)) for r in roles)
            if not wait:
                for r in roles:
                    self._count((address, r))
            return wait

    def count(self, address, roles=ROLES):
        """Wrong passwords (and attempts under way) from the address in a row, the most of any of `roles`."""
        with self._lock:
            return max(self._failures.get((address, r), (0, 0.0))[0] for r in roles)

    def wait(self, address, roles=ROLES):
        """Seconds the address must still wait before its next attempt for `roles` (0: it may try now)."""
        with self._lock:
            return max(self._wait((address, r)) for r in roles)

    def _count(self, key):
        n = self._failures.get(key, (0, 0.0))[0] + 1
        self._failures[key] = (n, self.clock())
        return n

    def _wait(self, key):
        n, last = self._failures.get(key, (0, 0.0))
        now = self.clock()
        if n and now - last > self.FORGET_S:
            del self._failures[key]
            return 0
        if n < self.FREE_TRIES:
            return 0
        delay = min(self.MAX_WAIT_S, self.FIRST_WAIT_S * 2 ** (n - self.FREE_TRIES))
        return max(0, int(last + delay - now + 0.999))

    def failed(self, address, roles=ROLES):
        """A wrong password from the address for `roles`; how many in a row now (the most of them)."""
        with self._lock:
            return max(self._count((address, r)) for r in roles)

    def succeeded(self, address, role, tried=()):
        """A right password for `role`: its count from the address is cleared, no other role's. The other roles
        the attempt was counted for as it began (`tried`) lose that one count: a right password is no guess."""
        with self._lock:
            self._failures.pop((address, role), None)
            for r in tried:
                n, last = self._failures.get((address, r), (0, 0.0))
                if r != role and n:
                    self._failures[(address, r)] = (n - 1, last)


class Sessions:
    """The sessions that are open: id -> role, CSRF token, begun, last used (monotonic seconds). A session is
    valid while it is neither revoked, nor idle for `idle_s`, nor older than `lifetime_s`; looking it up counts as
    using it. `clock` is time.monotonic unless a test gives its own."""

    def __init__(self, lifetime_s=SESSION_HOURS * 3600, idle_s=IDLE_MINUTES * 60, clock=time.monotonic):
        self.lifetime_s, self.idle_s, self.clock = lifetime_s, idle_s, clock
        self._open = {}
        self._lock = threading.Lock()

    def open(self, role):
        """A new session for `role`: {"sid", "role", "csrf"}."""
        now = self.clock()
        session = {"sid": secrets.token_urlsafe(18), "role": role, "csrf": secrets.token_urlsafe(24)}
        with self._lock:
            for sid in [sid for sid, s in self._open.items() if self._ended(s, now)]:
                del self._open[sid]  # logins are rate-limited, and the ended ones go here: the dict stays small
            self._open[session["sid"]] = dict(session, begun=now, used=now)
        return session

    def _ended(self, s, now):
        """Why the session has ended ("" while it is valid)."""
        if now - s["begun"] >= self.lifetime_s:
            return f"its lifetime ({self.lifetime_s / 3600:g} h) is over"
        if now - s["used"] >= self.idle_s:
            return f"unused for {self.idle_s / 60:g} min"
        return ""

    def use(self, sid):
        """The session {"sid", "role", "csrf"} if it is still valid (its last use is now), else None."""
        now = self.clock()
        with self._lock:
            s = self._open.get(sid)
            if s is None:
                return None
            ended = self._ended(s, now)
            if ended:
                del self._open[sid]
                log.warning("session of the %s ended: %s", s["role"], ended)
                return None
            s["used"] = now
            return {"sid": sid, "role": s["role"], "csrf": s["csrf"]}

    def revoke(self, sid):
        """End the session now (logout); whether it was open."""
        with self._lock:
            return self._open.pop(sid, None) is not None

    def __len__(self):
        return len(self._open)


class Auth:
    """The director's and the scorer's password checks, the open sessions and the session cookie's signer."""

    def __init__(self, data_dir, password=None, scorer_password=None, lifetime_s=SESSION_HOURS * 3600,
                 idle_s=IDLE_MINUTES * 60):
        self.limiter = LoginLimiter()
        self._hashing = asyncio.Semaphore(HASHES_AT_ONCE)
        self.sessions = Sessions(lifetime_s, idle_s)
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

    @property
    def cookie_max_age(self):
        return int(self.sessions.lifetime_s)

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
        session = self.sessions.open(role)
        return self._signer.dumps({"sid": session["sid"]}), session

    def session(self, request, roles=ROLES):
        """The request's valid session whose role is one of `roles`, or None; a valid one counts as used."""
        raw = request.cookies.get(SESSION_COOKIE)
        if not raw or self._signer is None:
            return None
        try:
            # the open session's own clock decides (and logs why it ended); the signed timestamp, in whole seconds,
            # is only a backstop a minute later
            signed = self._signer.loads(raw, max_age=self.sessions.lifetime_s + 60)
        except BadSignature:
            return None
        sid = signed.get("sid") if isinstance(signed, dict) else None
        session = self.sessions.use(sid) if isinstance(sid, str) else None
        return session if session is not None and session["role"] in roles else None

    def director(self, request):
        """The request's valid director session, or None (a scorer's session does not count)."""
        return self.session(request, ("director",))

    def still_valid(self, session):
        """Whether a session found earlier is still open (a live stream asks at every wake-up); counts as use."""
        return self.sessions.use(session["sid"]) is not None

    def logout(self, session):
        return self.sessions.revoke(session["sid"])


def same_token(given, expected):
    return bool(given) and bool(expected) and hmac.compare_digest(str(given), str(expected))


def form_refused(request):
    """403 for a form posted without a session of the right role or without the session's CSRF token; logged."""
    client = request.client.host if request.client else "?"
    log.warning("form refused (403) %s %s from %s: no session of the right role, or a form without its CSRF token",
                request.method, request.url.path, client)
    return Response("Forbidden: no session, or a form without its CSRF token.", status_code=403)
