"""The director's decisions in the collector (docs/collector.md): adjusted and assigned scores, penalties, the
correction period (Law 79 C) and its override, IMP methods; refusals store nothing; a rebuild gives the same
scores as the live collector.

The 3-table Mitchell (2 boards a round) plays board 1 at table 1 in round 1 (NS 1 v EW 1), table 3 in round
2 (NS 3 v EW 2) and table 2 in round 3 (NS 2 v EW 3). Board 1: dealer N, nobody vulnerable; 1NT by N scores
+90 with 7 tricks, +120 with 8, +150 with 9 (Law 77).
"""
from datetime import datetime, timedelta, timezone

import pytest
from collector_kit import FOUR_SPADES, ApiClient, counts, played, query, sync, write_keyring

from bidwire_host.collector import derive
from bidwire_host.collector.store import Store
from bidwire_host.event import model as ev
from bidwire_host.scoring.model import law77_score
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}
T0 = datetime(2024, 5, 1, 21, 0, tzinfo=timezone.utc)
# Board 1 at each table: (unit, table, round, ns, ew)
B1 = {1: ("T01", 1, 1, 1, 1), 3: ("T03", 3, 2, 3, 2), 2: ("T02", 2, 3, 2, 3)}


def mitchell():
    return ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))


def teams():
    return ev.to_dict(ev.new_event("Match", {"type": "teams"}, boards_per_round=2))


def app(data, method="mp", event=None, tables=TABLES):
    return create_app(data, event=event or mitchell(), tables=tables, method=method)


@pytest.fixture
def client(data):
    with ApiClient(app(data)) as c:
        c.app.state.service.clock = lambda: T0
        yield c


def nt(seq, board, tricks, **assignment):
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
    return played(seq, board, inputs, "1NT", d, tricks, law77_score(board, "1NT", d, tricks), **assignment)


def board1(client, table, tricks, seq=1):
    unit, t, rnd, ns, ew = B1[table]
    # The round must have been reached (its assigns sent) or the result is held (collector/attribution.py).
    assert client.post(f"/api/v1/rounds/{rnd}/start").status_code == 200
    r = sync(client, nt(seq, 1, tricks, section="A", table=t, round=rnd, ns=ns, ew=ew), unit=unit)
    assert r.status_code == 200, r.text


def rows(client, board=1):
    return {r["table"]: r for r in client.get(f"/api/v1/travellers/{board}").json()["rows"]}


def ranking(client):
    return {(r["direction"], r["pair"]): r for r in client.get("/api/v1/ranking").json()["ranking"]}


def test_artificial_adjusted_score_on_the_traveller_and_in_the_ranking(client, data):
    board1(client, 1, 7)  # NS 1 +90
    board1(client, 3, 8)  # NS 3 +120
    # Table 2 could not play board 1 (Law 12 C): NS 2 average plus, EW 3 average minus.
    r = client.post("/api/v1/adjustments", json={"table": 2, "board": 1, "ns": "A+", "ew": "A-",
                                                  "reason": "late arrival", "by": "TD Smith"})
    assert r.status_code == 201, r.text
    action = r.json()["action"]
    assert (action["kind"], action["ns"], action["ew"], action["round"], action["artificial"]) == \
        ("adjust", "2", "3", 3, ["A+", "A-"])
    t = rows(client)
    # Two comparable results: top 2 (2 per result beaten). +120 beats +90: NS 3 2 mp (100 %), NS 1 0 (0 %).
    assert (t[3]["mp_ns"], t[3]["pct_ns"], t[1]["mp_ns"], t[1]["pct_ns"], t[1]["top"]) == (2, 100, 0, 0, 2)
    # The artificial row takes no part in the comparison: 60 % / 40 % of the top of 2 = 1.2 / 0.8 mp.
    assert (t[2]["adjusted"], t[2]["score_ns"], t[2]["pct_ns"], t[2]["pct_ew"]) == ("A+/A-", None, 60, 40)
    assert (t[2]["mp_ns"], t[2]["mp_ew"]) == (1.2, 0.8)
    rk = ranking(client)
    assert (rk["NS", "2"]["pct"], rk["NS", "2"]["display"]) == (60, "2")
    assert (rk["EW", "3"]["pct"], rk["EW", "3"]["display"]) == (40, "2")
    # A result from table 2 arriving afterwards is kept aside: the director's score stands.
    board1(client, 2, 9)
    assert rows(client)[2]["adjusted"] == "A+/A-"
    assert len(query(data, "SELECT * FROM results")) == 3
    # Clearing the adjustment lets the table's own result count: +150 now tops the board (4 mp of 4).
    r = client.post("/api/v1/adjustments", json={"table": 2, "board": 1, "clear": True, "reason": "played late"})
    assert r.status_code == 201
    t = rows(client)
    assert (t[2]["adjusted"], t[2]["score_ns"], t[2]["mp_ns"], t[2]["top"], t[3]["mp_ns"]) == (None, 150, 4, 4, 2)
    got = client.get("/api/v1/adjustments").json()
    assert len(got["actions"]) == 2 and got["in_force"] == []


