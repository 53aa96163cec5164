"""A sim end to end: two clubs play the same 3-table Mitchell heat with bidwire (real collectors, three real
virtual units each), both feeding one hub (a real PostgreSQL cluster, two workers) over HTTP with signed uploads.

Club B cannot reach the hub all evening (its link goes through a proxy whose upstream is down): it uploads
everything once the link is back. Club A's scorer then corrects a result, which replaces it at the hub. The
combined field is checked against figures worked here: both clubs play the same tricks, so on every board a
result with the club's matchpoints m (2/1 units, top 4) beats 2m of the other five and ties its twin at the other
club: 2m + 1 of a top of 10. Over six boards a pair with a club total M has 2M + 6 of 60.
"""
import json
import subprocess
from datetime import UTC, datetime, timedelta

import httpx2 as httpx
from chaos_proxy import ChaosProxy
from collector_proc import BIDWIRE, Collector, faketime_env, keyring, rows
from test_collector_mitchell import TRICKS, UNITS, play_mitchell
from test_collector_units import fixed_port, secret
from waiting import wait_until

SIM = "e2e-sim"


def club(tmp_path, name, hub_url, club_secret, sim=SIM, env=None, session=None):
    """Club `name`'s collector for its heat (in `session`, in a sim of several: a store of its own)."""
    data = tmp_path / (name + (f"-{session}" if session else ""))
    data.mkdir()
    event_file = data / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", f"Club {name} heat", "--movement",
                    "mitchell", "--tables", "3", "--boards-per-round", "2"], check=True, capture_output=True)
    event = json.loads(event_file.read_text())
    event["sim"] = {"hub": hub_url, "id": sim, "club": name, "secret_file": "hub-secret",
                    **({"session": session} if session else {})}
    event_file.write_text(json.dumps(event))
    (data / "hub-secret").write_text(club_secret + "\n")
    ring = keyring(data / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
    return Collector(data, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3"), env=env)


def new_sim(hub, sim, name, released_in, **extra):
    """The organiser makes the sim of boards 1-6, released `released_in` from now, with clubs A and B: their
    secrets."""
    with hub.organiser() as org:
        r = org.post("/api/v1/sims", json={"id": sim, "name": name, "boards": [1, 2, 3, 4, 5, 6],
                                           "release_at": (datetime.now(UTC) + released_in).isoformat(), **extra})
        assert r.status_code == 201, r.text
        return {c: org.post(f"/api/v1/sims/{sim}/clubs", json={"id": c, "name": f"Club {c}"}).json()["secret"]
                for c in "AB"}


def hub_rows(hub, expected, timeout=90, sim=SIM):
    """The hub's results once `expected` of them are in (the clubs upload in the background)."""
    with hub.organiser() as org:
        def got():
            results = org.get(f"/api/v1/sims/{sim}/results").json()
            return results if sum(len(v) for v in results["boards"].values()) >= expected else None
        return wait_until(got, timeout, 0.5, f"{expected} results at the hub")


def test_two_clubs_feed_one_hub_and_an_offline_club_catches_up(tmp_path, hub):
    secrets = new_sim(hub, SIM, "E2E sim", timedelta(days=1))
    down = ChaosProxy(("127.0.0.1", fixed_port()), seed=1, faults={})  # B's link: nothing behind it yet
    down.start()
    a = club(tmp_path, "A", hub.url, secrets["A"])
    b = club(tmp_path, "B", f"http://127.0.0.1:{down.port}", secrets["B"])
    try:
        play_mitchell(a.data, a)
        play_mitchell(b.data, b)
        assert len(rows(b.data, "SELECT * FROM results")) == 18
        field = hub_rows(hub, 18)
        assert {r["club"] for rs in field["boards"].values() for r in rs} == {"A"}  # B is not through yet
        assert rows(b.data, "SELECT count(*) AS n FROM hub_sent")[0]["n"] == 0
        down.retarget(("127.0.0.1", hub.port))  # B's link is back
        field = hub_rows(hub, 36)
        ranking = field["ranking"]
        pct = {(e["club"], e["direction"], e["pair"]): (e["rank"], e["pct"]) for e in ranking}
        for c in "AB":
            assert pct[(c, "NS", "3")] == ("1=", "63.33")  # club total 16: 38 / 60
            assert pct[(c, "NS", "1")] == ("3=", "43.33")  # 10: 26 / 60
            assert pct[(c, "NS", "2")] == ("3=", "43.33")
            assert pct[(c, "EW", "1")] == ("1=", "53.33")  # 13: 32 / 60
            assert pct[(c, "EW", "3")] == ("1=", "53.33")
            assert pct[(c, "EW", "2")] == ("5=", "43.33")
        assert len(ranking) == 12

        # A's scorer corrects board 1 at table 1 (7 tricks to 8): the hub's result is replaced, not added.
        assert TRICKS[1][1] == 7
        [res] = rows(a.data, "SELECT unit, seq FROM results WHERE board = 1 AND table_no = 1")
        r = a.api.post(f"/api/v1/results/{res['unit']}/{res['seq']}/correct",
                       json={"tricks": 8, "reason": "the tricks were entered wrong", "by": "scorer"})
        assert r.status_code == 201, r.text
        def corrected():
            rows_now = hub_rows(hub, 36)["boards"]["1"]
            mine = [x for x in rows_now if x["club"] == "A" and x["ns"] == "1"]
            return (rows_now, mine) if mine[0]["score_ns"] == 120 else None
        board1, mine = wait_until(corrected, 30, 0.5, "club A's correction at the hub")
        assert len(board1) == 6 and mine[0]["score_ns"] == 120 and mine[0]["version"] == 2
        with hub.organiser() as org:
            log = org.get(f"/api/v1/sims/{SIM}/audit").json()
        assert any(e["what"] == "result corrected" and e["by"] == "club A" for e in log)
    finally:
        a.stop()
        b.stop()
        down.stop()


def test_a_club_whose_clock_is_an_hour_off_changes_nothing(tmp_path, hub):
    """Issue 23, faults: club A's collector runs an hour ahead, club B's an hour behind (libfaketime: the whole
    process, its results' times and its link's). The hub reads only its own clock: both clubs' uploads are taken,
    the combined field is the one worked in the test above (both clubs play the same tricks), and although A's
    clock is past the release time (30 minutes from now by the hub's), the hub has released nothing and A's link
    says so."""
    sim = "e2e-clock"
    secrets = new_sim(hub, sim, "Clock sim", timedelta(minutes=30))
    a = club(tmp_path, "A", hub.url, secrets["A"], sim=sim, env=faketime_env("+1h"))
    b = club(tmp_path, "B", hub.url, secrets["B"], sim=sim, env=faketime_env("-1h"))
    try:
        play_mitchell(a.data, a)
        play_mitchell(b.data, b)
        for c, hours in ((a, 1), (b, -1)):
            received = datetime.fromisoformat(rows(c.data, "SELECT max(received) AS t FROM events")[0]["t"])
            assert abs((received - datetime.now(UTC)) - timedelta(hours=hours)) < timedelta(minutes=10)
        field = hub_rows(hub, 36, sim=sim)
        assert {r["club"] for rs in field["boards"].values() for r in rs} == {"A", "B"}
        pct = {(e["club"], e["direction"], e["pair"]): (e["rank"], e["pct"]) for e in field["ranking"]}
        for c in "AB":
            assert pct[(c, "NS", "3")] == ("1=", "63.33")
            assert pct[(c, "NS", "1")] == ("3=", "43.33")
            assert pct[(c, "EW", "1")] == ("1=", "53.33")
            assert pct[(c, "EW", "2")] == ("5=", "43.33")
        link = a.api.get("/api/v1/hub").json()
        assert (link["sim"], link["released"], link["backlog"]) == (sim, False, 0), link
        release = httpx.get(f"{hub.url}/api/v1/sims/{sim}/release").json()
        assert release["released"] is False, release
    finally:
        a.stop()
        b.stop()


def test_a_club_plays_the_sim_in_two_sessions_each_heat_a_store_of_its_own(tmp_path, hub):
    """Issue 39, a sim's sessions: club A plays the hand set in the afternoon and again in the evening, each heat a
    collector store of its own whose uploads are numbered from 1 and name its session under the signature. Club
    B's collector, whose event names no session, is told so by its link and sends nothing. Both heats play the
    same tricks, so the field is the one worked at the top of this file, A's afternoon in B's place."""
    sim = "e2e-sessions"
    secrets = new_sim(hub, sim, "Two-session sim", timedelta(days=1), sessions=["aft", "eve"])
    aft = club(tmp_path, "A", hub.url, secrets["A"], sim=sim, session="aft")
    b = club(tmp_path, "B", hub.url, secrets["B"], sim=sim)
    try:
        play_mitchell(aft.data, aft)
        hub_rows(hub, 18, sim=sim)
        aft.stop()
        eve = club(tmp_path, "A", hub.url, secrets["A"], sim=sim, session="eve")
        try:
            play_mitchell(eve.data, eve)
            field = hub_rows(hub, 36, sim=sim)
            assert rows(eve.data, "SELECT min(number) AS first FROM hub_outbox")[0]["first"] == 1
        finally:
            eve.stop()
        pct = {(e["session"], e["direction"], e["pair"]): (e["rank"], e["pct"]) for e in field["ranking"]}
        for session in ("aft", "eve"):
            assert pct[(session, "NS", "3")] == ("1=", "63.33")  # club total 16: 38 / 60
            assert pct[(session, "NS", "1")] == ("3=", "43.33")
            assert pct[(session, "EW", "1")] == ("1=", "53.33")
            assert pct[(session, "EW", "2")] == ("5=", "43.33")
        assert len(field["ranking"]) == 12 and {e["club"] for e in field["ranking"]} == {"A"}
        link = wait_until(lambda: (lambda x: x if x["error"] else None)(b.api.get("/api/v1/hub").json()), 30, 0.5,
                          "club B's link says what is wrong")
        assert "sim.session" in link["error"] and "aft, eve" in link["error"], link
        assert rows(b.data, "SELECT count(*) AS n FROM hub_outbox")[0]["n"] == 0
    finally:
        aft.stop()
        b.stop()
