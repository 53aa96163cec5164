"""The hub's figures (issue: the hub on PostgreSQL), each beside a baseline from the same run:

- ingest: C clubs upload at once, each ~33 tables x 24 boards, one signed upload per round of 4 boards (the
  results a club's tables confirm together), to the hub with 2 workers: results/s sustained over the whole
  upload, and the p99 of the time to each upload's acknowledgement. Baseline: the same upload to the hub with 1
  worker (a club collector has no upload endpoint, so the one-worker hub stands in for "one process").
- fresh standings: after each upload, the time until the combined ranking served includes it (a reader polling
  /api/v1/sims/{sim}/progress until `results` covers the upload; p99), with the field filling up.
- full rescoring of the field (ranking included), in process: hub/field.score on R results, against the club's
  scoring core alone (scoring.session.score_field) on the same results.
- readers: the released ranking page and board 1's page, time to first byte p99 with N concurrent readers while
  the clubs upload.
- growth: ingest rate and rescoring time at 10, 50 and 150 clubs.

    .venv/bin/python bench/hub_bench.py [--clubs 10,50,150] [--readers 200]

A benchmark, not a test: nothing here asserts. Clients and hub share the machine's cores.
"""
import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2 as httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hubkit import Hub, Pg  # noqa: E402

from bidwire_host.hub import field, signing  # noqa: E402
from bidwire_host.hub.live import LiveField  # noqa: E402
from bidwire_host.scoring.model import law77_score  # noqa: E402
from bidwire_host.scoring.session import score_field  # noqa: E402

BOARDS = 24
TABLES = 5000 // 150  # a club's tables (33): 150 clubs give ~5,000 tables
ROUND = 4  # boards a round: one upload each
CONTRACTS = [("4S", "N"), ("3NT", "S"), ("2H", "E"), ("1NT", "W"), ("4H", "S"), ("3C", "E")]


def club_results(club, seed):
    """{round: [result]} of one club: each table plays every board once (NS and EW pair = the table)."""
    rng = random.Random(f"{seed}:{club}")
    rounds = {}
    for board in range(1, BOARDS + 1):
        for table in range(1, TABLES + 1):
            contract, declarer = rng.choice(CONTRACTS)
            level = int(contract[0])
            tricks = max(0, min(13, level + 6 + rng.choice((-2, -1, 0, 0, 1, 1))))
            rounds.setdefault((board - 1) // ROUND, []).append({
                "section": "A", "board": board, "ns": str(table), "ew": str(table), "contract": contract,
                "declarer": declarer, "tricks": tricks,
                "score_ns": law77_score(board, contract, declarer, tricks)})
    return rounds


def p99(values):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, int(0.99 * len(v)))]


async def _ingest(url, sim, secrets, password, readers, seed):
    """Every club uploads its rounds one after the other, all clubs at once; readers poll the released pages."""
    acks, fresh, ttfb, retried, lost = [], [], [], [], []
    done = asyncio.Event()
    limits = httpx.Limits(max_connections=1000, max_keepalive_connections=1000)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        org = {"Authorization": f"Bearer {password}"}

        async def club(c):
            for n, results in sorted(club_results(c, seed).items()):
                body = json.dumps({"sim": sim, "club": c, "upload": n + 1, "results": results}).encode()
                headers = {signing.HEADER_CLUB: c, "Content-Type": "application/json",
                           signing.HEADER_SIGNATURE: signing.sign(body, bytes.fromhex(secrets[c]))}
                t0 = time.perf_counter()
                while True:  # busy (503: the pool's wait ran out) or a connection lost: again, as a club's link does
                    try:
                        r = await client.post("/api/v1/upload", content=body, headers=headers)
                    except httpx.TransportError:
                        r = None
                    if r is not None and r.status_code != 503:
                        break
                    retried.append(c)
                    await asyncio.sleep(float(r.headers.get("Retry-After", "1")) if r is not None else 1.0)
                acks.append(time.perf_counter() - t0)  # to the upload's 200, retries included
                if r.status_code != 200:
                    raise RuntimeError(f"upload refused: {r.status_code} {r.text[:200]}")

        async def progress():
            while True:  # a connection the hub closed: read again on a new one
                try:
                    return (await client.get(f"/api/v1/sims/{sim}/progress", headers=org)).json()["results"]
                except httpx.TransportError:
                    await asyncio.sleep(0.05)

        async def freshness():
            """The p99 lag between an acknowledged upload and the ranking that includes it: poll the progress."""
            while not done.is_set():
                before = len(acks)
                target = None
                while not done.is_set():
                    results = await progress()
                    if target is None:
                        target = results
                    if len(acks) > before:
                        # an upload was acknowledged: wait until the served count has moved past target
                        t1 = time.perf_counter()
                        while await progress() <= target and not done.is_set():
                            pass
                        fresh.append(time.perf_counter() - t1)
                        break
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.05)

        async def reader(k):
            paths = (f"/sims/{sim}", f"/sims/{sim}/boards/1")
            i = k
            while not done.is_set():
                t0 = time.perf_counter()
                try:
                    async with client.stream("GET", paths[i % 2]) as r:
                        ttfb.append(time.perf_counter() - t0)
                        async for _ in r.aiter_bytes():
                            pass
                except httpx.TransportError:
                    lost.append(k)  # a reader whose connection the hub closed reads on, on a new one
                i += 1

        side = [asyncio.create_task(reader(k)) for k in range(readers)]
        side.append(asyncio.create_task(freshness()))
        t0 = time.perf_counter()
        await asyncio.gather(*(club(c) for c in secrets))
        wall = time.perf_counter() - t0
        done.set()
        await asyncio.gather(*side, return_exceptions=True)
    return wall, acks, fresh, ttfb, len(retried)


