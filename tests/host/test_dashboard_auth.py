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
    assert auth.session(request_with(cookie[:-2] + "xx")) is None
    other = tmp_path / "other"
    other.mkdir()
    assert Auth(other, "secret words").session(request_with(cookie)) is None
    assert (tmp_path / SECRET_FILE).stat().st_mode & 0o077 == 0


def test_without_a_password_nobody_logs_in_and_the_data_directory_is_untouched(tmp_path):
    auth = Auth(tmp_path)
    assert not auth.check_password("") and not auth.enabled
    assert list(tmp_path.iterdir()) == []
