"""The collector service: the one way the session's state changes (docs/collector.md).

Every change is one method of `Service`: a unit's sync, a director's or scorer's decision, loading the event,
starting a round, queuing a command, a ruling. Each method hands one job to the single writer (store.py) and
awaits its commit, then runs one after-commit step: the standings catch up with what was committed (in a worker
thread, never on the event loop), then the live pages are told what changed (change_feed.py). The routes — the units'
sync (sync.py), the JSON API (api.py), the dashboard — only parse, call and render.

A change may carry an idempotency key (a form's hidden field, an `Idempotency-Key` header): the first request
with a key is recorded with its answer in the same transaction as the change, and a retry with the same key
gets that answer back without a second change.
"""
import asyncio
import hashlib
import json
import logging
import threading

from bidwire_host import logs, utc
from bidwire_host.collector import (
    barometer,
    bounds,
    change_feed,
    commands,
    derive,
    event_setup,
    event_upload,
    ingest,
    roster,
    unit_traveller,
    uplink,
)
from bidwire_host.collector.decisions import kinds
from bidwire_host.collector.decisions.journal import ActionError
from bidwire_host.collector.standings import Standings
from bidwire_host.collector.store import StoreError
from bidwire_host.event import analysis
from bidwire_host.event import files as event_files
from bidwire_host.event import model as event_mod
from bidwire_host.sim_ids import players_text

log = logging.getLogger("bidwire.collector")


