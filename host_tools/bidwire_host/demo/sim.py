"""`make demo-sim`: a simultaneous pairs across clubs, with no hardware (docs/hub.md).

    python -m bidwire_host.demo.sim [--clubs 3] [--tables 4] [--boards 8] [--port 0] [--exit-when-done]

Each club plays the whole Mitchell of TABLES tables on the sim's BOARDS boards (BOARDS / TABLES a round).

It starts a local PostgreSQL cluster and the hub (two workers) under build/demo-sim, sets up a sim as the organiser
would (the boards dealt once, the release time an hour away), registers one club per heat, and runs `make demo`'s
club session (demo/club.py) for each: its own collector and virtual units, the same hand set, its own members at the
tables. The last club plays offline: its link to the hub is a relay that opens only once its session is over, and
it uploads everything then. When every result is in, the organiser releases the sim; the demo prints the combined
ranking and board 1's frequency table, and writes the hub's `sim.pbn` and `sim.xml` (USEBIO) and each club's own
PBN (`<club id>.pbn`) into build/demo-sim/exports. Ctrl-C, or the end with --exit-when-done, stops every process it
started, PostgreSQL included.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click
import httpx2 as httpx

from bidwire_host.demo.play import demo_event
from bidwire_host.event import analysis
from bidwire_host.hub.localpg import Cluster
from bidwire_host.scoring.model import format_pct

ROOT = Path(__file__).resolve().parents[3]
SIM = "demo-sim"
SEED = 2026
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class Stopped(Exception):
    pass


def _stop(signum, _frame):
    raise Stopped(signum)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    """A child process in its own process group, its output echoed line by line with a prefix."""

    def __init__(self, args, prefix, echo, env=None, log=None):
        self.prefix, self.lines = prefix, []
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                     start_new_session=True)
        self._log = log
        self._thread = threading.Thread(target=self._read, args=(echo,), daemon=True)
        self._thread.start()

    def _read(self, echo):
        for line in self.proc.stdout:
            self.lines.append(line)
            if self._log is None:
                echo(f"{self.prefix} {line.rstrip()}")
            else:
                self._log.write(line)
                self._log.flush()

    def said(self, text):
        return any(text in line for line in self.lines)

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._thread.join(5)


class _Removed:
    """The demo's cluster: removed when the demo stops (it is made afresh for each run)."""

    def __init__(self, cluster):
        self.cluster = cluster

    def stop(self):
        self.cluster.remove()


class Relay:
    """The offline club's link to the hub: a loopback port that refuses connections until `open()`, then forwards
    each connection to the hub."""

    def __init__(self, upstream_port):
        self.upstream = upstream_port
        self.port = _free_port()
        self._server = None

    def open(self):
        self._server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream), timeout=10)
            except OSError:
                client.close()
                continue
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src, dst):
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stop(self):
        if self._server is not None:
            self._server.close()


@click.command()
@click.option("--clubs", default=3, show_default=True, type=click.IntRange(2, 12))
@click.option("--tables", default=4, show_default=True, type=click.IntRange(3, 30))
@click.option("--boards", default=8, show_default=True, type=click.IntRange(3, 120),
              help="The sim's boards: 1-4 a table (the boards a round of each club's Mitchell).")
