"""The hub's figures (issue: the hub on PostgreSQL), each beside a baseline from the same run:

- ingest: C clubs upload at once, each ~33 tables x 24 boards, one signed upload per round of 4 boards (the
  results a club's tables confirm together), to the hub with 2 workers, while N readers read the sim's pages:
  results/s sustained when every club sends its next upload as soon as the last is acknowledged (the hub's
  capacity). Baseline: the same upload to a 1-worker hub with no readers (a club collector has no upload
  endpoint, so the one-worker hub stands in for "one process").
- acknowledgement: the same clubs paced to offer PACE (2,000) results/s together, each club's uploads on a
  schedule, with the readers: p99 of the time to each upload's 200. A club that sends as soon as it is answered
  measures the queue it makes itself (150 uploads always waiting), not the hub's answer at a given rate.
  Baseline: the same paced upload to 1 worker without readers.
- fresh standings: during the paced run, after each upload, the time until the combined ranking served
  includes it (polling /api/v1/sims/{sim}/progress every POLL_S (50 ms) until `results` covers the upload;
  p99; the figure is late by up to POLL_S).
- full rescoring of the field (ranking included), in process: scoring/combined_field.score on R results, against
  the club's scoring core alone (scoring.session.score_field) on the same results; and the live field taking one upload.
- readers: N readers in a process of their own, each opening the sim's ranking or board 1's page, reading it,
  and opening the next READ_S (1 s) later, as a phone reloading the ranking every second: time to first byte
  p99 during the paced run (and, in the ingest figure's method, during the unpaced one). The sim is played before
  its release, as a sim is (a result first seen after the release is held for the organiser, docs/hub.md), so
  what they read is what anyone reads then: the pages that say when the results will be out.
- growth: ingest rate and rescoring time at 10, 50 and 150 clubs.

    .venv/bin/python bench/hub_bench.py [--clubs 10,50,150] [--readers 200]

A benchmark, not a test: nothing here asserts. Clients and hub share the machine's cores.
"""
import asyncio
import json
import multiprocessing
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

import click  # noqa: E402
from hubkit import Hub, Pg  # noqa: E402

from bidwire_host import signing  # noqa: E402
from bidwire_host.hub.live_field import LiveField  # noqa: E402
from bidwire_host.scoring import combined_field as field  # noqa: E402
from bidwire_host.scoring.field_tally import Tally  # noqa: E402
from bidwire_host.scoring.model import law77_score  # noqa: E402
from bidwire_host.scoring.session import score_field  # noqa: E402

BOARDS = 24
TABLES = 5000 // 150  # a club's tables (33): 150 clubs give ~5,000 tables
ROUND = 4  # boards a round: one upload each
POLL_S = 0.05  # the freshness figure's resolution: the progress is read this often (an organiser's page: 1 s)
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


READ_S = 1.0  # a reader's pause between two pages: a phone on the ranking that reloads every second


