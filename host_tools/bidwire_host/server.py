"""The collector's ASGI app (FastAPI): `create_app(data_dir, keyring_path)`, and `serve()` for `bidwire serve`.

The app factory sits above the collector and the dashboard: it serves the units' sync endpoint
(collector/sync.py), the director's JSON API (collector/api.py), `/healthz`, the OpenAPI schema (`/openapi.json`,
browsable at `/docs`) and the dashboard's pages (dashboard/). Its state is one `collector.service.Service`, the
only way anything changes: the store (one SQLite file in the data directory), the keyring, the standings and the
live pages' hub.
"""
import gc
import logging
import signal
import socket
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from starlette.exceptions import HTTPException as StarletteHTTPException

from bidwire_host import auth, dashboard
from bidwire_host.collector import api, apiauth, derive, event_setup, sync, team_api
from bidwire_host.collector import store as store_mod
from bidwire_host.collector.keyring import Keyring
from bidwire_host.collector.loopprobe import LoopProbe
from bidwire_host.collector.service import Refused, Service
from bidwire_host.collector.sync_body import SyncBody
from bidwire_host.web import body_limit, connections, errors

log = logging.getLogger("bidwire.collector")

KEYRING = "keyring.json"  # in the data directory, unless given


def create_app(data_dir, keyring_path=None, event=None, tables=None, method="neuberg", director_password=None,
               scorer_password=None, body_timeout_s=body_limit.BODY_TIMEOUT_S,
               session_lifetime_s=auth.SESSION_HOURS * 3600, session_idle_s=auth.IDLE_MINUTES * 60, seat=False,
               session=None):
    """The collector app on the store in data_dir; units from keyring_path (default: data_dir/keyring.json).

    `event`: an event file (path) or its parsed JSON to load, with `tables` {unit: table or [section, table]}
    and the scoring `method`; round 1's assigns are queued unless already sent (event_setup.py). `director_password`:
    the dashboard's login (dashboard/); without it the dashboard's pages refuse every login. `scorer_password`:
    the scorer's own login (the /scorer pages only). `body_timeout_s`: how long a request's body may take to
    arrive (body_limit.py). `session_lifetime_s`, `session_idle_s`: when a dashboard login ends (auth.py). `seat`:
    with an event and no `tables`, seat the keyring's units (event_setup.seat_units: the map stored with this
    event, else the units in order at the tables in order). `session`: the event's session this store plays (its
    only one when not named)."""
    data_dir = Path(data_dir)
    if event is not None:  # a bad event file is refused before the store is opened: nothing is left behind
        if not isinstance(event, dict):
            event = load_event_file(event)
        prepared, _ = event_setup.prepare(event, tables or {}, method, session)
    store = derive.open_store(data_dir)
    keyring = Keyring(Path(keyring_path) if keyring_path else data_dir / KEYRING)
    service = Service(store, keyring)
    if event is not None:
        try:
            if seat and not tables:
                tables = event_setup.seat_units(prepared, keyring.units(), event_setup.load(store.reader()), session)
            service.write_now(lambda conn: event_setup.save(conn, event, tables or {}, method, session))
        except BaseException:
            store.close()
            raise

    @asynccontextmanager
    async def lifespan(app):
        probe.start()
        service.analyse_soon()  # hand records loaded earlier and not analysed yet (a restart, --event)
        service.link_sim()  # the sim's hub, if the event names one
        yield
        service.unlink_sim()
        await probe.stop()
        store.close()  # the writer finishes the jobs queued before it stops

    app = FastAPI(title="bidwire collector", version="1", lifespan=lifespan,
                  description="Sync endpoint for the table units (docs/architecture.md §4) and the director's "
                              "JSON API. " + errors.DESCRIPTION)
    app.state.service = service
    app.state.loop_probe = probe = LoopProbe()
    app.state.api_token = apiauth.api_token(data_dir)
    app.include_router(sync.router)
    app.include_router(api.service)
    app.include_router(api.router)
    app.include_router(team_api.router)
    dashboard.mount(app, data_dir, director_password, scorer_password, session_lifetime_s, session_idle_s)

    app.add_middleware(body_limit.BodyGuard, limits={sync.PATH: (sync.MAX_BODY, ": send fewer events per sync")},
                       timeout_s=body_timeout_s)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request, exc):  # the one shape, like every other refusal (e.g. a body nested too deep)
        if exc.status_code >= 400:
            service.refusals.warning(log, apiauth.client_of(request), f"request {exc.status_code} {exc.detail}",
                                  "request refused (%d) %s %s: %s", exc.status_code, request.method,
                                  request.url.path, exc.detail)
        return errors.reply(exc.status_code, str(exc.detail), headers=exc.headers)

    @app.exception_handler(Refused)
    async def service_refused(request, exc):  # the service did not make the change: why, and nothing changed
        service.refusals.warning(log, apiauth.client_of(request), f"change {exc.status} {exc.reason}",
                                 "change refused (%d) %s %s: %s",
                              exc.status, request.method, request.url.path, exc.reason)
        return errors.reply(exc.status, exc.reason)

    @app.exception_handler(apiauth.ApiRefused)
    async def refused(request, exc):
        challenge = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return errors.reply(exc.status, exc.reason, headers=challenge)

    app.add_exception_handler(RequestValidationError, errors.invalid_request)

    def openapi():
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            body = SyncBody.model_json_schema(ref_template="#/components/schemas/{model}")
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(body.pop("$defs", {}))
            components["SyncBody"] = body
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi
    return app


