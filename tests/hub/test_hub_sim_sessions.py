"""Issue 39: a sim played in several sessions (one hand set, one field), against a real PostgreSQL and real hub
workers. The organiser names the sessions; every upload names its own under the signature and is numbered in it
apart (each heat is a collector store of its own, counting from 1); a pair is its club, session, section and
number, so that NS 1 of a club's afternoon and NS 1 of its evening are two pairs of one field.

The figures are worked by hand (Law 78 A: 2 a result beaten, 1 a result tied, top 2(n - 1)), not by the hub's code.
"""
from datetime import UTC, datetime, timedelta

import httpx2 as httpx
import psycopg
import pytest
from hubkit import played, post_upload, upload_body
from psycopg.conninfo import make_conninfo

from bidwire_host import signing
from bidwire_host.hub import db, storage
from bidwire_host.hub.inputs import Upload

SOON = (datetime.now(UTC) + timedelta(days=1)).isoformat()
SIM = "two-sessions"

# Board 1 (none vul) three times across the field: C1's afternoon 4S making 10 (420), C1's evening 4S making 11
# (450), C2's evening 3NT by S making 9 (400). NS: 450 beats two (4 of 4), 420 one (2), 400 none (0).
AFT = [played("A", 1, "1", "1", "4S", "N", 10, 420, ns_names="Ann & Bob")]
EVE = [played("A", 1, "1", "1", "4S", "N", 11, 450, ns_names="Cat & Dan")]
C2_EVE = [played("A", 1, "1", "1", "3NT", "S", 9, 400)]

HEAT = """<?xml version="1.0" encoding="UTF-8"?>
<USEBIO Version="1.2"><EVENT EVENT_TYPE="PAIRS">
<BOARD><BOARD_NUMBER>2</BOARD_NUMBER>
<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER>
<CONTRACT>2H</CONTRACT><PLAYED_BY>S</PLAYED_BY><TRICKS>8</TRICKS><SCORE>110</SCORE></TRAVELLER_LINE>
</BOARD></EVENT></USEBIO>
"""


def new_sim(hub, sim, **extra):
    with hub.organiser() as org:
        r = org.post("/api/v1/sims", json={"id": sim, "name": f"Sim {sim}", "release_at": SOON, "boards": [1, 2],
                                           "scoring": "mp", **extra})
        assert r.status_code == 201, r.text
        return {c: org.post(f"/api/v1/sims/{sim}/clubs", json={"id": c, "name": f"Club {c}"}).json()["secret"]
                for c in ("C1", "C2")}


def upload(hub, sim, club, secret, number, results, session=None):
    body = upload_body(sim, club, number, results)
    if session is not None:
        body = body.replace(b'"upload"', f'"session": "{session}", "upload"'.encode(), 1)
    return post_upload(hub.url, club, secret, body)


def results(hub, sim):
    with hub.organiser() as org:
        return org.get(f"/api/v1/sims/{sim}/results").json()


def test_each_session_counts_its_uploads_and_its_pairs_apart_in_one_field(hub):
    secrets = new_sim(hub, SIM, sessions=["aft", "eve"])
    assert upload(hub, SIM, "C1", secrets["C1"], 1, AFT, "aft").json()["stored"] == 1
    # the evening's store counts from 1 again: not a replay of the afternoon's upload 1
    assert upload(hub, SIM, "C1", secrets["C1"], 1, EVE, "eve").json() == {"upload": 1, "stored": 1, "held": 0,
                                                                           "again": False}
    assert upload(hub, SIM, "C2", secrets["C2"], 1, C2_EVE, "eve").status_code == 200
    field = results(hub, SIM)
    rows = {(r["club"], r["session"]): (r["mp_ns"], r["top"]) for r in field["boards"]["1"]}
    assert rows == {("C1", "aft"): (2, 4), ("C1", "eve"): (4, 4), ("C2", "eve"): (0, 4)}
    ns = {(e["club"], e["session"], e["pair"]): (e["rank"], e["pct"], e["names"]) for e in field["ranking"]
          if e["direction"] == "NS"}
    assert ns == {("C1", "eve", "1"): ("1", "100.00", "Cat & Dan"), ("C1", "aft", "1"): ("2", "50.00", "Ann & Bob"),
                  ("C2", "eve", "1"): ("3", "0.00", "")}
    with hub.organiser() as org:
        progress = org.get(f"/api/v1/sims/{SIM}/progress").json()
        assert progress["sessions"] == ["aft", "eve"]
        assert {c["id"]: c["sessions"] for c in progress["clubs"]} == {"C1": ["aft", "eve"], "C2": ["eve"]}
        card = org.get(f"/sims/{SIM}/pairs/C1/A/NS/1", params={"session": "aft"})
        assert card.status_code == 200 and "session aft" in card.text and "Ann &amp; Bob" in card.text
        assert org.get(f"/sims/{SIM}/pairs/C1/A/NS/1").status_code == 404  # which session's pair 1?
        pbn = org.get(f"/api/v1/sims/{SIM}/export.pbn").text
    assert "C1-aft-A-1" in pbn and "C1-eve-A-1" in pbn and "C2-eve-A-1" in pbn