async def _read(url, sim, readers, stop):
    """`readers` readers, each opening the sim's ranking or board 1's page, reading it to the end, and
    opening the next READ_S later; the time to first byte of every read."""
    ttfb, lost = [], 0
    limits = httpx.Limits(max_connections=readers + 10, max_keepalive_connections=readers + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        async def reader(k):
            nonlocal lost
            paths = (f"/sims/{sim}", f"/sims/{sim}/boards/1")
            i = k
            await asyncio.sleep(READ_S * k / readers)  # the readers arrive spread over one pause
            while not stop.is_set():
                t0 = time.perf_counter()
                try:
                    async with client.stream("GET", paths[i % 2]) as r:
                        ttfb.append(time.perf_counter() - t0)
                        async for _ in r.aiter_bytes():
                            pass
                except httpx.TransportError:
                    lost += 1  # a reader whose connection the hub closed reads on, on a new one
                i += 1
                await asyncio.sleep(READ_S)

        await asyncio.gather(*(reader(k) for k in range(readers)))
    return ttfb, lost


def _readers_process(url, sim, readers, stop, out):
    """The readers in a process of their own, so that their reading does not delay the clubs' clients."""
    ttfb, lost = asyncio.run(_read(url, sim, readers, stop))
    out.put((ttfb, lost))


async def _ingest(url, sim, secrets, password, seed, pace):
    """Every club uploads its rounds one after the other, all clubs at once: as fast as the hub acknowledges
    (pace None), or paced so that the clubs together offer `pace` results a second."""
    acks, fresh, retried = [], [], []
    done = asyncio.Event()
    limits = httpx.Limits(max_connections=1000, max_keepalive_connections=1000)
    rng = random.Random(seed)
    per_round = len(secrets) * TABLES * ROUND
    every = per_round / pace if pace else 0.0  # seconds between a club's uploads
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        org = {"Authorization": f"Bearer {password}"}

        async def club(c):
            start = time.perf_counter() + rng.uniform(0, every)
            for n, results in sorted(club_results(c, seed).items()):
                if every:
                    await asyncio.sleep(max(0.0, start + n * every - time.perf_counter()))
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
                            await asyncio.sleep(POLL_S)
                        fresh.append(time.perf_counter() - t1)
                        break
                    await asyncio.sleep(POLL_S)
                await asyncio.sleep(0.05)

        side = asyncio.create_task(freshness())
        t0 = time.perf_counter()
        await asyncio.gather(*(club(c) for c in secrets))
        wall = time.perf_counter() - t0
        done.set()
        await asyncio.gather(side, return_exceptions=True)
    return wall, acks, fresh, len(retried)


def ingest(cluster, clubs, workers, readers, seed=1, pace=None):
    """One sim, `clubs` clubs uploading at once to a hub with `workers` workers, `readers` readers reading the
    sim's pages meanwhile (before its release, as a sim is played): the measured figures."""
    with tempfile.TemporaryDirectory(prefix="bidwire-hub-bench-") as folder:
        hub = Hub(cluster.dsn, folder, workers=workers).start()
        reading = None
        try:
            sim = f"bench-{clubs}-{workers}-{time.monotonic_ns()}"[:40]
            with hub.organiser() as org:
                org.post("/api/v1/sims", json={"id": sim, "name": sim, "boards": list(range(1, BOARDS + 1)),
                                               "release_at": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
                                               "correction_minutes": 10080}).raise_for_status()
                secrets = {f"C{k}": org.post(f"/api/v1/sims/{sim}/clubs",
                                             json={"id": f"C{k}", "name": f"C{k}"}).json()["secret"]
                           for k in range(1, clubs + 1)}
            if readers:
                ctx = multiprocessing.get_context("spawn")
                stop, out = ctx.Event(), ctx.Queue()
                reading = ctx.Process(target=_readers_process, args=(hub.url, sim, readers, stop, out))
                reading.start()
            wall, acks, fresh, retries = asyncio.run(_ingest(hub.url, sim, secrets, hub_password(folder), seed, pace))
            ttfb, lost = [], 0
            if reading is not None:
                stop.set()
                ttfb, lost = out.get(timeout=120)
                reading.join(30)
        finally:
            if reading is not None and reading.is_alive():
                reading.kill()
            hub.stop()
    n = clubs * TABLES * BOARDS
    return {"clubs": clubs, "workers": workers, "readers": readers, "pace": pace, "results": n, "wall_s": wall,
            "rate": n / wall, "ack_p99_ms": 1000 * p99(acks),
            "ack_p95_ms": 1000 * sorted(acks)[int(0.95 * len(acks))], "acks_over_1s": sum(a > 1 for a in acks),
            "uploads": len(acks), "ack_median_ms": 1000 * statistics.median(acks),
            "fresh_p99_ms": None if not fresh else 1000 * p99(fresh), "fresh_n": len(fresh),
            "ttfb_p99_ms": None if not ttfb else 1000 * p99(ttfb), "reads": len(ttfb), "lost_reads": lost,
            "retries": retries}


def hub_password(folder):
    return (Path(folder) / "organiser-password").read_text().strip()


def rescoring(results_count, seed=1, runs=3):
    """Seconds (medians of `runs`) to take `results_count` stored results into a worker's tally
    (scoring/field_tally.py, board by board, as a worker's first read does), to score the field from what it holds
    (every pair's sums, the order, ranks and club ranks, the first 100 entries made: scoring/combined_field.of_tally),
    and for the scoring core alone on the same results."""
    clubs = max(1, results_count // (TABLES * BOARDS))
    by_board = {}
    for k in range(1, clubs + 1):
        for results in club_results(f"C{k}", seed).values():
            for r in results:
                by_board.setdefault(r["board"], []).append({"club_id": f"C{k}", "session": "", "ns_names": "",
                                                            "ew_names": "", "adjusted": None, "version": 1, **r})
    take, hub = [], []
    for _ in range(runs):
        tally = Tally("neuberg")
        t0 = time.perf_counter()
        for b, rows in by_board.items():
            tally.put(b, rows)
        take.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        field.of_tally(tally, "two").ranking[:100]
        hub.append(time.perf_counter() - t0)
    results, _ = field.results_of([r for b in sorted(by_board) for r in by_board[b]])
    core = []
    for _ in range(runs):
        t0 = time.perf_counter()
        score_field(results, "neuberg", two_fields=True)
        core.append(time.perf_counter() - t0)
    return {"results": len(results), "take_s": statistics.median(take), "hub_s": statistics.median(hub),
            "core_s": statistics.median(core)}


def live_update(results_count, seed=1):
    """Seconds for the live field (hub/live_field.py) to take one upload's change as a worker takes it (the results it
    set merged into their boards: one result changed on each of ROUND boards) and give the ranking, on a field of
    `results_count` results already held; and for field.score to score the same field afresh (what a worker
    would do without the live field)."""
    clubs = max(1, results_count // (TABLES * BOARDS))
    by_board = {}
    for k in range(1, clubs + 1):
        for results in club_results(f"C{k}", seed).values():
            for r in results:
                by_board.setdefault(r["board"], []).append({"club_id": f"C{k}", "session": "", "ns_names": "",
                                                            "ew_names": "", "adjusted": None, "version": 1, **r})
    sim = {"id": "bench", "scoring": "neuberg", "winners": "two"}
    live = LiveField(sim)
    live.update(by_board)
    live.field()
    changed = {}
    for b in range(1, ROUND + 1):
        row = dict(by_board[b][0])
        row["score_ns"] = -row["score_ns"]  # a correction: the first result's score the other way
        changed[b] = [row]
        by_board[b][0] = row
    t0 = time.perf_counter()
    for b, rows in changed.items():
        live.tally.merge(b, rows)
    live.field().ranking[:100]  # the head of the ranking, as the first page and the progress show it
    live_s = time.perf_counter() - t0
    rows = [r for b in sorted(by_board) for r in by_board[b]]
    t0 = time.perf_counter()
    field.score(sim, rows).ranking[:100]
    full_s = time.perf_counter() - t0
    return {"results": len(rows), "live_s": live_s, "full_s": full_s}


PACE = 2000  # results a second the clubs together offer in the paced runs: the sustained rate


def run(clubs=(10, 50, 150), readers=200):
    out = {"growth": [], "rescore": []}
    top = max(clubs)
    with Pg() as cluster:
        for c in clubs:  # as fast as the hub acknowledges, nobody reading: how ingest grows with the clubs
            out["growth"].append(ingest(cluster, c, 2, 0))
        out["full"] = ingest(cluster, top, 2, readers)  # as fast as acknowledged, with the readers
        out["paced"] = ingest(cluster, top, 2, readers, pace=PACE)  # PACE results/s offered, with the readers
        out["baseline"] = ingest(cluster, top, 1, 0)
        out["paced_baseline"] = ingest(cluster, top, 1, 0, pace=PACE)
    for c in clubs:
        out["rescore"].append(rescoring(c * TABLES * BOARDS))
    out["rescore_180k"] = rescoring(180_000)
    out["live_180k"] = live_update(180_000)
    return out


def figures(f):
    full, paced = f["full"], f["paced"]
    base, paced_base = f["baseline"], f["paced_baseline"]
    r180 = f["rescore_180k"]
    n = full["results"]
    return [
        dict(name=f"hub: ingest, {full['clubs']} clubs at once, 2 workers, {full['readers']} readers",
             value=full["rate"], unit="results/s",
             method=f"{n:,} results ({full['clubs']} clubs x {TABLES} tables x {BOARDS} boards), one signed upload "
                    f"per club per round of {ROUND} boards, each sent as soon as the last is acknowledged, all clubs "
                    f"at once, {full['readers']} readers reading the sim's pages before its release "
                    f"({full['reads']:,} reads, one a second each, TTFB p99 {full['ttfb_p99_ms'] or 0:.0f} ms); "
                    f"{full['retries']} uploads answered 503 (busy) and sent again, as a club's link does",
             target=2000, at_least=True, baseline=base["rate"], baseline_name="the same upload, 1 worker, no readers",
             tag="1 worker"),
        dict(name=f"hub: upload acknowledged at {PACE:,} results/s, p99", value=paced["ack_p99_ms"], unit="ms",
             method=f"the same clubs, each sending its next upload on a schedule so that together they offer {PACE:,} "
                    f"results/s (they got {paced['rate']:,.0f}/s), {paced['readers']} readers alongside: time from "
                    "sending an upload to its 200, p99 over every upload", target=100,
             baseline=paced_base["ack_p99_ms"], baseline_name="the same paced upload, 1 worker, no readers",
             tag="1 worker"),
        dict(name="hub: standings fresh after an upload, p99", value=paced["fresh_p99_ms"] or 0, unit="ms",
             method="after an upload is acknowledged, until /progress (the ranking's field) counts it; p99 of "
                    f"{paced['fresh_n']} samples during the paced run", target=1000,
             baseline=paced["ack_median_ms"], baseline_name="median upload ack, same run", tag="ack median"),
        dict(name=f"hub: full rescoring of {r180['results']:,} results with the ranking", value=1000 * r180["hub_s"],
             unit="ms", method="in process, the field scored from the results a worker's tally holds (Neuberg, two "
                    "winners): every result's matchpoints, every pair's sums, the order, ranks and club ranks, the "
                    f"first 100 entries made; median of 3. Taking the {r180['results']:,} stored rows into the "
                    f"tally first (a worker's first read, once): {1000 * r180['take_s']:.0f} ms", target=100,
             baseline=1000 * r180["core_s"], baseline_name="the club's scoring core alone (score_field)",
             tag="scoring core"),
        dict(name=f"hub: live field, one upload into {f['live_180k']['results']:,} results, with the ranking",
             value=1000 * f["live_180k"]["live_s"], unit="ms",
             method=f"hub/live_field.py: one result changed on each of {ROUND} boards merged into the field held, then "
                    "the ranking (its first 100 entries made, as the first page shows them)",
             target=100, baseline=1000 * f["live_180k"]["full_s"],
             baseline_name="field.score of the same field afresh", tag="afresh"),
        dict(name="hub: ranking and board page, time to first byte p99", value=paced["ttfb_p99_ms"] or 0, unit="ms",
             method=f"{paced['reads']:,} reads of /sims/{{sim}} and /sims/{{sim}}/boards/1 by {paced['readers']} "
                    f"readers (each opens a page, reads it, opens the next {READ_S:g} s later) during the paced "
                    "upload", target=200, baseline=paced["ack_p99_ms"], baseline_name="upload ack p99, same run",
             tag="ack p99"),
    ]


@click.command(help=__doc__.split("\n\n")[0])
@click.option("--clubs", default="10,50,150", show_default=True, help="club counts, comma-separated")
@click.option("--readers", type=int, default=200, show_default=True)
def main(clubs, readers):
    out = run(tuple(int(x) for x in clubs.split(",")), readers)
    print(json.dumps(out, indent=1))
    for f in figures(out):
        print(f"{f['name']}: {f['value']:.1f} {f['unit']} (target {f['target']}; baseline {f['baseline']:.1f} "
              f"{f['baseline_name']})")


if __name__ == "__main__":
    main()
