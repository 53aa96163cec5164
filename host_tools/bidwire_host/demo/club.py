"""`make demo`: a club session with no hardware. The collector (`bidwire serve`) runs a Mitchell from an event
file; one virtual unit per table (the real firmware on the MicroPython unix port, real journals, real HTTP with
HMAC) plays the boards the collector assigns it, round after round; then the ranking and a traveller are printed.

    python -m bidwire_host.demo.club [--tables 5] [--boards N] [--port 8080] [--exit-when-done]

Everything is made afresh under build/demo: the units are provisioned (`bidwire provision`), the event is created
(`bidwire event create`'s library), the units run on the 32-bit build with the firmware frozen in (`make mp32`; the
64-bit port with .mpy files, after a notice, where it cannot be built), and a director password and a scorer
password are generated (build/demo/director-password and build/demo/scorer-password, mode 600) for the
dashboard, whose address and logins are printed once the collector is up.

The event, its hand records and the scripted players are demo_play's: names on every pair, deals analysed double
dummy here and by the collector (which the tables wait for), leads and tricks that agree with the deals, one wrong
entry staged for the director's queue; seeded, so two runs play the same session. At the end the session's exports
(PBN, USEBIO, the CSV zip, the LIN zip) are downloaded into build/demo/exports, as the scorer would.

TERM, INT or HUP, whether sent to the terminal's group (Ctrl-C) or to this process alone, stops every process the
demo started. The folder is locked (build/demo/.lock, passed on to the collector) while the demo or its collector
runs there: a second demo on it refuses rather than wipe it from under a running collector.
"""
import fcntl
import json
import os
import re
import secrets
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import click
import httpx2 as httpx

from bidwire_host.collector.store import DB_NAME
from bidwire_host.demo.play import HANDS, TD_CALL, Deals, _table_play, demo_event, write_event
from bidwire_host.event import model as event_mod
from bidwire_host.event import seating
from bidwire_host.event.analysis import tricks_for
from bidwire_host.event.team_schedule import KINDS as TEAM_EVENTS
from bidwire_host.unit_tools import provision as provision_mod
from bidwire_host.unit_tools.simulator import UnitError, VirtualUnit, unit_runtime

__all__ = ["TD_CALL", "Deals", "_table_play", "demo_event", "main", "write_event"]  # the chaos test plays the book

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


class Collector:
    """`bidwire serve` in a subprocess; `keep_fds` are passed on to it (the demo's lock on its folder)."""

    def __init__(self, data, keyring, port, event_file, tables, echo, password_file=None, scorer_file=None,
                 keep_fds=(), method=None, session=None):
        self.log_path = data / "serve.log"
        self.log = open(self.log_path, "w")
        args = [str(BIN / "bidwire"), "serve", "--data", str(data), "--keyring", str(keyring), "--port", str(port),
                "--log-level", "warning", "--event", str(event_file), "--tables", tables]
        if method is not None:
            args += ["--method", method]
        if session is not None:  # the event's session this folder plays
            args += ["--play-session", session]
        if password_file is not None:
            args += ["--director-password-file", str(password_file)]
        if scorer_file is not None:
            args += ["--scorer-password-file", str(scorer_file)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True, pass_fds=keep_fds)
        try:
            self._started(data, echo)
        except BaseException:  # it did not start, or a signal came meanwhile: not left running
            self.stop()
            raise

    def _started(self, data, echo):
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline() if ready else ""
        m = re.search(r"http://[\w.]+:(\d+)", line)
        if m is None:
            raise click.ClickException(f"the collector did not start:\n{self._why(line)}\n"
                                       f"(its whole log: {self.log_path})")
        self.url = f"http://127.0.0.1:{m.group(1)}"
        echo(f"collector: {self.url}  (API docs {self.url}/docs; the API's token is in {data / 'api-token'})")
        for _ in range(200):
            try:
                if httpx.get(self.url + "/healthz", timeout=2).status_code == 200:
                    self.token = (data / "api-token").read_text().strip()
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise click.ClickException("the collector never answered /healthz")

    def _why(self, line, lines=8):
        """The last lines of the collector's log (the reason it gave, such as the port in use), once it ended."""
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.log.flush()
        tail = [t for t in self.log_path.read_text(errors="replace").splitlines() if t.strip()][-lines:]
        said = ([line.strip()] if line.strip() else []) + tail
        return "\n".join(f"  {t}" for t in said) or f"  (it said nothing; it exited with {self.proc.returncode})"

    def get(self, path):
        """GET from the director's API with the collector's API token (data/api-token, made at its start)."""
        r = httpx.get(self.url + path, headers={"Authorization": f"Bearer {self.token}"}, timeout=10)
        r.raise_for_status()
        return r.json()

    def post(self, path, body):
        """POST a JSON body to the director's API with the collector's API token; the reply's JSON."""
        r = httpx.post(self.url + path, json=body, headers={"Authorization": f"Bearer {self.token}"}, timeout=30)
        r.raise_for_status()
        return r.json()

    def download(self, path):
        """The body of a GET from the director's API (an export), as bytes."""
        r = httpx.get(self.url + path, headers={"Authorization": f"Bearer {self.token}"}, timeout=30)
        r.raise_for_status()
        return r.content

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _director_password(path):
    """A fresh dashboard password (the director's or the scorer's), written to `path` (mode 600, readable by no
    one else)."""
    password = secrets.token_urlsafe(12)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(password + "\n")
    os.chmod(path, 0o600)
    return password