def ingest(cluster, clubs, workers, readers, seed=1):
    """One sim, `clubs` clubs uploading at once to a hub with `workers` workers: the measured figures."""
    with tempfile.TemporaryDirectory(prefix="bidwire-hub-bench-") as folder:
        hub = Hub(cluster.dsn, folder, workers=workers).start()
        try:
            sim = f"bench-{clubs}-{workers}-{time.monotonic_ns()}"
            with hub.organiser() as org:
                org.post("/api/v1/sims", json={"id": sim[:40], "name": sim, "boards": list(range(1, BOARDS + 1)),
                                               "release_at": (datetime.now(UTC) - timedelta(minutes=1)).isoformat(),
                                               "correction_minutes": 10080}).raise_for_status()
                secrets = {f"C{k}": org.post(f"/api/v1/sims/{sim[:40]}/clubs",
                                             json={"id": f"C{k}", "name": f"C{k}"}).json()["secret"]
                           for k in range(1, clubs + 1)}
            wall, acks, fresh, ttfb, retries = asyncio.run(_ingest(hub.url, sim[:40], secrets, hub_password(folder),
                                                          readers, seed))
        finally:
            hub.stop()
    n = clubs * TABLES * BOARDS
    return {"clubs": clubs, "workers": workers, "results": n, "wall_s": wall, "rate": n / wall,
            "ack_p99_ms": 1000 * p99(acks), "ack_median_ms": 1000 * statistics.median(acks),
            "fresh_p99_ms": None if not fresh else 1000 * p99(fresh), "fresh_n": len(fresh),
            "ttfb_p99_ms": None if not ttfb else 1000 * p99(ttfb), "reads": len(ttfb), "retries": retries}


def hub_password(folder):
    return (Path(folder) / "organiser-password").read_text().strip()


