"""Two clubs' uploads in transactions that overlap, against the real PostgreSQL: neither waits for the other,
and a worker reading between them misses neither (hub/live_field.py reads the results set at or above the horizon of
its last read). The club whose transaction started first commits last, the order a counter of finished changes
would get wrong."""
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from bidwire_host.hub import db, storage
from bidwire_host.hub.inputs import ClubRegistration, SimSetup, Upload
from bidwire_host.hub.live_field import LiveField

PLAYED = {420: ("4S", "N", 10), 400: ("3NT", "S", 9), -50: ("4S", "N", 9)}  # board 1: none vulnerable


def _result(board, table, score):
    contract, declarer, tricks = PLAYED[score]
    return {"section": "A", "board": board, "ns": str(table), "ew": str(table), "contract": contract,
            "declarer": declarer, "tricks": tricks, "score_ns": score}


def _upload(club, number, results):
    return Upload.model_validate({"sim": "reads", "club": club, "upload": number, "results": results})


@pytest.fixture
def dsn(pg):
    dsn = pg.dsn
    db.migrate(dsn)
    with psycopg.connect(dsn) as conn:
        storage.create_sim(conn, SimSetup(id="reads", name="Reads", boards=[1, 2],
                                          release_at=datetime.now(UTC) + timedelta(hours=1)), {})
        for club in ("A", "B", "C"):
            storage.register_club(conn, "reads", ClubRegistration(id=club, name=club))
    return dsn


def _ranked(f):
    return sorted((e["pair"].club, e["pair"].number, e["pair"].direction, e["mp"]) for e in f.ranking)


def test_overlapping_uploads_do_not_wait_and_a_worker_between_them_misses_none(dsn):
    sim = {"id": "reads", "scoring": "neuberg", "winners": "two"}
    live = LiveField(sim)
    with psycopg.connect(dsn) as first, psycopg.connect(dsn) as second, psycopg.connect(dsn) as worker:
        # The worker has read an empty field: its horizon is now.
        assert live.refresh(worker, storage.sim(worker, "reads")).results == 0
        worker.commit()
        assert storage.store_upload(first, _upload("A", 1, [_result(1, 1, 420)]), b"a") == ("stored", 1, 0)
        # A's transaction is open, holding what it set. B's goes on beside it: a wait on any row A holds would
        # end in lock_timeout's error, not in a result.
        second.execute("SET lock_timeout = '2s'")
        assert storage.store_upload(second, _upload("B", 1, [_result(1, 1, 400)]), b"b") == ("stored", 1, 0)
        second.commit()
        between = live.refresh(worker, storage.sim(worker, "reads"))
        worker.commit()
        # Board 1 holds B's 400 alone: 0 units, (0 + 1) x 1 / 1 - 1 = 0 on a top of 0 for both sides.
        assert between.results == 1
        assert _ranked(between) == [("B", "1", "EW", 0), ("B", "1", "NS", 0)]
        first.commit()  # A, which began first, commits after the worker's read
        after = live.refresh(worker, storage.sim(worker, "reads"))
        worker.commit()
        # Board 1: 420 beats 400: NS A1 2 of 2, B1 0; EW the other way round.
        assert after.results == 2
        assert _ranked(after) == [("A", "1", "EW", 0), ("A", "1", "NS", 2), ("B", "1", "EW", 2),
                                  ("B", "1", "NS", 0)]
        # A third club's upload and A's correction of its result both reach the worker.
        assert storage.store_upload(second, _upload("C", 1, [_result(1, 1, 420)]), b"c") == ("stored", 1, 0)
        second.commit()
        assert storage.store_upload(first, _upload("A", 2, [_result(1, 1, -50)]), b"a2") == ("stored", 1, 0)
        first.commit()
        last = live.refresh(worker, storage.sim(worker, "reads"))
        # Board 1: 420 (C) beats 400 (B) and -50 (A): NS C1 4, B1 2, A1 0 of a top of 4.
        assert sorted((e["pair"].club, e["mp"]) for e in last.ranking if e["pair"].direction == "NS") == [
            ("A", 0), ("B", 2), ("C", 4)]