def _rounds(ev, session=None):
    """How many rounds the event's movement has (its assignments stop there; a Swiss's, once all are drawn)."""
    plan = ev.sessions[0].sections[0].movement_plan()
    if plan.kind in TEAM_EVENTS:
        return plan.full_rounds
    n = 0
    while True:
        try:
            if not seating.assignments(ev, n + 1, session):
                return n
        except event_mod.EventError:
            return n
        n += 1


def _assign(collector, unit, round_no):
    for c in collector.get(f"/api/v1/units/{unit}/commands")["commands"]:
        if c["command"]["type"] == "assign" and c["command"]["round"] == round_no and c["applied"]:
            return c["command"]
    return None


def _play_table(collector, vu, unit, table, rounds, deals, echo, errors):
    """Play the table's rounds as the collector assigns them; `deals` is the session's Deals."""
    try:
        for round_no in range(1, rounds + 1):
            deadline = time.monotonic() + 120
            while (a := _assign(collector, unit, round_no)) is None:  # the round's boards, once the unit has them
                if errors:
                    return  # another table stopped: the round will not finish
                if time.monotonic() > deadline:
                    raise UnitError(f"{unit}: no assignment for round {round_no} after 120 s")
                vu.write("sync 1000")
                time.sleep(0.3)
            for board in a["boards"]:
                lines, contract, declarer, tricks = deals.play(board, table)
                for line in lines:
                    if not vu.key(line):
                        raise UnitError(f"{unit}: board {board}: the unit did not take {line!r}: {vu.frame()}")
                made = "" if contract == "Pass" else f" by {declarer}, {tricks} tricks"
                echo(f"  table {table} round {round_no} board {board:>2}: {contract}{made}")
            vu.write("sync 10000")
        vu.write("sync 10000")
    except Exception as e:  # noqa: BLE001 - reported by the main thread
        errors.append(e)


def _analysed(data, boards, timeout=120):
    """Wait until the collector has stored the double-dummy analysis of `boards` deals (it runs in the background
    once the event is loaded): the check of a result against double dummy is made when the result arrives."""
    deadline = time.monotonic() + timeout
    while True:
        db = sqlite3.connect(f"file:{data / DB_NAME}?mode=ro", uri=True)
        try:
            n = db.execute("SELECT count(DISTINCT board) FROM analysis").fetchone()[0]
        except sqlite3.OperationalError:  # the store not made yet
            n = 0
        finally:
            db.close()
        if n >= boards:
            return n
        if time.monotonic() > deadline:
            raise click.ClickException(f"the collector stored the analysis of {n} of {boards} deals in {timeout} s "
                                       f"(its log: {data / 'serve.log'})")
        time.sleep(0.2)


