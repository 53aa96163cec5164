"""The director's login: the password (kept only as a salted scrypt hash), the signed session cookie, CSRF.

A session is a cookie signed with the server secret (`dashboard-secret` in the data directory, made on first
start): `{"role": "director", "csrf": token}`, valid for `SESSION_HOURS`. Every POST form carries the session's
CSRF token; the login form, before there is a session, a random token echoed from a short-lived cookie
(double submit). Only the dashboard reads the cookie: the units' sync endpoint takes nothing but its HMAC.
"""
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer

SESSION_COOKIE = "bidwire_session"
LOGIN_COOKIE = "bidwire_login"
SESSION_HOURS = 12
SECRET_FILE = "dashboard-secret"
PASSWORD_ENV = "BIDWIRE_DIRECTOR_PASSWORD"
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


class AuthError(Exception):
    pass


def hash_password(password, salt=None):
    """(salt, scrypt hash) of a password; the plain text is not kept."""
    salt = salt or os.urandom(16)
    return salt, hashlib.scrypt(password.encode(), salt=salt, **_SCRYPT)


def read_password(path=None):
    """The director's password from a file (its first line) or, without one, $BIDWIRE_DIRECTOR_PASSWORD."""
    if path is not None:
        try:
            text = Path(path).read_text().splitlines()
        except OSError as e:
            raise AuthError(f"director password file {path}: {e.strerror}") from None
        password = text[0] if text else ""
        if not password:
            raise AuthError(f"director password file {path} is empty")
        return password
    return os.environ.get(PASSWORD_ENV) or None


def server_secret(data_dir):
    """The key sessions are signed with: made once, kept in the data directory (mode 600)."""
    path = Path(data_dir) / SECRET_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    secret = secrets.token_hex(32)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secret)
    os.replace(tmp, path)
    return secret


class Auth:
    """The director's password check and the session cookie's signer."""

    def __init__(self, data_dir, password=None):
        self.hashed = hash_password(password) if password else None
        # no password, no sessions: the data directory is left as it is
        self._signer = URLSafeTimedSerializer(server_secret(data_dir), salt="bidwire-director-session") \
            if password else None

    @property
    def enabled(self):
        return self.hashed is not None

    def check_password(self, password):
        if self.hashed is None:
            return False
        salt, expected = self.hashed
        return hmac.compare_digest(hash_password(password, salt)[1], expected)

    def new_session(self):
        """(cookie value, session) for a director who just logged in."""
        session = {"role": "director", "csrf": secrets.token_urlsafe(24)}
        return self._signer.dumps(session), session

    def session(self, request):
        """The request's valid director session, or None."""
        raw = request.cookies.get(SESSION_COOKIE)
        if not raw or self._signer is None:
            return None
        try:
            session = self._signer.loads(raw, max_age=SESSION_HOURS * 3600)
        except BadSignature:
            return None
        return session if isinstance(session, dict) and session.get("role") == "director" else None


def same_token(given, expected):
    return bool(given) and bool(expected) and hmac.compare_digest(str(given), str(expected))