class Refused(Exception):
    """A change the collector does not make: `status` (400 bad input, 404 unknown, 409 state, 503 store) and why."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _refusal(e):
    if isinstance(e, Refused):
        return e
    if isinstance(e, commands.NotOpen):
        return Refused(409, str(e))
    if isinstance(e, commands.NotFound):
        return Refused(404, str(e))
    if isinstance(e, ActionError):
        return Refused(e.status, str(e))
    if isinstance(e, (event_setup.SetupError, commands.CommandError)):
        return Refused(400, str(e))
    if isinstance(e, StoreError):
        return Refused(503, str(e))
    return None


def _digest(request):
    return hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()


def idempotent(job, op, key, request):
    """The writer job `job` recorded under (op, key): run once; a retry gets the first answer back."""
    if not key:
        return job

    def once(conn):
        name = f"{op}:{key}"
        row = conn.execute("SELECT request, response FROM idempotency WHERE key = ?", (name,)).fetchone()
        if row is not None:
            if row["request"] != _digest(request):
                raise Refused(409, "this idempotency key was used for another request: make a new one per change")
            return json.loads(row["response"])
        result = job(conn)
        conn.execute("INSERT INTO idempotency (key, request, response, at) VALUES (?, ?, ?, ?)",
                     (name, _digest(request), json.dumps(result, default=str), utc.now_iso()))
        return result
    return once


class Service:
    """The session's one authority: the store, the keyring, the standings, the live pages' hub."""

    def __init__(self, store, keyring, clock=utc.now):
        self.store = store
        self.keyring = keyring
        self.clock = clock  # the host clock (UTC) for decisions; tests set their own
        self.standings = Standings()  # the scores, per section, caught up after every commit
        self.standings.refresh(store.reader())
        self.changes = change_feed.ChangeFeed()
        self.rejections = {}  # unit -> {"status", "reason", "at"}: the last refused sync of a known unit
        self.refusals = logs.RefusalLog()  # refused requests' log lines, at most one per address and reason each 10 s
        self._analysing = None  # the background double-dummy analysis (analyse_soon)
        self._lock = threading.Lock()
        self._refreshing = None  # _catch_up: (event loop, its lock); asked counts the calls, refreshed the last covered
        self._asked = self._refreshed = 0
        self._full = False
        self.uplink = None  # the sim's hub, when the event names one (link_sim)
        self.uplink_error = None  # why it could not start

    # ---- the one path of every change ------------------------------------------------------------------
    async def _commit(self, job, change):
        """Run `job` in the writer, wait for its commit, then the after-commit step. Refused on a refusal."""
        try:
            result = await asyncio.wrap_future(self.store.submit(job))
        except Exception as e:
            refused = _refusal(e)
            if refused is None:
                raise
            raise refused from None
        await self._after_commit(change)
        return result

    async def _after_commit(self, change):
        if change.get("scores"):
            await self._catch_up(bool(change.get("event") or change.get("decisions")))
            if change.get("event"):
                self.link_sim()
            if self.uplink is not None:
                self.uplink.wake()
        self.changes.publish(change)

    # ---- the sim's hub (uplink.py) ---------------------------------------------------------------------
    def link_sim(self):
        """Start (or restart, or stop) the upload to the hub of the sim the loaded event names, if any."""
        setup_now = self.standings.setup
        sim = setup_now.event.sim if setup_now is not None else None
        if self.uplink is not None and self.uplink.sim == sim:
            return
        self.unlink_sim()
        self.uplink_error = None
        if sim is None:
            return
        try:
            uplink.http_client()
            secret = uplink.read_secret(sim, self.store.data_dir)
        except uplink.UplinkError as e:
            self.uplink_error = str(e)  # the director's page says so; the sim's boards stay hidden
            log.error("hub: %s", e)
            return

        def names():
            """{(section, line, number): (the pair's names, their national numbers)}, each "A & B" in one order."""
            text = {}
            for k, (said, players) in roster.by_line(self.store.reader(), self.standings.setup).items():
                names, numbers = players_text((p.name, None if p.id is None else str(p.id)) for p in players or ())
                text[k] = (names or said or "", numbers)
            return text
        self.uplink = uplink.Uplink(self.store, self.standings, sim, secret, names).start()

    def unlink_sim(self):
        if self.uplink is not None:
            self.uplink.stop()
            self.uplink = None

    def hub_status(self):
        """The link to the sim's hub (GET /api/v1/hub, the director's page): `sim` null when the event names none."""
        if self.uplink is not None:
            return self.uplink.status()
        if self.uplink_error is not None:
            return {"hub": None, "sim": None, "club": None, "released": False, "backlog": None,
                    "error": self.uplink_error, "last_ok": None, "skipped": None}
        return {"hub": None, "sim": None, "club": None, "released": None, "backlog": None, "error": None,
                "last_ok": None, "skipped": None}

    def embargoed(self, board):
        """True while the sim's hub has not released `board` (a board of the sim): its hands and frequencies stay
        off the public pages and exports. Always True for every board while the event names a sim whose hub has
        not been reached, or whose secret cannot be read."""
        setup_now = self.standings.setup
        if setup_now is None or setup_now.event.sim is None:
            return False
        return self.uplink is None or self.uplink.embargoes(board)

    async def _catch_up(self, full):
        """The standings caught up with every commit made before this call, in a worker thread, one refresh at a
        time. The syncs of one group commit all ask at once: the first refresh covers them all, and the others
        find it done instead of each taking a thread of its own to find nothing new."""
        self._asked += 1
        mine = self._asked
        self._full = self._full or full
        loop = asyncio.get_running_loop()
        if self._refreshing is None or self._refreshing[0] is not loop:  # tests may run the app on several loops
            self._refreshing = (loop, asyncio.Lock())
        async with self._refreshing[1]:
            if self._refreshed >= mine:
                return  # a refresh that began after this change was committed has run
            upto, full, self._full = self._asked, self._full, False
            await asyncio.to_thread(self.standings.refresh, None, self.store, full)
            self._refreshed = upto

    def write_now(self, job):
        """The same path for code outside the event loop (create_app loading an event at start)."""
        result = self.store.write(job)
        self.standings.refresh(self.store.reader())
        return result

    # ---- units -----------------------------------------------------------------------------------------
    async def sync(self, raw, signature, address="?"):
        """A unit's sync (the route is sync.py; ingest.py takes it in): (ack, commands). ingest.Rejected with the
        status and reason if refused."""
        unit = None
        try:
            body, unit = ingest.unit_of(raw)
            check = ingest.admit(self.keyring, raw, signature, body, unit)
            received = utc.now_iso()
            job = ingest.store_batch(*check, received, raw=raw, signature=signature)
            try:
                out = await asyncio.wrap_future(self.store.submit(job))
            except StoreError as e:
                raise ingest.Rejected(503, f"the collector cannot store events now ({e}); the unit will retry") \
                    from None
            except ingest.Rejected as e:
                if e.conflict is not None:  # kept for the director, outside the refused batch's transaction
                    seq, stored, sent = e.conflict
                    await asyncio.wrap_future(self.store.submit(ingest.conflict_job(unit, seq, stored, sent, received)))
                    self.changes.publish({"alerts": True})
                raise
            except Exception as e:  # a bug: nothing was stored (the job's savepoint was rolled back), it retries
                log.exception("storing a batch of unit %s", unit)
                raise ingest.Rejected(500, f"the collector failed to store the batch ({type(e).__name__}); "
                                         "nothing was stored") from None
        except ingest.Rejected as e:
            self._rejected(unit, e.status, e.reason, address)
            raise
        await self._after_commit({"units": [unit], "scores": out.results, "alerts": out.alerts,
                                  "calls": out.calls})
        return out.ack, out.commands

    def _rejected(self, unit, status, reason, address="?"):
        unit_said = unit if unit is not None else "?"  # at most one line per address, unit and status every 10 s
        self.refusals.warning(log, address, f"sync {status} {unit_said} {reason}", "sync refused (%d) for unit %s: %s",
                              status, unit_said, reason)
        if unit is not None and self.keyring.key(unit) is not None:
            with self._lock:
                self.rejections[unit] = {"status": status, "reason": reason, "at": utc.now_iso()}

    def rejection(self, unit):
        with self._lock:
            return self.rejections.get(unit)

    async def queue_command(self, unit, body, key=None):
        """Queue a command for a unit (commands.py); it goes out in the unit's next sync reply."""
        if self.keyring.key(unit) is None:
            raise Refused(404, f"unknown unit {unit!r}: not in the keyring")
        job = idempotent(lambda conn: commands.enqueue(conn, unit, body), "command", key, [unit, body])
        moved = isinstance(body, dict) and body.get("type") == "ruling"  # the queue shows a ruling on its way
        return await self._commit(job, {"units": [unit], "alerts": moved})

    async def rule(self, unit, seq, ruling, key=None, by="director"):
        """The director's ruling on an open irregularity (unit, seq): a `ruling` command naming it (its `at`).
        409 if the irregularity is no longer open (settled at the table, ruled already, superseded)."""
        if self.keyring.key(unit) is None:
            raise Refused(404, f"unknown unit {unit!r}: not in the keyring")
        try:
            bounds.integer(seq, "seq", 1)
        except bounds.BoundsError as e:
            raise Refused(422, str(e)) from None

        at = self.clock()

        def job(conn):
            return commands.ruling(conn, unit, seq, ruling, by, at)
        return await self._commit(idempotent(job, "rule", key, [unit, seq, ruling]),
                                  {"units": [unit], "alerts": True, "decisions": True})

    # ---- the event -------------------------------------------------------------------------------------
    async def load_event(self, event, tables, method="neuberg", session=None, start=True, key=None, register=None,
                         hand_records=None):
        """Load the event a request sent: its register and hand records in the body, never a path (event_upload.py)."""
        unknown = [u for u in tables if self.keyring.key(u) is None]
        if unknown:
            raise Refused(400, f"tables: unit {', '.join(unknown)} not in the keyring")
        try:
            sent = await asyncio.to_thread(event_upload.prepare, event, hand_records, self.store.data_dir)
            # checked and its movements built here, in a worker thread: the writer only stores it (issue 24.8)
            data, mapped = await asyncio.to_thread(event_setup.prepare, sent, tables, method, session, register)
        except event_upload.RequestEventError as e:
            raise Refused(400, str(e)) from None
        except event_setup.SetupError as e:
            raise Refused(400, str(e)) from None
        job = idempotent(lambda conn: event_setup.save(conn, data, mapped, method, session, start, prepared=True),
                         "event", key, [event, tables, method, session, start, register, hand_records])
        out = await self._commit(job, {"scores": True, "event": True, "units": list(tables)})
        self.analyse_soon()
        return out

    def analyse_soon(self):
        """Start the double-dummy analysis of the event's hand records in the background (it takes seconds)."""
        if self._analysing is None or self._analysing.done():
            self._analysing = asyncio.get_running_loop().create_task(self.analyse())
        return self._analysing

    async def analyse(self):
        """Analyse (bidwire_host/event/analysis.py) every hand record of the loaded event not analysed yet — in a worker
        thread, never in the writer or on the loop — then store the tables; the number of deals analysed."""
        hands = await asyncio.to_thread(self._hands_to_analyse)
        if not hands:
            return 0
        try:
            tables = await asyncio.to_thread(analysis.tables, hands)
        except Exception:  # the scores never depend on it: say so, keep serving
            log.exception("the double-dummy analysis failed")
            return 0
        at = utc.now_iso()

        def job(conn):
            for board, t in tables.items():
                conn.execute("INSERT INTO analysis (board, deal, body, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                             (board, hands[board].deal.pbn("N"), json.dumps(t), at))
            # the results that arrived before the analysis: checked now, as a result arriving after it is at sync
            return len(tables), derive.check_stored_results(conn, tables)
        n, flagged = await self._commit(job, {"analysis": True, "alerts": True})
        log.info("double-dummy analysis of %d deals stored; %d earlier result(s) flagged against it", n, flagged)
        return n

    def _hands_to_analyse(self):
        # on a connection of its own: the analysis may still be starting when the app shuts down and the store closes
        conn = self.store.own_reader()
        try:
            s = event_setup.load(conn)
            if s is None:
                return {}
            try:
                hands = event_files.hand_records(s.event, s.session)
            except event_mod.EventError as e:
                log.warning("no double-dummy analysis: %s", e)
                return {}
            done = {(r[0], r[1]) for r in conn.execute("SELECT board, deal FROM analysis")}
        finally:
            conn.close()
        return {b: h for b, h in hands.items() if h.deal is not None and (b, h.deal.pbn("N")) not in done}

    async def start_round(self, round_no, section=None, key=None, table=None):
        job = idempotent(lambda conn: event_setup.start_round(conn, round_no, section, table), "round", key,
                         [round_no, section] + ([table] if table is not None else []))
        return await self._commit(job, {"event": True})

    # ---- decisions (decisions/) ------------------------------------------------------------------------
    async def decide(self, kind, body, key=None, role="director"):
        """A director's or scorer's decision: kind adjust, penalty, publish, resolve (a held result), close (an
        alert), correct (a result's contract, declarer, tricks, lead or pairs), players (a pair's players), lead
        (declarer's Law 26 choice, which may queue a command for the unit). `role`:
        who is deciding, as the login proved it ("director": the API token or the director's session; "scorer").
        The stored action."""
        action = kinds.ACTIONS.get(kind)
        if action is None:
            raise Refused(400, f"no such decision {kind!r}")
        if kind == "table" and body.get("unit") not in self.keyring.units():
            raise Refused(404, f"unit {body.get('unit')!r} is not provisioned: `bidwire provision` it and give the "
                               "collector its keyring first")
        try:  # bounded before the writer sees it: "1e20000000" once held the writer for 20 s (issue 24.7)
            bounds.decision(kind, body)
        except bounds.BoundsError as e:
            raise Refused(400, str(e)) from None
        at = self.clock()

        def job(conn):
            item = action(conn, event_setup.load(conn), dict(body, role=role), at)
            if kind == "correct":  # the corrected result checked against double dummy, as a result at sync
                derive.check_stored_results(conn, [item["board"]], only=(item["unit"], item["seq"]))
            if kind in kinds.ADVANCING:
                event_setup.advance(conn)  # an accepted result may complete its table's round
                barometer.after(conn)
            if kind in kinds.RESULTS and item.get("section") is not None:  # the units' travellers follow it
                unit_traveller.send_traveller(conn, item["section"], item["board"])
            return item
        change = {"scores": True, "alerts": True, "decisions": True}
        if kind == "lead" and isinstance(body.get("alert"), str):  # its unit's row: a command not yet applied
            change["units"] = [":".join(body["alert"].split(":")[1:-2])]
        return await self._commit(idempotent(job, kind, key, body), change)