def test_an_upload_names_a_session_of_the_sim_or_none_in_a_sim_of_one(hub):
    secrets = new_sim(hub, "sessions-named", sessions=["aft", "eve"])
    unnamed = upload(hub, "sessions-named", "C1", secrets["C1"], 1, AFT)
    assert unnamed.status_code == 422 and unnamed.json()["field"] == "session", unnamed.text
    assert "aft, eve" in unnamed.json()["error"]
    other = upload(hub, "sessions-named", "C1", secrets["C1"], 1, AFT, "night")
    assert other.status_code == 422 and other.json()["field"] == "session"
    hyphen = upload(hub, "sessions-named", "C1", secrets["C1"], 1, AFT, "a-b")
    assert hyphen.status_code == 422 and "session" in hyphen.text
    one = new_sim(hub, "sessions-one")
    named = upload(hub, "sessions-one", "C1", one["C1"], 1, AFT, "aft")
    assert named.status_code == 422 and named.json()["field"] == "session"
    assert results(hub, "sessions-named")["ranking"] == [] and results(hub, "sessions-one")["ranking"] == []
    with hub.organiser() as org:
        twice = org.post("/api/v1/sims", json={"id": "sessions-twice", "name": "x", "release_at": SOON,
                                               "boards": [1], "sessions": ["aft", "aft"]})
    assert twice.status_code == 422 and "sessions" in twice.text


def test_the_session_is_under_the_signature_and_numbered_apart(hub):
    """Finding 2 with sessions: a captured upload sent as another session, or a USEBIO heat signed for one
    session sent as another, is refused; an old upload of a session sent again after a later one is a replay."""
    secrets = new_sim(hub, "sessions-signed", sessions=["aft", "eve"])
    key = bytes.fromhex(secrets["C1"])
    aft1 = upload_body("sessions-signed", "C1", 1, AFT).replace(b'"upload"', b'"session": "aft", "upload"', 1)
    assert post_upload(hub.url, "C1", secrets["C1"], aft1).status_code == 200
    moved = aft1.replace(b'"aft"', b'"eve"')
    r = post_upload(hub.url, "C1", secrets["C1"], moved, signature=signing.sign(aft1, key))
    assert r.status_code == 401 and r.json()["field"] == "signature"
    fixed = [played("A", 1, "1", "1", "4S", "N", 9, -50)]
    assert upload(hub, "sessions-signed", "C1", secrets["C1"], 2, fixed, "aft").status_code == 200
    replay = post_upload(hub.url, "C1", secrets["C1"], aft1)
    assert replay.status_code == 409 and "session aft" in replay.json()["error"]
    data = HEAT.encode()

    def heat(session, signed_for, number):
        sig = signing.sign(signing.heat_message("sessions-signed", signed_for, None, number, data), key)
        return httpx.post(f"{hub.url}/api/v1/sims/sessions-signed/usebio", content=data, timeout=30,
                          params={"session": session},
                          headers={signing.HEADER_CLUB: "C1", signing.HEADER_UPLOAD: str(number),
                                   signing.HEADER_SIGNATURE: sig, "Content-Type": "application/xml"})
    assert heat("eve", "aft", 1).status_code == 401  # signed for the afternoon
    assert heat("eve", "eve", 1).json()["stored"] == 1  # the evening's first
    field = results(hub, "sessions-signed")
    assert {(r["session"], r["score_ns"]) for rs in field["boards"].values() for r in rs} == {("aft", -50),
                                                                                              ("eve", 110)}


