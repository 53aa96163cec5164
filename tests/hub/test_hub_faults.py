"""Faults on the hub's side: a worker killed with SIGKILL during uploads, and PostgreSQL restarted under it. The
club retries as a collector does (the same upload again until it is acknowledged); nothing acknowledged is lost and
nothing is stored twice."""
import os
import signal
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta

import httpx2 as httpx
from hubkit import Hub, Pg, played, post_upload, upload_body

UPLOADS = 60


def _sim(hub, sim):
    with hub.organiser() as org:
        r = org.post("/api/v1/sims", json={"id": sim, "name": sim, "boards": [1],
                                           "release_at": (datetime.now(UTC) + timedelta(days=1)).isoformat()})
        assert r.status_code == 201, r.text
        return org.post(f"/api/v1/sims/{sim}/clubs", json={"id": "A", "name": "A"}).json()["secret"]


def _club(hub, sim, secret, acked, errors):
    """Upload n = 1..UPLOADS, each retried until acknowledged (a connection error or a 5xx: send it again)."""
    for n in range(1, UPLOADS + 1):
        body = upload_body(sim, "A", n, [played("A", 1, str(n), str(n), "3NT", "N", 9, 400)])
        for _ in range(600):
            try:
                r = post_upload(hub.url, "A", secret, body)
            except httpx.HTTPError as e:
                errors.append(type(e).__name__)
                time.sleep(0.05)
                continue
            if r.status_code >= 500:
                errors.append(r.status_code)
                time.sleep(0.05)
                continue
            assert r.status_code == 200, r.text
            acked.append(n)
            break


def _stored(hub, sim):
    with hub.organiser() as org:
        for _ in range(100):
            r = org.get(f"/api/v1/sims/{sim}/results")
            if r.status_code == 200:
                return sorted(int(x["ns"]) for x in r.json()["boards"].get("1", []))
            time.sleep(0.1)
    raise AssertionError(r.text)


def _run_with(fault, hub, sim):
    secret = _sim(hub, sim)
    acked, errors = [], []
    t = threading.Thread(target=_club, args=(hub, sim, secret, acked, errors))
    t.start()
    while len(acked) < 15 and t.is_alive():
        time.sleep(0.01)
    fault()
    t.join(120)
    assert not t.is_alive()
    return acked, errors


def test_a_worker_killed_during_uploads_loses_nothing_acknowledged(pg):
    with tempfile.TemporaryDirectory(prefix="bidwire-hub-") as folder:
        hub = Hub(pg.dsn, folder).start()
        try:
            victim = hub.workers_pids()[0]
            acked, _ = _run_with(lambda: os.kill(victim, signal.SIGKILL), hub, "faults-kill")
            assert acked == list(range(1, UPLOADS + 1))
            assert _stored(hub, "faults-kill") == acked  # each once: the primary key and the upload number
            assert victim not in hub.workers_pids()
        finally:
            hub.stop()


def test_a_postgresql_restart_during_uploads_loses_nothing(tmp_path):
    with Pg() as cluster, tempfile.TemporaryDirectory(prefix="bidwire-hub-") as folder:
        hub = Hub(cluster.dsn, folder).start()
        try:
            acked, errors = _run_with(cluster.restart, hub, "faults-restart")
            assert acked == list(range(1, UPLOADS + 1))
            assert _stored(hub, "faults-restart") == acked
        finally:
            hub.stop()
