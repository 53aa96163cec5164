"""The club's link to its sim's hub (docs/hub.md): store and forward of the club's results, and the release.

When the event names a sim (`"sim": {"hub", "id", "club", "secret_file"}`), every result the club's standings
score on a board of the sim is uploaded to the hub, signed with the club's secret. Store and forward: an upload's
exact bytes are written to the store (`hub_outbox`) before they are sent, and sent again, unchanged, until the hub
acknowledges them, however long that takes (a retry of the last upload is answered again by the hub, never
stored twice). Only then is the next upload made, of every result that differs from what the hub last
acknowledged (`hub_sent`): a correction at the club replaces the result at the hub, which records it.

The link also asks the hub whether the sim is released. Until the hub says so, `embargoes(board)` is True for
every board of the sim (and for every board while the hub has never been reached, since the club does not yet
know which boards are the sim's): the club's public pages and exports hide those hands and frequencies.

The uploader is one thread; the store's writer makes its two writes (an upload made, an upload acknowledged).
"""
import hashlib
import json
import logging
import re
import threading
import time
from pathlib import Path

from bidwire_host import signing
from bidwire_host.scoring.model import Artificial, Assigned
from bidwire_host.sim_ids import PLAYER_IDS

log = logging.getLogger("bidwire.collector")
MAX_RESULTS = 2000  # per upload, as the hub takes (hub/inputs.py)
RETRY_S = (1, 2, 5, 10)  # the wait after each failure in a row, then the last one


def http_client():
    """httpx2, the uplink's HTTP client: the `uplink` extra (pip install 'bidwire[uplink]'), which a club's collector
    needs only when its event names a sim."""
    try:
        import httpx2
    except ImportError:
        raise UplinkError("the event names a sim, and the link to its hub needs httpx2: "
                          "pip install 'bidwire[uplink]'") from None
    return httpx2


class UplinkError(ValueError):
    pass


def read_secret(sim, data_dir):
    """The club's secret (bytes) from sim.secret_file (relative: in the collector's data directory). The error
    never quotes the file."""
    path = Path(sim.secret_file)
    if not path.is_absolute():
        path = Path(data_dir) / path
    try:
        text = path.read_text(encoding="ascii").strip()
        secret = bytes.fromhex(text)
    except (OSError, UnicodeError, ValueError):
        raise UplinkError(f"sim.secret_file: {path} must hold the club's secret from the hub, "
                          "64 hex digits") from None
    if len(secret) < 16:
        raise UplinkError(f"sim.secret_file: {path} must hold the club's secret from the hub, 64 hex digits")
    return secret


def result_body(section, res, names):
    """One result as the hub takes it, or None for one it cannot take (a weighted score)."""
    ns_names, ns_ids = names.get((section, "NS", str(res.ns)), ("", ""))
    ew_names, ew_ids = names.get((section, "EW", str(res.ew)), ("", ""))
    out = {"section": section, "board": res.board, "ns": str(res.ns), "ew": str(res.ew),
           "ns_names": ns_names[:200], "ew_names": ew_names[:200]}
    for key, ids in (("ns_ids", ns_ids), ("ew_ids", ew_ids)):  # national numbers, where the register has them
        if ids and re.fullmatch(PLAYER_IDS, ids):
            out[key] = ids
    a = res.adjusted
    if a is None:
        out.update(contract=res.contract, declarer=res.declarer, tricks=res.tricks, score_ns=res.score_ns)
    elif isinstance(a, Artificial):
        out["adjusted"] = {"ns": float(a.pct("NS")), "ew": float(a.pct("EW"))}
    elif isinstance(a, Assigned):
        out["adjusted"] = {"ns_score": a.ns_score, "ew_score": a.ew_score}
    else:
        return None
    return out


def _key(r):
    return (r["section"], r["board"], r["ns"], r["ew"])


def _digest(r):
    return hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()


