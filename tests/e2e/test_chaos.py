"""Fault injection (issue 6; docs/reliability.md): a 20-table Mitchell played by 20 virtual units (the real
firmware, real journals, real HTTP with HMAC) against the real collector, every sync going through
tests/chaos_proxy.py, which drops, delays, duplicates, reorders and cuts connections at random; meanwhile units
lose their power (SIGKILL, then started again on the same flash, the table going on where the journal says)
and the collector crashes (SIGKILL, then started again on the same data directory and port).

The same session is played once more without a fault (no proxy, no kill), and at the end:
- every unit's events are stored with seqs 1..n, none twice, each exactly as the unit sent it (the proxy saw
  every body); every acknowledgement a unit was handed covers events that are in the store;
- each unit, booted again offline, holds nothing the collector has not acknowledged (acked = its last seq =
  the store's last seq);
- every board each table played has exactly one board_start, one auction_end and one result, as the script
  played it (contract, declarer, tricks; the unit's score = the host's), and equal to the fault-free run's;
- the ranking and every traveller equal the fault-free run's; no alert the fault-free run does not have.

`make test` runs a short version (2 rounds, a few kills); `make chaos` (BIDWIRE_CHAOS=full) a longer one, and
prints the figures (faults injected, events delivered, duplicates suppressed, kills), also written to
build/chaos-figures-<mode>.json. BIDWIRE_CHAOS_SEED=n replays a run's draws (the seed is printed); the
interleaving of 20 processes is the machine's, so a seed fixes the schedule, not every timing.
"""
import json
import os
import queue
import random
import re
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import httpx2 as httpx
import vunit
from chaos_proxy import DEFAULT_FAULTS, ChaosProxy
from collector_proc import Collector, keyring, rows
from test_collector_units import fixed_port, secret
from vunit import ROOT, VUnit, write_config

from bidwire_host.demo.club import TD_CALL, _table_play
from bidwire_host.event import files as event_files
from bidwire_host.event import model as event_mod
from bidwire_host.event import seating
from bidwire_host.unit_tools.simulator import board_lines

MODE = "full" if os.environ.get("BIDWIRE_CHAOS", "").lower() == "full" else "short"
FULL = MODE == "full"
TABLES = 20
BOARDS_PER_ROUND = 2
ROUNDS = 4 if FULL else 2
UNIT_KILLS = 16 if FULL else 4
COLLECTOR_KILLS = (0.3, 0.7) if FULL else (0.5,)  # when this share of the session's results is stored
FAULTS = {k: p * (1.4 if FULL else 1.0) for k, p in DEFAULT_FAULTS.items()}
LATE = 0.1 if FULL else 0.0  # share of delays past the unit's 5 s timeout (a late request after the retry)
HEARTBEAT_MS = 1000
WAIT_S = 300  # the longest any wait may take (an assign, a unit's last sync) before the test gives up
VOLATILE = ("seq", "t", "tempo")  # what may differ between two plays of the same board: the unit's numbering and clock


