"""What the live pages and `make bench` lean on: the loop probe's window (/healthz?loop_window_s=), a live stream's
rows read for a few units agree with the whole grid, and the after-commit step says the queue moved only when it
did (a call leaves it, and so does a cmd_ack past an assign; a board started, a director call, and a cmd_ack past a
ruling move it)."""
import asyncio
import time

from collector_kit import ApiClient, assign, board_start, hello, sync

from bidwire_host.collector import commands
from bidwire_host.collector.loopprobe import LoopProbe
from bidwire_host.dashboard import queries
from bidwire_host.server import create_app


def test_the_probe_s_window_holds_a_stall_inside_it_and_not_one_before_it():
    """On the probe's own clock (set here): wake-ups 2 ms late, one 1,000 ms late at t=100.3, then 2 ms again."""
    now = [100.0]
    probe = LoopProbe(clock=lambda: now[0])
    for t, lag in ((100.0, 2.0), (100.3, 1000.0), (100.4, 2.0)):
        now[0] = t
        probe.record(lag)
    inside = probe.figures(window_s=1)
    for t in (101.5, 102.0, 102.5):
        now[0] = t
        probe.record(2.0)
    later = probe.figures(window_s=1)
    assert inside["max_stall_ms_window"] == 1000.0
    assert later["max_stall_ms_window"] == 2.0  # the stall is more than a second old
    assert later["max_stall_ms"] == 1000.0 and later["stalls_over_100ms"] == 1  # still the largest since start
    assert later["samples"] == 6


def test_the_probe_measures_a_blocked_loop():
    """The probe's task on a real loop: a blocking call is seen as one stall (how long is make bench's business)."""
    async def run():
        probe = LoopProbe()
        probe.start()
        await asyncio.sleep(0.1)
        time.sleep(0.5)  # a blocking call on the event loop
        await asyncio.sleep(0.1)
        await probe.stop()
        return probe.figures()

    figures = asyncio.run(run())
    assert figures["stalls_over_100ms"] >= 1 and figures["samples"] >= 2


def test_healthz_gives_the_window_asked_for(data):
    with ApiClient(create_app(data)) as c:
        loop = c.get("/healthz", params={"loop_window_s": 5}).json()["loop"]
        assert loop["window_s"] == 5 and loop["max_stall_ms_window"] <= loop["max_stall_ms"]
        assert "max_stall_ms_window" not in c.get("/healthz").json()["loop"]
        assert c.get("/healthz", params={"loop_window_s": 0}).status_code == 422


def call(seq, board, seat, c):
    return {"seq": seq, "type": "call", "board": board, "input": f"{seat}:{c}", "seat": seat, "verdict": "legal",
            "law": 0, "alert": False, "t": 1001}


def test_the_rows_of_a_few_units_are_those_units_rows_of_the_whole_grid(data):
    with ApiClient(create_app(data)) as c:
        for table, unit in enumerate(("T01", "T02", "T03"), 1):
            assign(c, unit, table=table, boards=(table,))
            r = sync(c, [hello(1), board_start(2, table, section="A", table=table, round=1, ns=table,
                                               ew=table + 10)], unit)
            assert r.status_code == 200
        assert sync(c, [call(3, 2, "E", "1C")], "T02").status_code == 200
        service = c.app.state.service
        whole = queries.grid(service)
        some = queries.grid(service, {"T02", "T03"})
    assert [r["unit"] for r in some] == ["T02", "T03"]
    assert some == [r for r in whole if r["unit"] in ("T02", "T03")]
    assert some[0]["calls"] == 1 and some[1]["board"] == 3 and some[1]["table"] == 3


def test_a_call_leaves_the_queue_as_it_was_and_a_director_call_moves_it(data):
    with ApiClient(create_app(data)) as c:
        published = []
        service = c.app.state.service
        publish = service.changes.publish
        service.changes.publish = lambda change: (published.append(change), publish(change))
        assign(c, "T01", boards=(1,))
        assert sync(c, [hello(1), board_start(2, 1, section="A", table=1, round=1, ns=1, ew=11)]).status_code == 200
        assert sync(c, [call(3, 1, "N", "1C")], cmd_ack=1).status_code == 200  # the assign applied
        assert sync(c, [call(4, 1, "E", "1H")], cmd_ack=1).status_code == 200
        assert sync(c, [{"seq": 5, "type": "td_call", "board": 1, "seat": "S", "t": 1002}], cmd_ack=1
                    ).status_code == 200
        service.write_now(lambda conn: commands.enqueue(conn, "T01", {"type": "ruling", "board": 1, "ruling": "reject",
                                                                      "seat": "E"}))  # as Service.rule queues one
        assert sync(c, [call(6, 1, "S", "1S")], cmd_ack=2).status_code == 200  # the ruling applied: on its way no more
        syncs = [p for p in published if p.get("units") == ["T01"] and "calls" in p]
    assert [(p["alerts"], p["calls"]) for p in syncs] == [(True, 0), (False, 1), (False, 1), (True, 0), (True, 1)]
    assert [p["alerts"] for p in published if "calls" not in p] == [False]  # the assign queued