class Uplink:
    def __init__(self, store, standings, sim, secret, names=lambda: {}):
        self.store, self.standings, self.sim, self.secret = store, standings, sim, secret
        self.names = names  # () -> {(section, line, number): (names, national numbers)}
        self.url = sim.hub.rstrip("/")
        self.released = False
        self.boards = None  # the sim's boards, once the hub has said
        self.error = None  # the last failure, for the director's page
        self.last_ok = None
        self.skipped = 0  # results the hub cannot take (weighted scores)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = None

    # ---- what the pages ask -----------------------------------------------------------------------------
    def embargoes(self, board):
        return not self.released and (self.boards is None or board in self.boards)

    def backlog(self):
        """Results the hub has not acknowledged yet (in an upload under way or still to be made)."""
        conn = self.store.reader()
        pending = conn.execute("SELECT body FROM hub_outbox WHERE acked IS NULL").fetchall()
        in_flight = sum(len(json.loads(r["body"])["results"]) for r in pending)
        return in_flight + (len(self._changed(conn)) if not pending else 0)

    def status(self):
        return {"hub": self.url, "sim": self.sim.id, "club": self.sim.club, "released": self.released,
                "backlog": self.backlog(), "error": self.error, "last_ok": self.last_ok, "skipped": self.skipped}

    # ---- the thread ---------------------------------------------------------------------------------------
    def start(self):
        self._thread = threading.Thread(target=self._run, name="hub-uplink", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10)

    def wake(self):
        self._wake.set()

    def _run(self):
        failures = 0
        httpx = http_client()
        with httpx.Client(timeout=10) as client:
            while not self._stop.is_set():
                try:
                    self.check_release(client)
                    while self.step(client):
                        pass
                    failures = 0
                    wait = 2
                except (httpx.HTTPError, UplinkError, OSError) as e:
                    self.error = f"{type(e).__name__}: {str(e)[:200]}"
                    wait = RETRY_S[min(failures, len(RETRY_S) - 1)]
                    failures += 1
                self._wake.wait(wait)
                self._wake.clear()

    # ---- one pass -----------------------------------------------------------------------------------------
    def current(self):
        """{key: body} of every result the standings score on a board of the sim, as the hub would take it."""
        names = self.names()
        out, skipped = {}, 0
        for section, res in self.standings.results():
            if self.boards is not None and res.board not in self.boards:
                continue
            body = result_body(section, res, names)
            if body is None:
                skipped += 1
            else:
                out[_key(body)] = body
        self.skipped = skipped
        return out

    def _changed(self, conn):
        sent = {(r["section"], r["board"], r["ns"], r["ew"]): r["digest"]
                for r in conn.execute("SELECT section, board, ns, ew, digest FROM hub_sent")}
        return [b for k, b in sorted(self.current().items()) if sent.get(k) != _digest(b)]

    def step(self, client):
        """Send the upload under way, or make the next one; True if an upload was acknowledged."""
        conn = self.store.reader()
        row = conn.execute("SELECT number, body FROM hub_outbox WHERE acked IS NULL ORDER BY number LIMIT 1"
                           ).fetchone()
        if row is None:
            if self.boards is None:
                return False  # the sim's boards are not known yet: nothing can be told apart
            changed = self._changed(conn)[:MAX_RESULTS]
            if not changed:
                return False
            last = conn.execute("SELECT max(number) FROM hub_outbox").fetchone()[0] or 0
            head = {"sim": self.sim.id, "club": self.sim.club, "upload": last + 1}
            if self.sim.session is not None:  # the session of a sim played in several, signed with the results
                head["session"] = self.sim.session
            body = json.dumps({**head, "results": changed}, sort_keys=True).encode()
            number = last + 1
            self.store.write(lambda c: c.execute("INSERT INTO hub_outbox (number, body, made) VALUES "
                                                 "(?, ?, datetime('now'))", (number, body)))
        else:
            number, body = row["number"], bytes(row["body"])
        r = client.post(self.url + "/api/v1/upload", content=body, headers={
            signing.HEADER_CLUB: self.sim.club, "Content-Type": "application/json",
            signing.HEADER_SIGNATURE: signing.sign(body, self.secret)})
        if r.status_code != 200:
            reason = _reason(r)
            raise UplinkError(f"the hub refused upload {number} ({r.status_code}): {reason}")
        results = json.loads(body)["results"]

        def acked(c):
            c.execute("UPDATE hub_outbox SET acked = datetime('now') WHERE number = ?", (number,))
            c.executemany("INSERT INTO hub_sent (section, board, ns, ew, digest) VALUES (?, ?, ?, ?, ?) "
                          "ON CONFLICT (section, board, ns, ew) DO UPDATE SET digest = excluded.digest",
                          [(*_key(x), _digest(x)) for x in results])
        self.store.write(acked)
        self.error, self.last_ok = None, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        log.info("hub: upload %d of %d results acknowledged", number, len(results))
        return True

    def check_release(self, client):
        r = client.get(f"{self.url}/api/v1/sims/{self.sim.id}/release")
        if r.status_code != 200:
            raise UplinkError(f"the hub does not know sim {self.sim.id} ({r.status_code}): {_reason(r)}")
        info = r.json()
        boards = info.get("boards")
        sessions = info.get("sessions") or []
        if (self.sim.session or None) not in (sessions or [None]):  # said before any upload is made
            raise UplinkError(f"sim.session: the hub plays sim {self.sim.id} in "
                              + (f"sessions {', '.join(map(str, sessions))[:200]}: name this heat's"
                                 if sessions else f"one session: name none (not {self.sim.session})"))
        if isinstance(boards, list) and all(isinstance(b, int) for b in boards):
            self.boards = frozenset(boards)
        self.released = info.get("released") is True


def _reason(r):
    try:
        return str(r.json().get("error", ""))[:200]
    except ValueError:
        return ""
