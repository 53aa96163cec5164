"""The unit's heap figure as a pass rate: the smallest `-X heapsize` at which every one of N seeded 32-board
sessions completes (20 of 20 by default), with the count at each heap tried.

A session's peak need depends on when the sync client's requests fall between presses (a press taken while a POST
is under way is where the heap runs out), so one clean session proves little at the edge. Seed s waits 0-300 ms
(the script line `sleep`) before a seeded tenth of the presses of tests/e2e/session.py's session, so each seed puts
the syncs somewhere else. Seeds are 1..N, the same in every run.

    .venv/bin/python bench/heap_pass_rate.py [--build "32-bit frozen"|"32-bit .mpy"] [--sessions 20] [--mp32-mpy P]
        START_K [STEP_K]

From START_K it steps down by STEP_K while every session passes, or up until every session does, and prints the
smallest heap with N of N and each heap's count. `make bench` measures its heap figures with the same
`unit_bench.smallest_heap`.
"""
import sys
import tempfile
from pathlib import Path

import click

sys.path.insert(0, str(Path(__file__).resolve().parent))
import unit_bench  # noqa: E402


@click.command(help=__doc__.split("\n\n")[0])
@click.argument("start_k", type=int)
@click.argument("step_k", type=int, default=1, required=False)
@click.option("--build", default="32-bit frozen", show_default=True)
@click.option("--sessions", type=int, default=unit_bench.SESSIONS, show_default=True)
@click.option("--mp32-mpy", default=str(unit_bench.ROOT / "build" / "mp32-mpy" / "micropython"), show_default=True)
def main(start_k, step_k, build, sessions, mp32_mpy):
    on = next(b for b in unit_bench.builds(Path(mp32_mpy)) if b.key == build)
    with tempfile.TemporaryDirectory(prefix="bidwire-heap-") as tmp, \
            unit_bench.Collector.with_units(Path(tmp), {}) as c:
        heap, counts = unit_bench.smallest_heap(c, Path(tmp), on, start_k, step_k, sessions)
    for k in sorted(counts):
        print(f"{on.key} {k}K: {counts[k][0]} of {counts[k][1]}")
    print(f"{on.key}: smallest heap with {sessions} of {sessions} sessions: {heap} B ({heap // 1024} KiB)")


if __name__ == "__main__":
    main()
