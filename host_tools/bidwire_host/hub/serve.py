"""Run the hub: `python -m bidwire_host.hub.serve [--data DIR] [--dsn DSN] [--workers 2] [--port 8090]`.

With a DSN (or BIDWIRE_HUB_DSN) the hub uses that server, a managed PostgreSQL as well as a local one. Without, it
makes and starts a local cluster under DATA (localpg.py) and stops it on exit. The migrations run once here, before
the workers start (each worker's own start finds them done). The organiser's password is read from
DATA/organiser-password (made with a random one if missing) or BIDWIRE_HUB_PASSWORD_FILE; it is never printed
unless it was just made.
"""
import os
import secrets
import signal
import sys
from pathlib import Path

import click
import uvicorn

from bidwire_host.hub import db
from bidwire_host.hub.localpg import Cluster
from bidwire_host.web import connections


def password_file(data):
    path = Path(os.environ.get("BIDWIRE_HUB_PASSWORD_FILE") or Path(data) / "organiser-password")
    made = not path.exists()
    if made:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(12) + "\n")
    return path, made


@click.command(help=__doc__.split("\n\n")[0])
@click.option("--data", default="build/hub", show_default=True, help="Where a local cluster and the password live.")
@click.option("--dsn", envvar="BIDWIRE_HUB_DSN", help="A PostgreSQL server to use (default: a local cluster).")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8090, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64))
@click.option("--forwarded-allow-ips", "proxies", default="",
              help="The proxies in front of the hub (addresses or networks, comma-separated) whose X-Forwarded-For "
                   "and X-Forwarded-Proto are believed. Default: none, so a client's address is the connection's "
                   "and no header can name another (the login limit counts per address).")
def main(data, dsn, host, port, workers, proxies):
    cluster = None
    if not dsn:
        cluster = Cluster(Path(data) / "postgres").start()
        dsn = cluster.dsn
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        db.migrate(dsn)
        pw, made = password_file(data)
        os.environ["BIDWIRE_HUB_DSN"] = dsn
        os.environ["BIDWIRE_HUB_PASSWORD_FILE"] = str(pw.resolve())
        print(f"hub: http://{host}:{port}/ ({workers} workers)", flush=True)
        print(f"hub: organiser password in {pw}" + (f": {pw.read_text().strip()}" if made else ""), flush=True)
        trusted = [p.strip() for p in proxies.split(",") if p.strip()]
        os.environ["BIDWIRE_HUB_PROXIES"] = ",".join(trusted)  # for each worker's connection guard
        from bidwire_host.hub.connection_guard import HubProtocol

        print(f"hub: forwarded headers from {', '.join(trusted) or 'no proxy'}; request heads within "
              f"{connections.HEAD_TIMEOUT_S:g} s, at most {connections.PER_ADDRESS} connections an address", flush=True)
        # uvicorn believes X-Forwarded-For from 127.0.0.1 unless told otherwise: a local proxy that passes the
        # client's header on would let each guess of the password come from "another address" (issue 39, 5)
        uvicorn.run("bidwire_host.hub.app:app_from_env", factory=True, host=host, port=port, workers=workers,
                    log_level="warning", proxy_headers=bool(trusted), forwarded_allow_ips=trusted or None,
                    http=HubProtocol)
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