class Unit(VUnit):
    """A virtual unit (vunit.VUnit, on the device model) with room for a loaded machine: 90 s for any answer;
    killed if it does not boot. The frozen build is replaced whole (renamed into place), so a test session that
    rebuilds it meanwhile cannot hand a unit half of one."""

    def __init__(self, config):
        self.proc = vunit.RUNTIME.popen(config, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.out = []
        threading.Thread(target=self._pump, daemon=True).start()
        try:
            self.boot = self._expect("boot ")
        except BaseException:
            self.kill()
            raise

    def _expect(self, prefix, timeout=90):
        return super()._expect(prefix, timeout)


class Stop(Exception):
    """Another table failed: this one stops too."""


def api_headers(collector):
    """The collector's API credentials: collector_proc's, or the token file in its data directory."""
    headers = getattr(collector, "api_headers", None)
    if headers:
        return headers
    token = Path(collector.data) / "api-token"
    return {"Authorization": f"Bearer {token.read_text().strip()}"} if token.exists() else {}


def api(collector, path):
    r = httpx.get(collector.url + path, headers=api_headers(collector), timeout=60)
    r.raise_for_status()
    return r.json()


def query(data, sql, *args):
    """collector_proc.rows, again on a store busy at that moment (a collector starting up)."""
    for attempt in range(50):
        try:
            return rows(data, sql, *args)
        except sqlite3.OperationalError:
            if attempt == 49:
                raise
            time.sleep(0.1)
    return []


def plain(event):
    return {k: v for k, v in event.items() if k not in VOLATILE}


class Session:
    """One Mitchell session: the collector with the event loaded, one virtual unit per table. With `chaos`, the
    units reach the collector through the proxy and the kills below happen; without, it is the fault-free run."""

    def __init__(self, root, session_seed, chaos_seed=None):
        self.root = Path(root)
        self.data = self.root / "data"
        self.data.mkdir(parents=True)
        self.chaos = chaos_seed is not None
        self.rng = random.Random(chaos_seed)
        self.seed = chaos_seed
        ev = event_mod.new_event("chaos pairs", {"type": "mitchell", "tables": TABLES, "rounds": ROUNDS},
                                 boards_per_round=BOARDS_PER_ROUND)
        self.event_file = self.root / "event.json"
        event_files.save(ev, self.event_file)
        self.units = {t: f"T{t:02d}" for t in range(1, TABLES + 1)}
        self.ring = keyring(self.root / "keyring.json", {u: secret(t) for t, u in self.units.items()})
        self.extra = ("--event", str(self.event_file), "--tables", ",".join(f"{u}={t}" for t, u in self.units.items()))
        # what each table plays, round by round: the movement's assignments and the scripted players' auctions
        self.scripts = {t: [] for t in self.units}
        self.expected = {}  # (unit, board) -> {table_no, round, contract, declarer, tricks}
        for r in range(1, ROUNDS + 1):
            for a in seating.assignments(ev, r):
                t, lines = a["table"], []
                for board in a["boards"]:
                    calls, tricks, td = _table_play(board, t, session_seed)
                    board_keys, contract, declarer = board_lines(board, calls, tricks)
                    if td:  # the director is called after the first call, comes and ends the call
                        seat = board_keys[0].split()[0]
                        board_keys[1:1] = [f"{seat} {k}" for k in TD_CALL]
                    lines += board_keys
                    self.expected[self.units[t], board] = {
                        "table_no": t, "round": r, "contract": contract, "declarer": declarer,
                        "tricks": None if contract == "Pass" else tricks}
                self.scripts[t].append(lines)
        # the power cuts: (table, script line before which the power goes) -> how
        self.cuts = {t: {} for t in self.units}
        if self.chaos:
            total = {t: sum(len(lines) for lines in self.scripts[t]) for t in self.units}
            spots = sorted((t, pos) for t in self.units for pos in range(1, total[t]))
            for t, pos in self.rng.sample(spots, UNIT_KILLS):
                self.cuts[t][pos] = self.rng.choice(("mid-press", "between", "between"))
        self.errors = []
        self.lock = threading.Lock()
        self.unit_kills = self.mid_press = self.collector_kills = 0
        self.proxy = None
        self.collector = None

    # ---- the processes ---------------------------------------------------------------------------------------
    def start_collector(self, port=None):
        """`bidwire serve` on the data directory with the event, on `port` (a restart) or a free one; on another
        free port if that one was taken meanwhile (the proxy then follows it)."""
        for attempt in range(5):
            try:
                collector = Collector(self.data, self.ring, port or fixed_port(), extra=self.extra)
            except (AssertionError, TimeoutError):
                if attempt == 4:
                    raise
                port = None
                time.sleep(0.5)
                continue
            if self.proxy is not None:
                self.proxy.retarget(("127.0.0.1", collector.port))
            return collector
        raise AssertionError("unreachable")

    def config(self, t, url):
        unit = self.units[t]
        return write_config(self.root / f"{unit}.json", self.root / f"{unit}-state", url, unit=unit,
                            secret=secret(t), heartbeat_ms=HEARTBEAT_MS)

    # ---- a table -----------------------------------------------------------------------------------------------
    def assign_applied(self, unit, round_no):
        """The unit has reported applying the round's assign (its cmd_ack is past it)."""
        cmds = query(self.data, "SELECT seq FROM commands WHERE unit = ? AND type = 'assign' "
                                "AND json_extract(body, '$.round') = ?", unit, round_no)
        acks = query(self.data, "SELECT cmd_ack FROM unit_sync WHERE unit = ?", unit)
        return bool(cmds and acks and acks[0]["cmd_ack"] >= cmds[0]["seq"])

    def wait(self, what, condition):
        deadline = time.monotonic() + WAIT_S
        while not condition():
            if self.errors:
                raise Stop
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what}: not after {WAIT_S} s")
            time.sleep(0.25)

    def power_cut(self, t, vu, how, pos, line):
        rng = random.Random(f"{self.seed}:{t}:{pos}")
        if how == "mid-press":  # the key may or may not be on flash when the power fails
            vu.write(line)
            time.sleep(rng.random() * 0.004)
        else:  # between presses, while the sync client may be posting
            time.sleep(rng.random() * 0.05)
        vu.kill()
        with self.lock:
            self.unit_kills += 1
            self.mid_press += how == "mid-press"
        return Unit(self.cfg[t])

    def play(self, t):
        unit = self.units[t]
        lines = [line for r in self.scripts[t] for line in r]
        starts = {}
        n = 0
        for r, round_lines in enumerate(self.scripts[t], 1):
            starts[n] = r
            n += len(round_lines)
        vu = None
        try:
            vu = Unit(self.cfg[t])
            pos = vu.keys_journaled()
            while pos < len(lines):
                if self.errors:
                    raise Stop
                how = self.cuts[t].pop(pos, None)
                if how is not None:
                    vu = self.power_cut(t, vu, how, pos, lines[pos])
                    pos = vu.keys_journaled()  # every script line is journaled: go on after the last one kept
                    continue
                if pos in starts:  # a round begins once the unit has its assign
                    self.wait(f"{unit}: the assign of round {starts[pos]}",
                              lambda r=starts[pos]: self.assign_applied(unit, r))
                n, changed = vu.send(lines[pos])
                if not changed or n != pos + 1:
                    raise AssertionError(f"{unit}: script line {pos} {lines[pos]!r}: key {n} changed={changed}; "
                                         f"{vu.frame()}")
                pos += 1
            vu.write(f"sync {WAIT_S * 1000}")  # everything acknowledged, then stdin closes and the unit stops
            rc = vu.finish(timeout=WAIT_S + 60)
            if rc != 0:
                raise AssertionError(f"{unit} exited {rc}: {vu.proc.stderr.read()[-1500:]}")
        except Stop:
            pass
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            stderr = ""
            if vu is not None:
                vu.kill()
                stderr = vu.proc.stderr.read()[-1500:]
            self.errors.append((unit, repr(e) + (f"; stderr: {stderr}" if stderr else "")))
        finally:
            if vu is not None:
                vu.kill()

    # ---- the collector's crashes ------------------------------------------------------------------------------
    def crash_collector(self, done):
        total = len(self.expected)
        try:
            for share in COLLECTOR_KILLS:
                target = int(share * total)
                while query(self.data, "SELECT count(*) AS n FROM results")[0]["n"] < target:
                    if done.is_set() or self.errors:
                        return
                    time.sleep(0.1)
                port = self.collector.port
                self.collector.kill()
                self.collector.stop()
                self.collector_kills += 1
                time.sleep(self.rng.uniform(0.3, 2.0))  # down a moment: the units back off
                self.collector = self.start_collector(port)
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            self.errors.append(("collector", repr(e)))

    # ---- the whole session ----------------------------------------------------------------------------------
    def run(self):
        start = time.monotonic()
        killer = None
        try:
            self.collector = self.start_collector()
            url = self.collector.url
            if self.chaos:
                self.proxy = ChaosProxy(("127.0.0.1", self.collector.port), self.seed, FAULTS, late=LATE).start()
                url = f"http://127.0.0.1:{self.proxy.port}"
            self.cfg = {t: self.config(t, url) for t in self.units}
            threads = [threading.Thread(target=self.play, args=(t,), name=f"table-{t}", daemon=True)
                       for t in self.units]
            done = threading.Event()
            if self.chaos:
                killer = threading.Thread(target=self.crash_collector, args=(done,), name="collector-killer",
                                          daemon=True)
                killer.start()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            done.set()
            if killer is not None:
                killer.join()
            assert not self.errors, f"seed {self.seed}: {self.errors}"
            if self.proxy is not None:
                self.proxy.flush()  # the requests still held back reach the collector: all of them old news
            self.wall = time.monotonic() - start
            return self.outcome()
        finally:
            if killer is not None and killer.is_alive():
                killer.join(60)
            if self.proxy is not None:
                self.proxy.stop()
            if self.collector is not None:
                self.collector.stop()

    def outcome(self):
        c = self.collector
        boards = sorted({b for _, b in self.expected})
        units = api(c, "/api/v1/units")["units"]
        return {
            "ranking": api(c, "/api/v1/ranking"),
            "travellers": {b: api(c, f"/api/v1/travellers/{b}")["rows"] for b in boards},
            "alerts": api(c, "/api/v1/alerts")["alerts"],
            "duplicates": sum(u.get("duplicates", 0) for u in units),
            # units the collector shows with commands not applied, though every unit applied all and said so
            "shown_pending": sorted(u["unit"] for u in units if u.get("commands_pending")),
            "events": query(self.data, "SELECT unit, seq, type, board, body FROM events ORDER BY unit, seq"),
            "results": query(self.data, "SELECT unit, board, table_no, round, ns, ew, contract, declarer, tricks, "
                                        "score_ns, unit_contract, unit_declarer, unit_score_ns FROM results"),
        }