def test_assigned_score_replaces_the_table_result(client):
    board1(client, 1, 7)  # +90
    board1(client, 3, 8)  # +120
    # Law 12 C1: the director assigns 4S by N making, +420 (board 1, nobody vulnerable), at table 1.
    r = client.post("/api/v1/adjustments", json={"table": 1, "board": 1, "score_ns": 420, "reason": "MI"})
    assert r.status_code == 201, r.text
    t = rows(client)
    # +420 beats +120: NS 1 2 mp (100 %), NS 3 0.
    assert (t[1]["score_ns"], t[1]["adjusted"], t[1]["mp_ns"], t[3]["mp_ns"]) == (420, "assigned 420", 2, 0)
    # Non-balancing (Law 12 C1(c)): NS 1 get +420, EW 1 are scored as if NS made +90: each side matchpointed
    # apart. NS: 420 v 120 -> NS 1 2 mp. EW: EW 1 on +90 (NS view) v EW 2 on +120 -> EW 1 beat it, 2 mp.
    r = client.post("/api/v1/adjustments", json={"table": 1, "board": 1, "score_ns": 420, "score_ew": 90})
    assert r.status_code == 201
    t = rows(client)
    assert (t[1]["adjusted"], t[1]["mp_ns"], t[1]["mp_ew"], t[3]["mp_ns"], t[3]["mp_ew"]) == \
        ("assigned 420/90", 2, 2, 0, 0)


def test_penalty_is_a_ledger_entry_deducted_before_ranking(client):
    board1(client, 1, 7)  # NS 1 0 %
    board1(client, 3, 8)  # NS 3 100 %
    client.post("/api/v1/adjustments", json={"table": 2, "board": 1, "ns": 60, "ew": 40})  # NS 2 60 %
    assert [ranking(client)[("NS", p)]["rank"] for p in "321"] == [1, 2, 3]
    # Law 90: NS 3 lose 50 percentage points (100 - 50 = 50 %), now behind NS 2's 60 %.
    r = client.post("/api/v1/penalties", json={"direction": "NS", "pair": 3, "amount": 50, "unit": "pct",
                                                "reason": "Law 90 B2: slow play", "by": "TD"})
    assert r.status_code == 201, r.text
    rk = ranking(client)
    assert (rk["NS", "3"]["pct"], rk["NS", "3"]["penalty"], rk["NS", "3"]["total"], rk["NS", "3"]["rank"]) == \
        (100, 50, 50, 2)
    assert rk["NS", "2"]["rank"] == 1 and rk["NS", "2"]["penalty"] == 0
    # The board's score is untouched (a procedural penalty never changes the opponents' score either).
    assert rows(client)[3]["mp_ns"] == 2 and rows(client)[3]["mp_ew"] == 0
    # 1 matchpoint off EW 1 (2 of a top of 2 on board 1, 100 %): 1 x 100 / 2 = 50 percentage points -> 50 %.
    r = client.post("/api/v1/penalties", json={"direction": "EW", "pair": "1", "amount": 1, "unit": "mp",
                                                "reason": "Law 90 B8: late"})
    assert r.status_code == 201
    rk = ranking(client)
    assert (rk["EW", "1"]["pct"], rk["EW", "1"]["penalty"], rk["EW", "1"]["total"]) == (100, 50, 50)
    ledger = client.get("/api/v1/penalties").json()["penalties"]
    assert [(p["pair"], p["amount"], p["unit"], p["law"]) for p in ledger] == [("3", "50", "pct", 90),
                                                                               ("1", "1", "mp", 90)]


