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


def test_serve_without_password_files_says_how_to_make_them(tmp_path):
    data = tmp_path / "data"
    server = subprocess.Popen([sys.executable, "-m", "bidwire_host.cli", "serve", "--data", str(data), "--port", "0"],
                              env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _url(server)
    finally:
        server.terminate()
        out, err = server.communicate(timeout=30)
    for role in ("director", "scorer"):
        assert f"note: no {role} password, so no {role} login; to set one, create it with (umask 077;" in err
        assert f"make serve DATA={data} {role.upper()}_PASSWORD_FILE={data / f'{role}-password'}" in err
        assert (out + err).count(f"no {role} password") == 1, out + err  # issue 26 item 10: it was said twice
    # a new store goes through every schema migration: one line says so, not one per version
    assert "schema migrated" not in out + err and (out + err).count("store schema created at version") == 1