# format -> file name (csv: the zip of its tables; lin: the zip of a file per board)
EXPORTS = {"pbn": "bidwire.pbn", "usebio": "bidwire.xml", "csv": "bidwire.zip", "lin": "bidwire-lin.zip"}


def _exports(collector, workdir, echo, sections=("A",)):
    """The session's exports as the scorer downloads them (GET /api/v1/export/...), into workdir/exports: a section
    at a time when there are several (bidwire-A.pbn, bidwire-B.pbn, ...)."""
    out = workdir / "exports"
    out.mkdir(exist_ok=True)
    written = []
    for section in sections:
        for fmt, name in EXPORTS.items():
            if len(sections) > 1:
                stem, _, ext = name.partition(".")
                name = f"{stem}-{section}.{ext}"
            query = f"?section={section}" if len(sections) > 1 else ""
            (out / name).write_bytes(collector.download(f"/api/v1/export/{fmt}{query}"))
            written.append(out / name)
    echo(f"exports: {', '.join(map(str, written))}")


def _join_sim(event_file, data, hub, sim_id, club, secret_file):
    """The event names the sim; the club's secret goes into the collector's data directory (uplink.read_secret)."""
    event = json.loads(event_file.read_text(encoding="utf-8"))
    event["sim"] = {"hub": hub, "id": sim_id, "club": club, "secret_file": "hub-secret"}
    event_file.write_text(json.dumps(event, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    target = data / "hub-secret"
    shutil.copyfile(secret_file, target)
    os.chmod(target, 0o600)


def _hub_done(collector, echo):
    """Wait until the hub holds every result (the upload's backlog is empty) and has released the sim, saying
    what it waits for when that changes: the club's exports then carry the sim's boards."""
    said = None
    while True:
        status = collector.get("/api/v1/hub")
        if status.get("backlog") == 0 and status.get("released"):
            echo("hub: every result acknowledged; the sim is released")
            return
        now = ("hub: uploading, " + f"{status.get('backlog')} results to go" if status.get("backlog")
               else "hub: every result acknowledged; waiting for the organiser's release")
        if status.get("error"):
            now = f"hub: cannot upload yet ({status['error']}); retrying"
        if now != said:
            echo(now)
            said = now
        time.sleep(1)


def _table_talk(data):
    """Irregularities and director calls the units reported (the collector's store, read-only)."""
    db = sqlite3.connect(f"file:{data / DB_NAME}?mode=ro", uri=True)
    try:
        kinds = db.execute("SELECT kind, law, count(*) FROM irregularities GROUP BY kind, law ORDER BY kind").fetchall()
        calls = db.execute("SELECT count(*) FROM director_calls").fetchone()[0]
    finally:
        db.close()
    return kinds, calls


def _director(collector, echo, done, errors):
    """The director's part in a Swiss: once a match round is over, push the next draw, the rule's, to the tables
    (POST /api/v1/teams/draw), saying what it is; until the session ends (`done`) or a table stops."""
    pushed = set()
    try:
        while not done.is_set() and not errors:
            for sec in collector.get("/api/v1/teams")["sections"]:
                nxt = sec["draw"]
                if nxt and nxt["ready"] and nxt["round"] not in pushed:
                    collector.post("/api/v1/teams/draw", {"section": sec["section"], "round": nxt["round"],
                                                          "by": "director"})
                    pushed.add(nxt["round"])
                    said = ", ".join(f"{h} v {a}" for h, a in nxt["proposed"])
                    echo(f"  draw for match {nxt['round']}: {said}" + (f"; team {nxt['bye']} has the bye"
                                                                        if nxt["bye"] else ""))
            done.wait(0.5)
    except Exception as e:  # noqa: BLE001 - reported by the main thread
        errors.append(e)


def _print_teams(collector, echo):
    """A teams event's standings in VPs and its last match round's matches."""
    for sec in collector.get("/api/v1/teams")["sections"]:
        echo(f"\nstandings ({'Swiss' if sec['kind'] == 'swiss-teams' else 'round robin'}, {sec['drawn']} matches, "
             f"VPs on the {sec['scale'].upper()} scale):")
        for s in sec["standings"]:
            echo(f"  {s['rank']:>3}  team {s['team']:>2}  {s['vps']:>6} VPs  IMPs {s['imps_for']:>4} - "
                 f"{s['imps_against']:<4}  {s['name']}")
        last = max(m["round"] for m in sec["matches"])
        echo(f"\nmatch {last}:")
        for m in sec["matches"]:
            if m["round"] == last:
                echo(f"  tables {m['tables'][0]}-{m['tables'][1]}  {m['home_name']} v {m['away_name']}  "
                     f"{m['imps'][0]}-{m['imps'][1]} IMPs  {'-'.join(m['vps'] or ['?', '?'])} VPs")


def _print_field(collector, echo):
    """Two sections ranked across the field, each pair's place in its own section beside it."""
    field = collector.get("/api/v1/field")
    echo("\nranking across the field (each pair's place in its own section after it):")
    for e in field["ranking"]:
        echo(f"  {e['direction'] or '  '} {e['rank']:>3}  pair {e['section']}{e['pair']:<3} {e['mp']:>5} of "
             f"{e['top']}  {e['pct']:>6} %  ({e['section_rank']} in {e['section']})  {e['names']}")


def _print_players(collector, echo):
    """An individual's players, ranked on their partnerships' matchpoints."""
    for sec in collector.get("/api/v1/individuals")["sections"]:
        echo("\nthe players (an individual: each on his partnerships' matchpoints):")
        for p in sec["players"]:
            echo(f"  {p['rank']:>3}  player {p['player']:>2}  {p['mp']:>5} of {p['top']}  {p['pct']:>6} %")


def _print_results(collector, deals, echo):
    """The ranking and board 1's traveller with the pairs' names as the collector gives them (the event's players,
    with any fix of the director's), then the director's queue."""
    ranking = collector.get("/api/v1/ranking")
    echo(f"\nranking ({ranking['method']}):")
    for r in ranking["ranking"]:
        rank = f"{r['rank']}{'=' if r['tied'] else ''}"
        line = r["direction"] or "  "
        echo(f"  {line} {rank:>3}  pair {r['pair']:>3}  {r['mp']:>5} of {r['top']}  {r['pct']:6.2f} %  "
             f"{r['names'] or ''}")
    trav = collector.get("/api/v1/travellers/1")["rows"]
    echo("\ntraveller, board 1 (dd: double dummy's tricks for the contract):")
    for r in trav:
        dd = tricks_for(deals.tables.get(1), r["contract"], r["declarer"])
        echo(f"  table {r['table']}  NS {r['ns']:>2} EW {r['ew']:>2}  {r['contract'] or 'Pass':<5} "
             f"{r['declarer'] or '':<2} {r['tricks'] if r['tricks'] is not None else '':>2} "
             f"{'' if dd is None else f'dd {dd}':<5} {r['score_ns']:>6}  {r['mp_ns']} mp  "
             f"{r['ns_names'] or ''} v {r['ew_names'] or ''}")
    still = collector.get("/api/v1/queue?state=open")
    done = collector.get("/api/v1/queue?state=closed")
    echo(f"\ndirector alerts: {still['total']} open, {done['total']} closed (settled at the table or dealt with)")
    for a in still["alerts"][:10]:
        echo(f"  open: {a['unit']} board {a['board']}: {str(a['kind']).replace('_', ' ')}")


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
LOCK = ".lock"  # in the demo's folder, never wiped: held while the demo or its collector runs


class Stopped(Exception):
    """TERM, INT or HUP reached the demo; args[0] is the signal."""


def _stop(signum, _frame):
    raise Stopped(signum)


class _Lock:
    """The demo's folder lock (flock), held by the demo and passed on to its collector, so that a collector left
    running (its demo killed with SIGKILL) still holds it. The file says who holds it."""

    def __init__(self, path):
        self.file = open(path, "a+")

    def fileno(self):
        return self.file.fileno()

    def held_by(self, who, pid):
        self.file.seek(0)
        self.file.truncate()
        self.file.write(f"{who}\n{pid}\n")
        self.file.flush()

    def stop(self):
        self.file.close()


def _claim(workdir):
    """Lock workdir and empty it for a new run; refuse, wiping nothing, while another demo's collector runs on it."""
    workdir.mkdir(parents=True, exist_ok=True)
    lock = _Lock(workdir / LOCK)
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.file.seek(0)
        said = lock.file.read().split("\n")
        lock.stop()
        who, pid = (said[0], said[1]) if len(said) > 1 and said[1].isdigit() else ("another demo", None)
        how = f"stop it (kill {pid})" if pid else "stop it"
        raise click.ClickException(f"{workdir} is in use: {who} is still running there, so nothing was wiped; "
                                   f"{how} or give this demo another folder (--dir)") from None
    lock.held_by(f"demo pid {os.getpid()}", os.getpid())
    for entry in workdir.iterdir():
        if entry.name == LOCK:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    return lock


@click.command()
@click.option("--tables", default=5, show_default=True, type=click.IntRange(3, 30),
              help="Tables; an even number plays the Mitchell with a skip.")
@click.option("--boards", type=click.IntRange(1), help="Boards each table plays (a shorter session); default all.")
@click.option("--boards-per-round", default=2, show_default=True, type=click.IntRange(1, 4))
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535), help="0: any free port.")
@click.option("--heap", help="The virtual units' MicroPython heap (default: 48K frozen, 160K on the 64-bit port).")
@click.option("--seed", default=2026, show_default=True, help="The draw of tricks: the same seed, the same session.")
@click.option("--exit-when-done", is_flag=True,
              help="Stop everything when the session is over (default: the collector keeps running until Ctrl-C).")