def rescoring(results_count, seed=1):
    """Seconds for hub/field.score and for the scoring core alone on the same `results_count` results."""
    clubs = max(1, results_count // (TABLES * BOARDS))
    rows = []
    for k in range(1, clubs + 1):
        for results in club_results(f"C{k}", seed).values():
            for r in results:
                rows.append({"club_id": f"C{k}", "ns_names": "", "ew_names": "", "adjusted": None,
                             "version": 1, **r})
    rows.sort(key=lambda r: r["board"])
    sim = {"scoring": "neuberg", "winners": "two"}
    t0 = time.perf_counter()
    field.score(sim, rows)
    hub_s = time.perf_counter() - t0
    results, _ = field.results_of(rows)
    t0 = time.perf_counter()
    score_field(results, "neuberg", two_fields=True)
    core_s = time.perf_counter() - t0
    return {"results": len(rows), "hub_s": hub_s, "core_s": core_s}


def live_update(results_count, seed=1):
    """Seconds for the live field (hub/live.py) to take one upload's change (a round of ROUND boards, one
    result changed on each) and give the ranking, on a field of `results_count` results already held; and
    for field.score to score the same field afresh (what a worker would do without the live field)."""
    clubs = max(1, results_count // (TABLES * BOARDS))
    by_board = {}
    for k in range(1, clubs + 1):
        for results in club_results(f"C{k}", seed).values():
            for r in results:
                by_board.setdefault(r["board"], []).append({"club_id": f"C{k}", "ns_names": "", "ew_names": "",
                                                            "adjusted": None, "version": 1, **r})
    sim = {"id": "bench", "scoring": "neuberg", "winners": "two"}
    live = LiveField(sim)
    live.update(by_board)
    live.field()
    changed = {}
    for b in range(1, ROUND + 1):
        rows = [dict(r) for r in by_board[b]]
        rows[0]["score_ns"] = -rows[0]["score_ns"]  # a correction: the first result's score the other way
        changed[b] = rows
    t0 = time.perf_counter()
    live.update(changed)
    live.field()
    live_s = time.perf_counter() - t0
    by_board.update(changed)
    rows = [r for b in sorted(by_board) for r in by_board[b]]
    t0 = time.perf_counter()
    field.score(sim, rows)
    full_s = time.perf_counter() - t0
    return {"results": len(rows), "live_s": live_s, "full_s": full_s}


def run(clubs=(10, 50, 150), readers=200):
    out = {"growth": [], "rescore": []}
    with Pg() as cluster:
        for c in clubs:
            out["growth"].append(ingest(cluster, c, 2, readers if c == max(clubs) else 0))
        out["baseline"] = ingest(cluster, max(clubs), 1, 0)
    for c in clubs:
        out["rescore"].append(rescoring(c * TABLES * BOARDS))
    out["rescore_180k"] = rescoring(180_000)
    out["live_180k"] = live_update(180_000)
    return out


def figures(f):
    full = f["growth"][-1]
    base = f["baseline"]
    r180 = f["rescore_180k"]
    n = full["results"]
    return [
        dict(name=f"hub: ingest, {full['clubs']} clubs at once, 2 workers", value=full["rate"], unit="results/s",
             method=f"{n:,} results ({full['clubs']} clubs x {TABLES} tables x {BOARDS} boards), one signed upload "
                    f"per club per round of {ROUND} boards, all clubs at once, {full['reads']:,} reads alongside; "
                    f"{full.get('retries', 0)} uploads answered 503 (busy) and sent again, as a club's link does",
             target=2000, at_least=True, baseline=base["rate"], baseline_name="the same upload, 1 worker",
             tag="1 worker"),
        dict(name="hub: upload acknowledged, p99", value=full["ack_p99_ms"], unit="ms",
             method="time from sending an upload to its 200, p99 over every upload of the run above", target=100,
             baseline=base["ack_p99_ms"], baseline_name="the same upload, 1 worker", tag="1 worker"),
        dict(name="hub: standings fresh after an upload, p99", value=full["fresh_p99_ms"] or 0, unit="ms",
             method="after an upload is acknowledged, until /progress (the ranking's field) counts it; p99 of "
                    f"{full['fresh_n']} samples during the run above", target=1000,
             baseline=full["ack_median_ms"], baseline_name="median upload ack", tag="ack median"),
        dict(name=f"hub: full rescoring of {r180['results']:,} results with the ranking", value=1000 * r180["hub_s"],
             unit="ms", method="hub/field.score in process (Neuberg, two winners)", target=100,
             baseline=1000 * r180["core_s"], baseline_name="the club's scoring core alone (score_field)",
             tag="scoring core"),
        dict(name=f"hub: live field, one upload into {f['live_180k']['results']:,} results, with the ranking",
             value=1000 * f["live_180k"]["live_s"], unit="ms",
             method=f"hub/live.py: {ROUND} boards' results read again (one changed on each), then the ranking",
             target=100, baseline=1000 * f["live_180k"]["full_s"],
             baseline_name="field.score of the same field afresh", tag="afresh"),
        dict(name="hub: ranking and board page, time to first byte p99", value=full["ttfb_p99_ms"] or 0, unit="ms",
             method=f"{full['reads']:,} reads of /sims/{{sim}} and /sims/{{sim}}/boards/1 by 200 concurrent readers "
                    "during the upload above", target=200, baseline=full["ack_p99_ms"],
             baseline_name="upload ack p99, same run", tag="ack p99"),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clubs", default="10,50,150")
    p.add_argument("--readers", type=int, default=200)
    args = p.parse_args()
    out = run(tuple(int(x) for x in args.clubs.split(",")), args.readers)
    print(json.dumps(out, indent=1))
    for f in figures(out):
        print(f"{f['name']}: {f['value']:.1f} {f['unit']} (target {f['target']}; baseline {f['baseline']:.1f} "
              f"{f['baseline_name']})")


if __name__ == "__main__":
    main()