def by_board(events, kind):
    out = {}
    for e in events:
        if e["type"] == kind:
            out.setdefault((e["unit"], e["board"]), []).append(plain(json.loads(e["body"])))
    return out


def check_played(session, out):
    """Every board each table played: one board_start, auction_end and result each, as the script played it."""
    expected = session.expected
    for kind in ("board_start", "auction_end", "result"):
        got = by_board(out["events"], kind)
        assert sorted(got) == sorted(expected), f"{kind}: boards stored differ from the boards played"
        twice = {k: len(v) for k, v in got.items() if len(v) != 1}
        assert not twice, f"{kind} stored more than once: {twice}"
    results = {(r["unit"], r["board"]): r for r in out["results"]}
    assert sorted(results) == sorted(expected)
    for key, want in expected.items():
        r = results[key]
        assert {k: r[k] for k in want} == want, f"{key}: stored {r}, played {want}"
        assert (r["unit_contract"], r["unit_declarer"], r["unit_score_ns"]) == \
               (r["contract"], r["declarer"], r["score_ns"]), f"{key}: the unit and the host disagree: {r}"


def check_delivery(session, out):
    """What each unit sent is stored once and unchanged; nothing acknowledged is missing; nothing is left on a
    unit that the collector has not acknowledged."""
    proxy = session.proxy
    assert proxy.conflicts == [], f"a seq sent with two different bodies: {proxy.conflicts[:5]}"
    stored = {}
    for e in out["events"]:
        stored.setdefault(e["unit"], {})[e["seq"]] = json.loads(e["body"])
    for t, unit in session.units.items():
        mine = stored.get(unit, {})
        seqs = sorted(mine)
        assert seqs == list(range(1, len(seqs) + 1)), f"{unit}: stored seqs not 1..n: {seqs}"
        assert mine == proxy.sent[unit], f"{unit}: the store differs from what the unit sent"
        assert proxy.acks.get(unit, 0) <= len(seqs), f"{unit}: acknowledged {proxy.acks[unit]}, stored {len(seqs)}"
        # booted again without a collector: the unit holds nothing the collector has not stored
        offline = write_config(session.root / f"{unit}-offline.json", session.root / f"{unit}-state", "",
                               unit=unit, secret=secret(t))
        check = Unit(offline)
        check.kill()
        seq, acked = (int(re.search(rf"{k}=(\d+)", check.boot).group(1)) for k in ("seq", "acked"))
        assert acked == seq - 2 == len(seqs), f"{unit}: {check.boot}; the collector holds up to {len(seqs)}"
    renumbered = [e for e in out["events"] if e["type"] == "note" and "collector was at seq" in e["body"]]
    assert renumbered == [], f"a unit took the collector for one with more of its events: {renumbered}"


