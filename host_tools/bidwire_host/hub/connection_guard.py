"""The hub's door: the collector's connection guard (web/connections.py) in each hub worker, so that half-sent
request heads are answered 408 within HEAD_TIMEOUT_S, one address holds at most PER_ADDRESS connections, and the
total stays under the worker's descriptor limit (issue 39, finding 3: 2,300 half-sent heads were never closed, and
a club's upload and /healthz from another address timed out).

uvicorn's workers are spawned processes that import their protocol class by name: `HubProtocol` is made here at
import, in each worker, with that worker's own limits; the proxies whose forwarded addresses are believed come
from BIDWIRE_HUB_PROXIES, which hub/serve.py sets from --forwarded-allow-ips.
"""
import os

from bidwire_host.web import connections


def _limits():
    proxies = [p.strip() for p in os.environ.get("BIDWIRE_HUB_PROXIES", "").split(",") if p.strip()]
    total = connections.total_for(connections.raise_descriptor_limit())
    return connections.ConnectionLimits(total, connections.PER_ADDRESS, connections.HEAD_TIMEOUT_S, proxies)


HubProtocol = connections.guarded_protocol(_limits())
HubProtocol.__name__ = HubProtocol.__qualname__ = "HubProtocol"  # found by name when a worker unpickles its config
HubProtocol.__module__ = __name__