def test_correction_period_refusal_and_override(client, data):
    board1(client, 1, 7)
    board1(client, 3, 8)
    assert client.get("/api/v1/publish").json()["published_at"] is None
    assert client.post("/api/v1/publish", json={"by": "TD", "override": True}).status_code == 201
    p = client.get("/api/v1/publish").json()
    assert (p["published_at"], p["ends_at"], p["minutes"], p["open"]) == (
        "2024-05-01T21:00:00+00:00", "2024-05-01T21:30:00+00:00", 30, True)
    c = client.app.state.service
    c.clock = lambda: T0 + timedelta(minutes=29)  # within the 30 minutes: accepted
    assert client.post("/api/v1/adjustments", json={"table": 1, "board": 1, "score_ns": 120}).status_code == 201
    c.clock = lambda: T0 + timedelta(minutes=31)  # after: refused, nothing stored
    before = counts(data)
    adj = {"table": 1, "board": 1, "score_ns": 150, "reason": "scoring error"}
    r = client.post("/api/v1/adjustments", json=adj)
    assert r.status_code == 409 and "correction period ended at 2024-05-01T21:30:00+00:00" in r.json()["error"]
    r = client.post("/api/v1/penalties", json={"direction": "NS", "pair": 1, "amount": 5, "reason": "late"})
    assert r.status_code == 409
    r = client.post("/api/v1/adjustments", json={**adj, "override": True})  # an override names the director
    assert r.status_code == 400 and "director" in r.json()["error"]
    assert counts(data) == before
    assert rows(client)[1]["score_ns"] == 120
    r = client.post("/api/v1/adjustments", json={**adj, "override": True, "by": "Chief TD"})
    assert r.status_code == 201 and r.json()["action"]["post_period"] is True
    assert rows(client)[1]["score_ns"] == 150
    p = client.get("/api/v1/publish").json()
    assert p["open"] is False and [(a["by"], a["kind"]) for a in p["post_period"]] == [("Chief TD", "adjust")]
    # Publishing again after the period (the director's API) does not reopen it (Law 79 C, issue 24 item 6): the
    # republication is itself post-period, and a correction after it still needs the override and is marked.
    r = client.post("/api/v1/publish", json={"minutes": 10, "by": "Chief TD", "override": True})
    assert r.status_code == 201 and r.json()["action"]["post_period"] is True
    r = client.post("/api/v1/adjustments", json={**adj, "score_ns": 90})
    assert r.status_code == 409 and "correction period ended at 2024-05-01T21:30:00+00:00" in r.json()["error"]
    r = client.post("/api/v1/adjustments", json={**adj, "score_ns": 90, "override": True, "by": "Chief TD"})
    assert r.status_code == 201 and r.json()["action"]["post_period"] is True


def test_publishing_again_within_the_period_restarts_it(client):
    board1(client, 1, 7)
    assert client.post("/api/v1/publish", json={"override": True, "by": "TD"}).status_code == 201  # until 21:30
    c = client.app.state.service
    c.clock = lambda: T0 + timedelta(minutes=20)
    again = {"minutes": 30, "override": True, "by": "TD"}
    assert client.post("/api/v1/publish", json=again).status_code == 201  # 21:20, until 21:50
    c.clock = lambda: T0 + timedelta(minutes=45)
    r = client.post("/api/v1/adjustments", json={"table": 1, "board": 1, "score_ns": 120})
    assert r.status_code == 201 and r.json()["action"]["post_period"] is False