def figures(session, out, ref_wall):
    proxy = session.proxy.figures()
    return {
        "mode": MODE, "seed": session.seed, "tables": TABLES, "rounds": ROUNDS, "boards_played": len(session.expected),
        "connections": proxy["connections"], "faults": proxy["faults"], "faults_total": proxy["faults_total"],
        "late_deliveries": proxy["late_deliveries"], "held_delivered": proxy["held_delivered"],
        "upstream_down": proxy["upstream_down"], "requests_to_collector": proxy["forwarded"],
        "events_delivered": len(out["events"]), "duplicates_suppressed": out["duplicates"],
        "unit_kills": session.unit_kills, "unit_kills_mid_press": session.mid_press,
        "collector_kills": session.collector_kills, "shown_pending": len(out["shown_pending"]),
        "wall_s": round(session.wall, 1),
        "fault_free_wall_s": round(ref_wall, 1),
    }


def report(fig):
    faults = ", ".join(f"{k} {v}" for k, v in fig["faults"].items())
    print(f"\nchaos ({fig['mode']}, seed {fig['seed']}): {fig['tables']} tables x {fig['rounds']} rounds, "
          f"{fig['boards_played']} boards played\n"
          f"  connections proxied   {fig['connections']}\n"
          f"  faults injected       {fig['faults_total']}: {faults}\n"
          f"    (late past the unit's timeout {fig['late_deliveries']}, held requests delivered later "
          f"{fig['held_delivered']}, connections with the collector down {fig['upstream_down']})\n"
          f"  requests to collector {fig['requests_to_collector']}\n"
          f"  events delivered      {fig['events_delivered']} (stored, each once)\n"
          f"  duplicates suppressed {fig['duplicates_suppressed']} (events that came again, acknowledged)\n"
          f"  unit power cuts       {fig['unit_kills']} ({fig['unit_kills_mid_press']} mid-press)\n"
          f"  collector crashes     {fig['collector_kills']}\n"
          f"  units shown with commands pending at the end {fig['shown_pending']}\n"
          f"  wall time             {fig['wall_s']} s (the fault-free run: {fig['fault_free_wall_s']} s)")


