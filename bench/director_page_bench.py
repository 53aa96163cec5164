"""`make bench`, the director's page with one unit's flood stored (issue 12 item 6): the time to the whole answer
and the size of `GET /director` (logged in) with 20,000 calls and 150 irregularities on one board, beside
`GET /healthz` on the same server in the same run (the baseline: a request that reads the store and renders
nothing). Targets: 1 s and 5 MB. The store is filled the way tests/host/test_director_page_bounded.py fills it
(raw events through the derivation), then the real collector (`bidwire serve`) is started on it.

    .venv/bin/python bench/director_page_bench.py [--json]
"""
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "firmware"), str(ROOT / "host_tools"), str(ROOT / "tests"), str(ROOT / "tests" / "host")]

import click  # noqa: E402
import httpx2 as httpx  # noqa: E402
from collector_proc import Collector, keyring  # noqa: E402
from test_director_page_bounded import CALLS, IRREGULARITIES, _flood  # noqa: E402

from bidwire_host.collector import derive  # noqa: E402

REPEATS = 7
PASSWORD = "bench-director"


def run():
    import os
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        with derive.open_store(data) as store:
            store.write(_flood, timeout=300)
        (data / "pw").write_text(PASSWORD + "\n")
        os.chmod(data / "pw", 0o600)
        c = Collector(data, keyring(data / "keyring.json", {"T01": "5a" * 32}), 0,
                      extra=["--director-password-file", str(data / "pw")])
        try:
            client = httpx.Client(base_url=c.url, timeout=60)
            token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
            client.post("/login", data={"password": PASSWORD, "csrf": token})
            page, health, size = [], [], 0
            for _ in range(REPEATS):
                t = time.perf_counter()
                r = client.get("/director")
                page.append(time.perf_counter() - t)
                size = len(r.content)
                t = time.perf_counter()
                client.get("/healthz")
                health.append(time.perf_counter() - t)
        finally:
            c.stop()
    return {"page_ms": statistics.median(page) * 1000, "health_ms": statistics.median(health) * 1000,
            "bytes": size}


def figures(s):
    method = (f"bench/director_page_bench.py: GET /director logged in, on a store holding {CALLS:,} calls and "
              f"{IRREGULARITIES} irregularities on one board (one unit's flood); median of {REPEATS}, to the whole "
              "answer over loopback")
    base = "GET /healthz on the same server, same run"
    return [{"name": "collector: GET /director with a flooded board", "value": s["page_ms"], "unit": "ms",
             "target": 1000, "baseline": s["health_ms"], "baseline_name": base, "tag": "/healthz", "method": method},
            {"name": "collector: GET /director size with a flooded board", "value": s["bytes"] / 1024, "unit": "KiB",
             "target": 5 * 1024, "method": method}]


@click.command(help=__doc__.split("\n\n")[0])
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON")
def main(as_json):
    figs = figures(run())
    print(json.dumps(figs, indent=1) if as_json else "\n".join(f"{f['name']}: {f['value']:.0f} {f['unit']}"
                                                                  for f in figs))


if __name__ == "__main__":
    main()