@click.option("--dir", "workdir", default=str(ROOT / "build" / "demo"), show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Made afresh for each run.")
@click.option("--deal-seed", type=int, help="Deal the boards with this seed (default --seed): a sim's clubs share it.")
@click.option("--sim", nargs=4, metavar="HUB SIM CLUB SECRET_FILE",
              help="Play a heat of a sim: the hub's URL, the sim's id, this club's id and its secret's file.")
@click.option("--movement", default="mitchell", show_default=True,
              type=click.Choice(["mitchell", "arrow-switch", "across-field", "two-sessions", "barometer",
                                 "individual", "swiss-teams", "round-robin"]),
              help="A pairs Mitchell (arrow-switch: switched in its last round, one winner; across-field: two "
                   "sections of it scored as one field; two-sessions: an afternoon and an evening, each in a data "
                   "folder of its own, ranked together), a barometer (Howell "
                   "seating), the 4-table individual, or a teams night: a Swiss (its draws pushed by the demo's "
                   "director) or a round robin.")
@click.option("--teams", default=6, show_default=True, type=click.IntRange(3, 16),
              help="Teams of a swiss-teams or round-robin night.")
@click.option("--matches", type=click.IntRange(1), help="A Swiss's matches (default 4, fewer with few teams).")
def main(tables, boards, boards_per_round, port, heap, seed, exit_when_done, workdir, deal_seed, sim, movement,
         teams, matches):
    """Play a whole session on virtual units against a real collector (a Mitchell; or a Swiss or round robin of
    teams), then print the ranking."""
    started = []  # what this run started and must stop: the collector, the virtual units
    for signum in STOP_SIGNALS:  # Ctrl-C reaches the terminal's whole group; kill -TERM/-HUP only this process
        signal.signal(signum, _stop)
    try:
        if movement == "two-sessions":
            _two_sessions(started, tables, boards, boards_per_round, port, heap, seed, workdir, deal_seed)
        else:
            _session(started, tables, boards, boards_per_round, port, heap, seed, exit_when_done, workdir,
                     deal_seed, sim, movement, teams, matches)
    except Stopped as e:
        click.echo(f"\n{signal.Signals(e.args[0]).name}: the collector and the virtual units are stopped", err=True)
    finally:
        for signum in STOP_SIGNALS:  # a second Ctrl-C must not cut the stopping short
            signal.signal(signum, signal.SIG_IGN)
        for thing in reversed(started):
            thing.stop()


def _two_sessions(started, tables, boards, boards_per_round, port, heap, seed, workdir, deal_seed):
    """An event of two sessions: the afternoon and the evening each played in a folder of its own
    (`bidwire serve --play-session`), the same pairs, other deals; then the event ranked as a whole (`bidwire
    overall`: the percentages averaged over the boards played), and the whole event's files written."""
    from bidwire_host.collector import event_files
    from bidwire_host.scoring.model import format_number

    for k, name in enumerate(("Afternoon", "Evening")):
        echo = click.echo
        echo(f"\n--- {name} ---")
        mine = []
        try:
            _session(mine, tables, boards, boards_per_round, port, heap, seed, True, workdir / name.lower(),
                     (deal_seed if deal_seed is not None else seed) + k, play_session=name)
        finally:
            for thing in reversed(mine):
                thing.stop()
    whole = event_files.whole_event([workdir / "afternoon" / "data", workdir / "evening" / "data"])
    sessions, ranked = whole.names, whole.ranked
    click.echo(f"\noverall ({', '.join(sessions)}: percentages averaged over the boards played):")
    for o in ranked:
        each = "  ".join("-" if p is None else f"{float(p):6.2f}" for p in o.sessions)
        click.echo(f"  {o.rank:>4}  {format_number(o.score)!s:>6} %  ({each})  {o.name or ' '.join(map(str, o.who))}")
    (workdir / "exports").mkdir(exist_ok=True)
    for fmt, name in (("pbn", "event.pbn"), ("usebio", "event.xml")):  # what `bidwire overall --pbn --usebio` writes
        (workdir / "exports" / name).write_text(event_files.render(whole, fmt), encoding="utf-8", newline="")
    click.echo(f"the whole event's files: {workdir / 'exports' / 'event.pbn'}, {workdir / 'exports' / 'event.xml'}")


def _session(started, tables, boards, boards_per_round, port, heap, seed, exit_when_done, workdir, deal_seed=None,
             sim=None, kind="mitchell", teams=6, matches=None, play_session=None):
    echo = click.echo
    team_night = kind in TEAM_EVENTS
    movement = {"type": "mitchell", "tables": tables}
    if kind == "arrow-switch":
        movement["arrow_switch"] = [tables - (tables % 2 == 0)]  # the last round (an even Mitchell skips one)
    elif kind == "barometer":
        movement = {"type": "barometer", "tables": tables, "rounds": min(2 * tables - 1, 5)}
    elif kind == "individual":
        movement = {"type": "individual", "tables": 4}
    if team_night:
        movement = {"type": kind}
        if kind == "swiss-teams":
            movement["rounds"] = matches or min(4, teams - 1 + teams % 2)
        elif matches is not None:
            movement["rounds"] = matches
    elif boards is not None and kind != "individual":
        if boards % boards_per_round:
            raise click.BadParameter(f"give a multiple of {boards_per_round} (the boards a round)",
                                     param_hint="--boards")
        movement["rounds"] = boards // boards_per_round
    try:
        ev = demo_event(movement, boards_per_round, seed, teams if team_night else None,
                        sections=2 if kind == "across-field" else 1, sessions=2 if play_session else 1)
    except event_mod.EventError as e:
        raise click.ClickException(str(e)) from None
    rounds = _rounds(ev, play_session)
    plan = ev.sessions[0].sections[0].movement_plan()
    tables = plan.tables
    lock = _claim(workdir)
    started.append(lock)
    (workdir / "data").mkdir(parents=True)
    runtime = unit_runtime(ROOT, workdir / "firmware", heap, notice=lambda line: echo(line, err=True))
    echo(f"virtual units: {runtime}")
    seats = {i + 1: (sec.name, t) for i, (sec, t) in enumerate((sec, t) for sec in ev.sessions[0].sections
                                                              for t in range(1, tables + 1))}
    units = {i: f"T{i:02d}" for i in seats}
    keyring = workdir / "units" / "keyring.json"
    url_hint = f"http://127.0.0.1:{port or 8080}"
    for unit in units.values():
        provision_mod.provision(unit, url_hint, workdir / "units" / f"{unit}.json", keyring=keyring, board="unix_sim")
    event_file = workdir / "event.json"
    deals = write_event(ev, event_file, seed, deal_seed, play_session)
    if sim:
        _join_sim(event_file, workdir / "data", *sim)
        echo(f"sim: {sim[1]} at {sim[0]}, as club {sim[2]}")
    echo(f"hand records: boards {', '.join(map(str, sorted(deals.hands)))} dealt into {workdir / HANDS} "
         f"(seed {seed}), analysed double dummy")
    if deals.staged:
        echo(f"staged: table {deals.staged[0]} enters board {deals.staged[1]}'s tricks five away from double dummy "
             "(a wrong entry, for the director's queue)")
    what = (f"{teams}-team {'Swiss' if kind == 'swiss-teams' else 'round robin'}: {rounds // 2} matches of "
            f"{2 * boards_per_round} boards, {tables} tables" if team_night else
            f"{plan.title}, {boards_per_round} boards a round, {rounds} rounds"
            + (" (the last arrow-switched: one winner)" if kind == "arrow-switch" else ""))
    echo(f"{what}; units {', '.join(units.values())}")
    password_file = workdir / "director-password"
    password = _director_password(password_file)
    scorer_file = workdir / "scorer-password"
    scorer_password = _director_password(scorer_file)
    collector = Collector(workdir / "data", keyring, port, event_file,
                          ",".join(f"{u}={seats[i][0]}:{seats[i][1]}" for i, u in units.items()), echo,
                          password_file, scorer_file,
                          keep_fds=(lock.fileno(),), method="teams" if team_night else None, session=play_session)
    started.append(collector)
    lock.held_by(f"the collector of demo pid {os.getpid()} (pid {collector.proc.pid}, {collector.url})",
                 collector.proc.pid)
    login = f"dashboard: {collector.url}/director  (live auctions {collector.url}/director/live)\n" \
            f"login: director / {password}  (also in {password_file})\n" \
            f"scorer: {collector.url}/scorer  login: scorer / {scorer_password}  (also in {scorer_file})"
    echo(login)
    vus = {}
    for t, unit in units.items():
        cfg_path = workdir / "units" / f"{unit}.json"
        cfg = json.loads(cfg_path.read_text())
        cfg.update(collector=collector.url, state_dir=str(workdir / "units" / f"{unit}-state"), heartbeat_ms=500)
        cfg_path.write_text(json.dumps(cfg))
        # a stop signal waits (blocked) until the unit it finds being born is on the list of what to stop: one that
        # came between its start and that list once left a unit running
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            vus[t] = VirtualUnit(runtime, cfg_path)
            started.append(vus[t])
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    echo(f"double-dummy analysis stored by the collector: {_analysed(workdir / 'data', len(deals.tables))} deals")
    errors = []
    threads = [threading.Thread(target=_play_table, args=(collector, vus[t], units[t], t, rounds, deals, echo,
                                                          errors), daemon=True) for t in units]
    done = threading.Event()
    if kind == "swiss-teams":  # the director pushes each draw as its round ends
        threads.append(threading.Thread(target=_director, args=(collector, echo, done, errors), daemon=True))
    for th in threads:
        th.start()
    for th in threads[:len(units)]:
        th.join()
    done.set()
    for th in threads[len(units):]:
        th.join()
    if errors:
        raise click.ClickException(f"the session stopped: {errors[0]}")
    for vu in vus.values():
        vu.finish()
    if team_night:
        _print_teams(collector, echo)
    elif kind == "across-field":
        _print_field(collector, echo)
    elif kind == "individual":
        _print_players(collector, echo)
    else:
        _print_results(collector, deals, echo)
    if sim:
        _hub_done(collector, echo)
    _exports(collector, workdir, echo, [sec.name for sec in ev.sessions[0].sections])
    kinds, calls = _table_talk(workdir / "data")
    echo(f"director calls from the tables: {calls}; irregularities: "
         + (", ".join(f"{n} {kind} (Law {law})" for kind, law, n in kinds) or "none"))
    if not exit_when_done:
        echo(f"\nthe collector keeps running at {collector.url} (API {collector.url}/docs) — Ctrl-C stops it")
        echo(login)
        collector.proc.wait()


if __name__ == "__main__":
    main()