def test_a_session_through_faults_and_crashes_ends_as_a_fault_free_one(tmp_path):
    seed = int(os.environ.get("BIDWIRE_CHAOS_SEED") or random.SystemRandom().randrange(1, 1 << 31))
    print(f"\nchaos seed {seed} (BIDWIRE_CHAOS_SEED={seed} draws the same faults and kills again)")
    session_seed = seed % 1000

    reference = Session(tmp_path / "fault-free", session_seed)
    ref = reference.run()
    check_played(reference, ref)

    chaos = Session(tmp_path / "chaos", session_seed, chaos_seed=seed)
    out = chaos.run()
    fig = figures(chaos, out, reference.wall)
    report(fig)
    out_dir = ROOT / "build"
    out_dir.mkdir(exist_ok=True)
    (out_dir / f"chaos-figures-{MODE}.json").write_text(json.dumps(fig, indent=2) + "\n")

    context = f"seed {seed}"
    check_played(chaos, out)
    check_delivery(chaos, out)
    for kind in ("auction_end", "result"):
        assert by_board(out["events"], kind) == by_board(ref["events"], kind), f"{context}: {kind}s differ"
    key = ("unit", "board")
    assert sorted(out["results"], key=lambda r: [r[k] for k in key]) == \
           sorted(ref["results"], key=lambda r: [r[k] for k in key]), context
    assert out["ranking"] == ref["ranking"], f"{context}: the ranking differs from the fault-free run's"
    assert out["ranking"]["problems"] == [] and len(out["ranking"]["ranking"]) == 2 * TABLES
    assert out["travellers"] == ref["travellers"], f"{context}: a traveller differs from the fault-free run's"

    def alerts(a):
        return sorted((x["unit"], x["board"], x["kind"], x["detail"]) for x in a)
    extra = set(alerts(out["alerts"])) - set(alerts(ref["alerts"]))
    assert not extra, f"{context}: alerts the fault-free run does not have: {sorted(extra)}"
    # the faults did happen
    assert fig["unit_kills"] == UNIT_KILLS and fig["collector_kills"] == len(COLLECTOR_KILLS), context
    assert all(n > 0 for n in fig["faults"].values()), f"{context}: a kind of fault never happened: {fig['faults']}"
    assert fig["duplicates_suppressed"] > 0, context
    # a stale copy (a replay, a late duplicate) never turns a unit's recorded cmd_ack back
    assert out["shown_pending"] == [], f"{context}: units shown with commands pending: {out['shown_pending']}"
