"""A throwaway PostgreSQL cluster and a real hub (two uvicorn workers) for the hub's tests, and a club's signed
uploads. Everything it starts, it stops."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
from collector_proc import healthy
from waiting import wait_until

from bidwire_host import signing
from bidwire_host.hub.localpg import Cluster

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "organiser-test-password"
# A two-board hand set for a sim (Law 2: board 1 dealt by North, none vulnerable; board 2 by East, NS vulnerable).
HANDS = """[Event "sim"]
[Board "1"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"]

[Board "2"]
[Dealer "E"]
[Vulnerable "NS"]
[Deal "N:T9876.AKQ.AKQ.AK AKQJ.JT9.JT9.JT9 5432.876.876.876 .5432.5432.Q5432"]
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Hub:
    def __init__(self, dsn, folder, workers=2, password=PASSWORD):
        self.dsn, self.folder, self.workers, self.password = dsn, Path(folder), workers, password
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self):
        pw = self.folder / "organiser-password"
        pw.write_text(self.password + "\n")
        env = {**os.environ, "BIDWIRE_HUB_PASSWORD_FILE": str(pw),
               "PYTHONPATH": os.pathsep.join([str(ROOT / "host_tools"), str(ROOT / "firmware")])}
        self.log = open(self.folder / "hub.log", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([sys.executable, "-m", "bidwire_host.hub.serve", "--dsn", self.dsn,
                                      "--port", str(self.port), "--workers", str(self.workers),
                                      "--data", str(self.folder)], env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        def up():
            if self.proc.poll() is not None:
                raise RuntimeError(f"the hub stopped: {(self.folder / 'hub.log').read_text()[-2000:]}")
            return healthy(self.url)

        wait_until(up, 60, 0.1, "the hub to answer /healthz")
        return self

    def workers_pids(self):
        """The live worker processes: uvicorn's children spawned by multiprocessing, read from /proc (ps would cut
        long command lines to COLUMNS), multiprocessing's resource tracker and any unreaped zombie left out."""
        pids = []
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            try:
                pids += [int(p) for p in (task / "children").read_text().split()]
            except OSError:
                continue
        workers = []
        for pid in sorted(set(pids)):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue  # gone while we looked
            if b"multiprocessing.spawn" in cmdline and state != "Z":
                workers.append(pid)
        return workers

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()

    # ---- clients ---------------------------------------------------------------------------------------
    def organiser(self):
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.password}"}, timeout=30)

    def public(self):
        return httpx.Client(base_url=self.url, timeout=30)


def upload_body(sim, club, number, results):
    return json.dumps({"sim": sim, "club": club, "upload": number, "results": results}).encode()


def post_upload(url, club, secret_hex, body, *, as_club=None, signature=None):
    sig = signature or signing.sign(body, bytes.fromhex(secret_hex))
    return httpx.post(url + "/api/v1/upload", content=body, timeout=30,
                      headers={signing.HEADER_CLUB: as_club or club, signing.HEADER_SIGNATURE: sig,
                               "Content-Type": "application/json"})


def played(section, board, ns, ew, contract, declarer, tricks, score_ns, **extra):
    return {"section": section, "board": board, "ns": ns, "ew": ew, "contract": contract, "declarer": declarer,
            "tricks": tricks, "score_ns": score_ns, **extra}


# The two screens the hub's pages are tried on in chromium: a phone and a desktop
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}


@contextmanager
def hub_of_its_own():
    """A hub (two workers) on a throwaway cluster of its own, both stopped at the end."""
    with Pg() as cluster, tempfile.TemporaryDirectory(prefix="bidwire-hub-") as folder:
        hub = Hub(cluster.dsn, folder).start()
        try:
            yield hub
        finally:
            hub.stop()


class Pg:
    """A cluster in a folder of its own under /tmp (the server's user must reach it), removed at the end."""

    def __enter__(self):
        self.folder = tempfile.mkdtemp(prefix="bidwire-pg-")
        os.chmod(self.folder, 0o755)
        self.cluster = Cluster(self.folder).start()
        return self.cluster

    def __exit__(self, *exc):
        self.cluster.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