@click.option("--port", default=0, show_default=True, type=click.IntRange(0, 65535), help="The hub's; 0: any free.")
@click.option("--exit-when-done", is_flag=True, help="Stop everything once the results are out.")
@click.option("--dir", "workdir", default=str(ROOT / "build" / "demo-sim"), show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Made afresh for each run.")
def main(clubs, tables, boards, port, exit_when_done, workdir):
    """Play a sim across clubs against a real hub on PostgreSQL, then print the combined ranking."""
    if boards % tables or not 1 <= boards // tables <= 4:
        raise click.BadParameter(f"give 1-4 boards a table: a multiple of {tables} up to {4 * tables}",
                                 param_hint="--boards")
    started = []
    for signum in STOP_SIGNALS:
        signal.signal(signum, _stop)
    try:
        _run(started, clubs, tables, boards, port or _free_port(), exit_when_done, Path(workdir))
    except Stopped as e:
        click.echo(f"\n{signal.Signals(e.args[0]).name}: stopping the clubs, the hub and PostgreSQL", err=True)
    finally:
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        for thing in reversed(started):
            thing.stop()


def _run(started, clubs, tables, boards, port, exit_when_done, workdir):
    echo = click.echo
    if workdir.exists():
        shutil.rmtree(workdir)
    (workdir / "exports").mkdir(parents=True)
    cluster = Cluster(workdir / "postgres", fresh=True)
    started.append(_Removed(cluster))
    cluster.start()
    echo(f"postgresql: a local cluster in {cluster.data} (socket {cluster.socket})")
    password_file = workdir / "organiser-password"
    password = os.urandom(9).hex()
    password_file.write_text(password + "\n")
    os.chmod(password_file, 0o600)
    env = {**os.environ, "BIDWIRE_HUB_PASSWORD_FILE": str(password_file)}
    hub = Proc([sys.executable, "-m", "bidwire_host.hub.serve", "--dsn", cluster.dsn, "--port", str(port),
                "--workers", "2", "--data", str(workdir / "hub")], "[hub]", echo, env)
    started.append(hub)
    url = f"http://127.0.0.1:{port}"
    org = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {password}"}, timeout=30)
    _wait(lambda: org.get("/healthz").status_code == 200, 60, "the hub did not start", hub)
    echo(f"hub: {url}/  organiser: {url}/organiser/sims/{SIM}  login: {password}  (also in {password_file})")

    played = _boards(tables, boards)
    hands = analysis.deal_session(played, SEED)  # as each club deals them (demo/play.py, the same seed)
    r = org.post("/api/v1/sims", json={"id": SIM, "name": "bidwire demo sim", "boards": played,
                                       "release_at": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
                                       "hands_pbn": hands})
    r.raise_for_status()
    ids = [f"C{k}" for k in range(1, clubs + 1)]
    relay = Relay(port)
    started.append(relay)
    runs = {}
    for k, club in enumerate(ids, 1):
        secret = org.post(f"/api/v1/sims/{SIM}/clubs", json={"id": club, "name": f"Club {club}"}).json()["secret"]
        secret_file = workdir / f"{club}-secret"
        secret_file.write_text(secret + "\n")
        os.chmod(secret_file, 0o600)
        offline = k == clubs
        link = f"http://127.0.0.1:{relay.port}" if offline else url
        log = open(workdir / f"{club}.log", "w")  # noqa: SIM115 - open while the club plays
        runs[club] = Proc([sys.executable, "-m", "bidwire_host.demo.club", "--tables", str(tables),
                           "--boards-per-round", str(boards // tables), "--port", "0", "--seed", str(SEED + k),
                           "--deal-seed", str(SEED),
                           "--exit-when-done", "--dir", str(workdir / "clubs" / club),
                           "--sim", link, SIM, club, str(secret_file)], f"[{club}]", echo, log=log)
        started.append(runs[club])
        late = ", offline until its session is over" if offline else ""
        echo(f"club {club}: a {tables}-table Mitchell, {boards // tables} boards a round{late} (log {log.name})")
    offline = ids[-1]
    _wait(lambda: runs[offline].said("director alerts:"), 900, f"club {offline}'s session did not end",
          runs[offline])
    echo(f"club {offline}: session over; its link to the hub is open now")
    relay.open()
    for club in ids:
        _wait(lambda c=club: runs[c].said("director alerts:"), 900, f"club {club}'s session did not end",
              runs[club])
    expected = sum(_results(workdir / "clubs" / c) for c in ids)
    _wait(lambda: org.get(f"/api/v1/sims/{SIM}/progress").json()["results"] >= expected, 600,
          "the hub did not get every result", hub)
    echo(f"hub: all {expected} results in from {clubs} clubs; the organiser releases the sim")
    org.patch(f"/api/v1/sims/{SIM}", json={"release_at": datetime.now(UTC).isoformat()}).raise_for_status()
    for club in ids:
        _wait(lambda c=club: runs[c].proc.poll() is not None, 300, f"club {club} did not finish", runs[club])
        if runs[club].proc.returncode:
            raise click.ClickException(f"club {club}'s session failed: see {workdir / f'{club}.log'}")
    results = org.get(f"/api/v1/sims/{SIM}/results").json()
    _print(results, echo)
    exports = workdir / "exports"
    (exports / "sim.pbn").write_bytes(org.get(f"/api/v1/sims/{SIM}/export.pbn").content)
    (exports / "sim.xml").write_bytes(org.get(f"/api/v1/sims/{SIM}/export.xml").content)
    for club in ids:
        shutil.copyfile(workdir / "clubs" / club / "exports" / "bidwire.pbn", exports / f"{club}.pbn")
    echo(f"exports: {', '.join(sorted(p.name for p in exports.iterdir()))} in {exports}")
    if not exit_when_done:
        echo(f"\nthe hub keeps running at {url}/sims/{SIM} — Ctrl-C stops it and PostgreSQL")
        hub.proc.wait()


def _boards(tables, boards):
    """The boards a club's session plays (its movement's, as demo/club.py builds it)."""
    ev = demo_event({"type": "mitchell", "tables": tables}, boards // tables, SEED)
    plan = ev.sessions[0].sections[0].movement_plan()
    return sorted({b for r in range(1, plan.rounds + 1) for t in plan.in_round(r) for b in t.boards})


def _results(club_dir):
    import sqlite3
    db = sqlite3.connect(f"file:{club_dir / 'data' / 'bidwire.sqlite3'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT count(*) FROM results WHERE section IS NOT NULL").fetchone()[0]
    finally:
        db.close()


def _wait(ok, timeout, why, proc):
    deadline = time.monotonic() + timeout
    while True:
        try:
            if ok():
                return
        except (httpx.HTTPError, OSError, ValueError, KeyError):
            pass
        if proc.proc.poll() is not None and not ok_safe(ok):
            raise click.ClickException(f"{why}: {proc.prefix} stopped ({''.join(proc.lines[-5:]).strip()})")
        if time.monotonic() > deadline:
            raise click.ClickException(why)
        time.sleep(0.5)


def ok_safe(ok):
    try:
        return ok()
    except (httpx.HTTPError, OSError, ValueError, KeyError):
        return False


def _print(results, echo):
    echo("\ncombined ranking (Neuberg across the field):")
    field = None
    for e in results["ranking"]:
        if e["field"] != field:
            field = e["field"]
            echo(f"  {'North-South' if field == 'NS' else 'East-West' if field == 'EW' else 'All pairs'}")
        echo(f"    {e['rank']:>4}  {e['club']:<4} {e['section']}{e['pair']:<3} {e['pct']:>6} %  {e['names']}")
    rows = results["boards"].get("1", [])
    freq = {}
    for r in rows:
        key = r["score_ns"] if r["score_ns"] is not None else "adjusted"
        freq.setdefault(key, [0, r["pct_ns"]])[0] += 1
    echo("\nboard 1, frequencies across the field (NS score: times, NS %):")
    for score, (n, pct) in sorted(freq.items(), key=lambda kv: -kv[0] if isinstance(kv[0], int) else 0):
        echo(f"  {score:>6}: {n}  {format_pct(pct)} %")


if __name__ == "__main__":
    main()
