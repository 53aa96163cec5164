"""issue 11, build item 8: `make serve` takes the dashboard password files (DIRECTOR_PASSWORD_FILE=…,
SCORER_PASSWORD_FILE=…) and says how to create them when they are missing — and what it says works: the files made
as it says let the director and the scorer log in to the real collector."""
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx

REPO = Path(__file__).resolve().parents[2]


def _env():
    return {k: v for k, v in os.environ.items()
            if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "BIDWIRE_DIRECTOR_PASSWORD", "BIDWIRE_SCORER_PASSWORD")}


def _url(proc, timeout=60):
    """The collector's address from the first lines it prints."""
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1)
        if ready:
            line = proc.stdout.readline()
            seen += line
            m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
            if m:
                return m.group(0)
        if proc.poll() is not None:
            break
    raise AssertionError(f"the collector did not start: {seen}{proc.stderr.read() if proc.poll() is not None else ''}")


def _login(url, password):
    with httpx.Client(base_url=url, timeout=10) as client:
        form = client.get("/login")
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
        r = client.post("/login", data={"csrf": csrf, "password": password})
        return r.status_code, r.headers.get("location")


def test_make_serve_says_how_to_create_missing_password_files_and_the_files_it_describes_work(tmp_path):
    data = tmp_path / "data"
    files = {role: data / f"{role}-password" for role in ("director", "scorer")}
    args = ["make", "-s", "--no-print-directory", "serve", f"DATA={data}", "PORT=0", f"KEYRING={tmp_path / 'k.json'}",
            f"DIRECTOR_PASSWORD_FILE={files['director']}", f"SCORER_PASSWORD_FILE={files['scorer']}"]
    for role, path in files.items():
        proc = subprocess.run(args, cwd=REPO, env=_env(), capture_output=True, text=True, timeout=300)
        assert proc.returncode != 0
        assert f"the {role} password file {path} does not exist: create it with (" in proc.stderr
        assert f"make serve DATA={data} {role.upper()}_PASSWORD_FILE={path}" in proc.stderr  # the user's DATA= kept
        how = re.search(r"create it with (\(.*?\)) and read the password", proc.stderr).group(1)
        subprocess.run(["sh", "-c", how], check=True, timeout=30)  # as a user would paste it
        assert path.stat().st_mode & 0o777 == 0o600 and len(path.read_text().strip()) >= 12
    server = subprocess.Popen(args, cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)  # its own group: make and the collector stop together
    try:
        url = _url(server)
        assert _login(url, files["director"].read_text().strip()) == (303, "/director")
        assert _login(url, files["scorer"].read_text().strip()) == (303, "/scorer")
        assert _login(url, "not-the-password")[0] == 401
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def _serve(data, *extra, seconds=None):
    """`bidwire serve` on `data` until it listens: (url, the process)."""
    server = subprocess.Popen([sys.executable, "-m", "bidwire_host.cli", "serve", "--data", str(data), "--port", "0",
                               *extra], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return _url(server), server


def _stop(server):
    """Stop it; what it printed after its address (read through the pipe's buffer, which _url may have filled)."""
    server.terminate()
    server.wait(timeout=30)
    return server.stdout.read(), server.stderr.read()


def test_serve_without_passwords_makes_them_on_the_first_run_and_prints_them_once(tmp_path):
    data = tmp_path / "data"
    url, server = _serve(data)
    try:
        assert _login(url, "not-the-password")[0] == 401
        files = {role: data / f"{role}-password" for role in ("director", "scorer")}
        for path in files.values():
            assert path.stat().st_mode & 0o777 == 0o600 and len(path.read_text().strip()) >= 16
        assert _login(url, files["director"].read_text().strip()) == (303, "/director")
        assert _login(url, files["scorer"].read_text().strip()) == (303, "/scorer")
    finally:
        out, err = _stop(server)
    for role, path in files.items():
        password = path.read_text().strip()
        assert f"{role} password: {password} (made now and kept in {path}; it is not shown again)" in out
        assert (out + err).count(password) == 1, out + err  # on the terminal once, never in the log
    # a new store goes through every schema migration: one line says so, not one per version
    assert "schema migrated" not in out + err and (out + err).count("store schema created at version") == 1
    url, server = _serve(data)  # the second run: the same passwords, not shown
    try:
        assert _login(url, files["director"].read_text().strip()) == (303, "/director")
    finally:
        out, err = _stop(server)
    for role, path in files.items():
        assert path.read_text().strip() not in out + err
        assert f"{role} password: the first line of {path}" in out


def test_make_serve_event_seats_the_provisioned_units_and_keeps_the_directors_changes(tmp_path):
    """`make serve EVENT=event.json` alone: the keyring's units in order at the tables in order, printed; a
    restart with the same event keeps the table map it had (a spare the director gave a table stays there)."""
    import json
    event = tmp_path / "event.json"
    subprocess.run([sys.executable, "-m", "bidwire_host.cli", "event", "create", str(event), "--name", "Club",
                    "--movement", "mitchell", "--tables", "3", "--boards-per-round", "2"], check=True,
                   capture_output=True, env=_env())
    keyring = tmp_path / "keyring.json"
    keyring.write_text(json.dumps({"units": {u: {"secret": "ab" * 32} for u in ("T01", "T02", "T03", "T04")}}))
    data = tmp_path / "data"
    args = ["make", "-s", "--no-print-directory", "serve", f"DATA={data}", "PORT=0", f"KEYRING={keyring}",
            f"EVENT={event}"]
    server = subprocess.Popen(args, cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        url = _url(server)
        seated = server.stdout.readline()  # printed right after the address
        token = (data / "api-token").read_text().strip()
        with httpx.Client(base_url=url, timeout=10, headers={"Authorization": f"Bearer {token}"}) as api:
            assigns = {(c["command"]["section"], c["command"]["table"]) for u in ("T01", "T02", "T03")
                       for c in api.get(f"/api/v1/units/{u}/commands").json()["commands"]
                       if c["command"]["type"] == "assign"}
            assert assigns == {("A", 1), ("A", 2), ("A", 3)}
            r = api.post("/api/v1/units/T04/table", json={"table": 2, "reason": "T02 died"})
            assert r.status_code == 201, r.text
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.communicate(timeout=30)
    assert seated.strip() == "tables: T01=A:1, T02=A:2, T03=A:3"
    server = subprocess.Popen(args, cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        _url(server)
        seated = server.stdout.readline()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.communicate(timeout=30)
    assert seated.strip() == "tables: T01=A:1, T04=A:2, T03=A:3"