def load_event_file(path):
    """An event file's JSON (checked by event_setup.save); SetupError if it cannot be read."""
    from bidwire_host.event import files as event_files
    from bidwire_host.event import model as event_mod

    try:
        ev = event_files.load(path)
    except event_mod.EventError as e:
        raise event_setup.SetupError(str(e)) from None
    data = event_mod.to_dict(ev)
    data.pop("register", None)  # its players' names and numbers are filled in: the stored event needs no file
    for s in data.get("sessions", []):  # hand records: an absolute path, the event is kept in the store
        if s.get("hand_records") and not Path(s["hand_records"]).is_absolute():
            s["hand_records"] = str(ev.directory / s["hand_records"])
    return data


def listen(host, port):
    """A listening socket on host:port (0: any free port); SO_REUSEADDR so a restart can take the port again.
    Made with IPPROTO_TCP named: asyncio sets TCP_NODELAY only on connections whose socket says so, and without it
    every answer on a kept-alive connection waited 40 ms for the client's delayed ACK (head and body are two
    writes)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(2048)
    return sock


# The cyclic garbage collector's thresholds in a running collector (tune_gc): Python's own for the two young
# generations (small, quick collections), a full one only after 1,000 collections of the middle one instead of 10.
# Larger young thresholds were tried: each young collection then walks more (up to 800 ms at 20,000 and 20).
GC_THRESHOLDS = (700, 10, 1000)


def tune_gc():
    """Keep Python's full garbage collections from stalling every sync (docs/benchmarks.md, "The collector: sync").

    A full collection walks every tracked object while holding the GIL, so the event loop and the writer stop
    for its length: with 1,000 units syncing flat out the server holds some 260,000 objects (70,000 of them the
    program itself, the rest mostly the requests waiting for the writer, so it grows with the number of units) and
    each full collection took 200-500 ms, one every 1-2 s. `gc.freeze()` moves what exists once the app is
    built (modules, the app, the standings loaded from the store) out of the collector's sight for good, and
    GC_THRESHOLDS make the full collections a hundred times rarer. Cycles are still collected; only the process
    calls this (`serve`), never `create_app`, so tests keep Python's defaults."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def serve(data_dir, host="127.0.0.1", port=8080, keyring_path=None, log_level="info", access_log=False,
          echo=print, event=None, tables=None, method="neuberg", director_password=None, scorer_password=None,
          body_timeout_s=body_limit.BODY_TIMEOUT_S, head_timeout_s=connections.HEAD_TIMEOUT_S,
          per_address=connections.PER_ADDRESS, forwarded_allow_ips=(), session_lifetime_s=auth.SESSION_HOURS * 3600,
          session_idle_s=auth.IDLE_MINUTES * 60, notes=(), session=None):
    """Run the collector until interrupted (SIGINT, SIGTERM: every commit left in the main file, exit 0); echo the
    URL once it is listening.

    `forwarded_allow_ips`: the proxies whose X-Forwarded-For / X-Forwarded-Proto are believed (addresses or
    networks); none by default, so a request's client is always its real peer (the login limit is keyed on it).
    The connection limits (web/connections.py): a request head within `head_timeout_s`, at most
    `per_address` connections per client address, and a total kept below the descriptor limit, whose soft value
    is first raised to the hard one. Dashboard logins end after `session_lifetime_s`, or `session_idle_s` unused.
    `notes`: lines echoed after the URL and the table map (the logins' passwords made on a first run)."""
    import uvicorn

    from bidwire_host import logs

    logs.configure(log_level)
    app = create_app(data_dir, keyring_path, event=event, tables=tables, method=method,
                     director_password=director_password, scorer_password=scorer_password,
                     body_timeout_s=body_timeout_s, session_lifetime_s=session_lifetime_s,
                     session_idle_s=session_idle_s, seat=True, session=session)
    proxies = list(forwarded_allow_ips)
    descriptors = connections.raise_descriptor_limit()
    limits = connections.ConnectionLimits(connections.total_for(descriptors), per_address, head_timeout_s, proxies)
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    keyring = app.state.service.keyring
    echo(f"bidwire collector on http://{shown}:{bound}  (store {app.state.service.store.path}, keyring "
         f"{keyring.path}: {len(keyring.units())} units; API docs at /docs, its token in "
         f"{Path(data_dir) / apiauth.TOKEN_FILE}; at most {limits.total} connections (descriptor limit "
         f"{descriptors}), {per_address or 'any number'} per address, request heads within {head_timeout_s:g} s; "
         f"forwarded headers from {', '.join(proxies) or 'no proxy'})")
    if keyring.error:
        echo(f"warning: {keyring.error}")
    seated = app.state.service.standings.setup
    if seated is not None:
        where = sorted((tuple(w), u) for u, w in seated.tables.items())
        echo("tables: " + (", ".join(f"{u}={sec}:{t}" for (sec, t), u in where) or "no unit seated yet: give each "
                           "unit its table on the director's page (Rounds), or serve with --tables"))
    for line in notes:
        echo(line)
    config = uvicorn.Config(app, log_level=log_level, access_log=access_log, timeout_graceful_shutdown=5,
                            log_config=logs.log_config(log_level), http=connections.guarded_protocol(limits),
                            proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None,
                            backlog=connections.ACCEPT_BATCH)
    tune_gc()
    server = connections.CollectorServer(config)
    stop_signals = []

    def stopped(sig, frame):  # uvicorn raises again the signal it stopped on, once it is done: here it is handled
        stop_signals.append(sig)

    # Ctrl-C and TERM: uvicorn's graceful shutdown, then the lifespan's store.close() (the WAL checkpointed into
    # the main file), and the process exits 0
    before = {sig: signal.signal(sig, stopped) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if not stop_signals:
            server.run(sockets=[sock])
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    if stop_signals:
        store = app.state.service.store
        wal = store_mod.wal_path(store.path)
        kept = wal.stat().st_size if wal.exists() else 0
        echo(f"stopped ({signal.Signals(stop_signals[0]).name}): "
             + (f"{store.path} holds every commit" if not kept else
                f"{kept} bytes of commits are still in {wal} (another process has the store open)"))
