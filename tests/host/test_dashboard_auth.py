"""The director's login pieces (dashboard/auth.py): the password's sources, its hash, the session signer."""
import pytest
from starlette.requests import Request

from bidwire_host.auth import PASSWORD_ENV, SECRET_FILE, SESSION_COOKIE, Auth, AuthError, read_password


def request_with(cookie):
    return Request({"type": "http", "headers": [(b"cookie", f"{SESSION_COOKIE}={cookie}".encode())]})


def test_the_password_comes_from_the_file_first_then_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, "from-env")
    f = tmp_path / "pw"
    f.write_text("from-file\nignored\n")
    assert read_password(f) == "from-file"
    assert read_password() == "from-env"
    f.write_text("")
    with pytest.raises(AuthError, match="empty"):
        read_password(f)
    with pytest.raises(AuthError, match="missing"):
        read_password(tmp_path / "missing")


def test_a_session_is_valid_only_when_signed_with_the_server_secret(tmp_path):
    auth = Auth(tmp_path, "secret words")
    assert auth.check_password("secret words") and not auth.check_password("secret word")
    cookie, session = auth.new_session()
    assert auth.session(request_with(cookie)) == session
    # one character of the signature changed; not its last, whose low bits base64 may not use
    tampered = cookie[:-10] + ("A" if cookie[-10] != "A" else "B") + cookie[-9:]
    assert auth.session(request_with(tampered)) is None
    other = tmp_path / "other"
    other.mkdir()
    assert Auth(other, "secret words").session(request_with(cookie)) is None
    assert (tmp_path / SECRET_FILE).stat().st_mode & 0o077 == 0


def test_without_a_password_nobody_logs_in_and_the_data_directory_is_untouched(tmp_path):
    auth = Auth(tmp_path)
    assert not auth.check_password("") and not auth.enabled
    assert list(tmp_path.iterdir()) == []


def test_a_session_ends_at_logout_when_idle_and_at_its_lifetime(tmp_path):
    now = [1000.0]
    auth = Auth(tmp_path, "secret words", lifetime_s=3600, idle_s=600)
    auth.sessions.clock = lambda: now[0]
    cookie, session = auth.new_session()
    for _ in range(6):  # used every 9 min 59 s: never idle, valid until its hour is up
        now[0] += 599
        assert auth.session(request_with(cookie)) == session
    now[0] += 606  # 3600 s after the login
    assert auth.session(request_with(cookie)) is None
    cookie, session = auth.new_session()
    now[0] += 600  # unused for the idle timeout
    assert auth.session(request_with(cookie)) is None
    cookie, session = auth.new_session()
    assert auth.logout(session) and auth.session(request_with(cookie)) is None and not auth.still_valid(session)
    assert len(auth.sessions) == 0