def test_the_organiser_corrects_and_decides_a_result_of_one_session(hub):
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    secrets = new_sim(hub, "sessions-desk", sessions=["aft", "eve"], release_at=past)
    assert upload(hub, "sessions-desk", "C1", secrets["C1"], 1, AFT, "eve").json()["held"] == 1  # after release
    with hub.organiser() as org:
        held = org.get("/api/v1/sims/sessions-desk/held").json()
        assert [(x["session"], x["board"]) for x in held] == [("eve", 1)]
        wrong = org.post("/api/v1/sims/sessions-desk/held", json={
            "club": "C1", "admit": True, "reason": "late but played",
            "results": [{"session": "aft", "section": "A", "board": 1, "ns": "1", "ew": "1"}]})
        assert wrong.status_code == 409  # nothing of the afternoon is held
        ok = org.post("/api/v1/sims/sessions-desk/held", json={
            "club": "C1", "admit": True, "reason": "late but played",
            "results": [{"session": "eve", "section": "A", "board": 1, "ns": "1", "ew": "1"}]})
        assert ok.json() == {"admitted": 1}
        result = {"section": "A", "board": 1, "ns": "1", "ew": "1", "contract": "4S", "declarer": "N", "tricks": 9}
        unnamed = org.post("/api/v1/sims/sessions-desk/corrections", json={"club": "C1", "result": result,
                                                                           "reason": "scorer's slip"})
        assert unnamed.status_code == 422 and unnamed.json()["field"] == "session"
        fixed = org.post("/api/v1/sims/sessions-desk/corrections", json={"club": "C1", "session": "eve",
                                                                         "result": result, "reason": "scorer's slip"})
        assert fixed.json() == {"version": 2, "changed": True}
        audit = org.get("/api/v1/sims/sessions-desk/audit").json()
    assert {(a["what"], a["detail"].get("session")) for a in audit if a["what"] != "sim created"} >= {
        ("held result admitted", "eve"), ("result corrected", "eve")}
    (row,) = results(hub, "sessions-desk")["boards"]["1"]
    assert (row["session"], row["score_ns"]) == ("eve", -50)


def test_a_hub_of_before_sessions_keeps_each_clubs_upload_numbers(pg):
    """Migration 0013 on a hub that was running: the clubs' last upload numbers move to their session '' (so an
    old upload replayed after the upgrade is still refused), and the results keep their keys, of session ''."""
    with psycopg.connect(pg.dsn, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS before_sessions")
        admin.execute("CREATE DATABASE before_sessions")
    dsn = make_conninfo(pg.dsn, dbname="before_sessions")
    with psycopg.connect(dsn) as conn:  # the schema as it was: migrations 1-12, a club that took uploads 1-5
        conn.execute("CREATE TABLE hub_schema (version integer PRIMARY KEY, name text NOT NULL, "
                     "applied_at timestamptz NOT NULL DEFAULT now())")
        for m in db.migrations():
            if m.version <= 12:
                conn.execute(m.sql)
                conn.execute("INSERT INTO hub_schema (version, name) VALUES (%s, %s)", (m.version, m.name))
        conn.execute("INSERT INTO sims (id, name, release_at, scoring, winners, boards) VALUES "
                     "('old', 'Old', now() + interval '1 day', 'mp', 'two', '{1}')")
        conn.execute("INSERT INTO clubs (sim_id, club_id, name, secret, last_upload, last_digest) VALUES "
                     "('old', 'C1', 'Club', '\\x00', 5, '\\x01')")
        conn.execute("INSERT INTO results (sim_id, club_id, section, board, ns, ew, contract, declarer, tricks, "
                     "score_ns, upload) VALUES ('old', 'C1', 'A', 1, '1', '1', '4S', 'N', 10, 420, 5)")
    assert db.migrate(dsn) == [13]
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT session, last_upload, last_digest FROM club_sessions").fetchall() == [
            ("", 5, b"\x01")]
        old = Upload.model_validate({"sim": "old", "club": "C1", "upload": 5, "results": AFT})
        with pytest.raises(storage.Refused) as refused:
            storage.store_upload(conn, old, b"\x02")
        assert (refused.value.status, refused.value.field) == (409, "upload")
        conn.rollback()
        assert storage.store_upload(conn, Upload.model_validate({**old.model_dump(), "upload": 6}), b"\x03")[:2] == (
            "stored", 1)
        assert [(r["session"], r["score_ns"]) for r in storage.results(conn, "old")] == [("", 420)]