@pytest.mark.parametrize("path, body, status, words", [
    ("/api/v1/adjustments", {"table": 9, "board": 1, "ns": "A+", "ew": "A-"}, 404, "tables 1-3, not 9"),
    ("/api/v1/adjustments", {"table": 1, "board": 99, "ns": "A+", "ew": "A-"}, 404, "board 99 is not played"),
    ("/api/v1/adjustments", {"table": 1, "board": 1, "ns": 120, "ew": 40}, 400, "0-100"),
    ("/api/v1/adjustments", {"table": 1, "board": 1, "ns": "A++", "ew": "A-"}, 400, "unknown artificial score"),
    ("/api/v1/adjustments", {"table": 1, "board": 1, "ns": "A+"}, 400, "both ns and ew"),
    ("/api/v1/adjustments", {"table": 1, "board": 1, "ns": "A", "ew": "A", "score_ns": 420}, 400, "one of"),
    ("/api/v1/adjustments", {"table": 1, "board": 1, "score_ns": 425}, 400, "multiple of 10"),
    ("/api/v1/adjustments", {"table": 1, "board": 1, "section": "B", "ns": "A", "ew": "A"}, 404, "no section"),
    ("/api/v1/adjustments", {"table": 1, "board": 1, "pct": 60}, 422, "pct"),
    ("/api/v1/penalties", {"direction": "NS", "pair": 7, "amount": 1, "reason": "x"}, 404, "no NS 7"),
    ("/api/v1/penalties", {"pair": 1, "amount": 1, "reason": "x"}, 400, "direction"),
    ("/api/v1/penalties", {"direction": "NS", "pair": 1, "amount": 3, "unit": "imps", "reason": "x"}, 400, "unit"),
    ("/api/v1/penalties", {"direction": "NS", "pair": 1, "amount": -3, "reason": "x"}, 400, "more than 0"),
    ("/api/v1/penalties", {"direction": "NS", "pair": 1, "amount": 3, "reason": " "}, 400, "reason"),
    ("/api/v1/publish", {"minutes": -5}, 400, "minutes"),
])
def test_bad_input_is_refused_with_a_reason_and_nothing_stored(client, data, path, body, status, words):
    board1(client, 1, 7)
    before = counts(data)
    r = client.post(path, json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert counts(data) == before


def test_no_event_loaded(tmp_path):
    write_keyring(tmp_path / "keyring.json")
    with ApiClient(create_app(tmp_path)) as c:
        r = c.post("/api/v1/adjustments", json={"table": 1, "board": 1, "ns": "A", "ew": "A"})
        assert r.status_code == 409 and "no event loaded" in r.json()["error"]
        assert counts(tmp_path)["director_actions"] == 0


def test_director_actions_are_append_only(client, data):
    assert client.post("/api/v1/publish", json={"override": True, "by": "TD"}).status_code == 201
    store = client.app.state.service.store
    with pytest.raises(Exception, match="append-only"):
        store.write(lambda conn: conn.execute("DELETE FROM director_actions"))
    with pytest.raises(Exception, match="append-only"):
        store.write(lambda conn: conn.execute("UPDATE director_actions SET by_whom = 'x'"))


def test_rebuild_and_restart_give_the_live_scores(data):
    with ApiClient(app(data)) as c:
        board1(c, 1, 7)
        board1(c, 3, 8)
        c.post("/api/v1/adjustments", json={"table": 2, "board": 1, "ns": "A", "ew": "A-"})
        c.post("/api/v1/adjustments", json={"table": 1, "board": 1, "score_ns": 420, "score_ew": 90})
        c.post("/api/v1/penalties", json={"direction": "EW", "pair": 2, "amount": "1/4", "unit": "top",
                                          "reason": "Law 90 B3"})
        live = (c.get("/api/v1/travellers/1").json(), c.get("/api/v1/ranking").json())
    assert live[1]["ranking"] and any(r["penalty"] for r in live[1]["ranking"])
    with Store(data) as store:
        store.write(derive.rebuild)
    with ApiClient(create_app(data)) as c:
        assert (c.get("/api/v1/travellers/1").json(), c.get("/api/v1/ranking").json()) == live


def test_cross_imps_and_butler_with_an_artificial_score(data):
    for method, figures in (
        # +90, +120, +150: cross-IMPs: +90 v +120 -1, v +150 -2: -3 / 2 = -1.5; +120: +1 -1 = 0; +150: +1.5.
        ("cross-imps", {1: -1.5, 3: 0, 2: 1.5}),
        # Butler: fewer than 5 results, no trimming: datum (90 + 120 + 150) / 3 = 120; -30 = -1, 0, +30 = +1.
        ("butler", {1: -1, 3: 0, 2: 1}),
    ):
        d = data / method
        d.mkdir()
        write_keyring(d / "keyring.json")
        with ApiClient(app(d, method)) as c:
            for table, tricks in ((1, 7), (3, 8), (2, 9)):
                board1(c, table, tricks)
            t = rows(c)
            assert {k: v["imp_ns"] for k, v in t.items()} == figures
            assert t[1]["mp_ns"] is None and c.get("/api/v1/ranking").json()["method"] == method
            # Law 86 A / 12 C2: average plus is +3 IMPs, average minus -3, not 60/40 %.
            c.post("/api/v1/adjustments", json={"table": 2, "board": 1, "ns": "A+", "ew": "A-"})
            t = rows(c)
            assert (t[2]["imp_ns"], t[2]["imp_ew"]) == (3, -3)
            rk = ranking(c)
            assert (rk["NS", "2"]["imps"], rk["NS", "2"]["mp"], rk["NS", "2"]["rank"]) == (3, None, 1)
            r = c.post("/api/v1/penalties", json={"direction": "NS", "pair": 2, "amount": 4, "reason": "Law 90"})
            assert r.status_code == 201 and ranking(c)["NS", "2"]["total"] == -1


def test_two_table_team_match(data):
    with pytest.raises(Exception, match="team match"):
        create_app(data, event=teams(), tables={"T01": 1, "T02": 2}, method="mp")
    with ApiClient(app(data, "teams", teams(), {"T01": 1, "T02": 2})) as c:
        # Board 1 (nobody vulnerable): team 1 NS at table 1 make 4S, +420; team 2 NS at table 2 make 1NT, +90.
        # Team 1's net: 420 - 90 = +330 -> 8 IMPs (the 320-360 band of Law 78 B's scale).
        r = sync(c, played(1, 1, FOUR_SPADES, section="A", table=1, round=1, ns=1, ew=2), unit="T01")
        assert r.status_code == 200
        assert c.post("/api/v1/rounds/2/start").status_code == 200  # table 2 plays board 1 in round 2
        r = sync(c, nt(1, 1, 7, section="A", table=2, round=2, ns=2, ew=1), unit="T02")
        assert r.status_code == 200
        t = rows(c)
        assert (t[1]["imp_ns"], t[2]["imp_ns"]) == (8, -8)
        rk = {r["pair"]: r for r in c.get("/api/v1/ranking").json()["ranking"]}
        assert (rk["1"]["imps"], rk["1"]["rank"], rk["2"]["imps"], rk["1"]["direction"]) == (8, 1, -8, None)
        # The board was fouled at table 2 (Law 86 A): team 1 (EW there) A+, team 2 (NS there) A-: +3 / -3.
        r = c.post("/api/v1/adjustments", json={"table": 2, "board": 1, "ns": "A-", "ew": "A+"})
        assert r.status_code == 201, r.text
        t = rows(c)
        assert (t[1]["imp_ns"], t[2]["imp_ns"]) == (3, -3)
        r = c.post("/api/v1/penalties", json={"pair": 1, "amount": 1, "reason": "Law 90: slow"})
        assert r.status_code == 201 and {r["pair"]: r["total"] for r in c.get("/api/v1/ranking").json()["ranking"]} \
            == {"1": 2, "2": -3}
