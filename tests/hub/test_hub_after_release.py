"""Issue 39, finding 1, against a real hub (two workers, a real PostgreSQL): after the release a club could add
results for a pair the hub never held; they were ranked at once (the new pair first at 87.50 %) and the audit log
had no row. Now a result first seen after the release is held for the organiser: stored and audited, but not in
the ranking, the boards or the files until the organiser admits it (audited, with the reason), or rejects it.
A club's correction of a result the field holds stays the club's to make in the correction period, audited.

Figures worked by hand (Law 78 A, 2 a pair beaten, 1 a pair tied): board 1 played twice, 420 and -50, so NS 1
has 2 of 2 (100 %) and NS 2 0 (0 %); with pair 9's 420 a third time, each 420 beats one and ties one: 3 of 4.
"""
from datetime import UTC, datetime, timedelta

from hubkit import played, post_upload, upload_body
from waiting import wait_until

SIM = "after-release"
LATER = (datetime.now(UTC) + timedelta(days=1)).isoformat()
NOW = datetime.now(UTC).isoformat()


def _published(hub, sim):
    with hub.public() as web:
        r = web.get(f"/api/v1/sims/{sim}/results")
        assert r.status_code == 200, r.text
        return r.json()


def _ns(hub, sim):
    """Club A's NS percentages in the ranking as of every change made so far (the organiser's progress, once
    the ranking it gives is scored from the last change: docs/hub.md "Fresh standings")."""
    with hub.organiser() as org:
        def settled():
            p = org.get(f"/api/v1/sims/{sim}/progress").json()
            return p if p["ranking_changes"] == p["changes"] else None
        p = wait_until(settled, 30, 0.1, "the ranking scored from the last change")
    return {e["pair"]: e["pct"] for e in p["ranking"] if (e["club"], e["direction"]) == ("A", "NS")}


def _audit(org, sim):
    return [(a["what"], a["detail"].get("ns")) for a in org.get(f"/api/v1/sims/{sim}/audit").json()]


def test_a_result_first_seen_after_the_release_is_held_for_the_organiser(hub):
    with hub.organiser() as org:
        assert org.post("/api/v1/sims", json={"id": SIM, "name": "After", "release_at": LATER, "boards": [1, 2],
                                              "correction_minutes": 60}).status_code == 201
        secret = org.post(f"/api/v1/sims/{SIM}/clubs", json={"id": "A", "name": "Club A"}).json()["secret"]
    first = [played("A", 1, "1", "1", "4S", "N", 10, 420), played("A", 1, "2", "2", "4S", "N", 9, -50)]
    r = post_upload(hub.url, "A", secret, upload_body(SIM, "A", 1, first))
    assert r.json() == {"upload": 1, "stored": 2, "held": 0, "again": False}, r.text
    with hub.organiser() as org:  # the organiser releases the sim
        assert org.patch(f"/api/v1/sims/{SIM}", json={"release_at": NOW}).status_code == 200
        audited = len(org.get(f"/api/v1/sims/{SIM}/audit").json())
    assert _ns(hub, SIM) == {"1": "100.00", "2": "0.00"}

    # after the release, club A adds pair 9, whom the hub never held, and a second pair on board 2
    late = [played("A", 1, "9", "9", "4S", "N", 10, 420), played("A", 2, "9", "9", "2H", "S", 8, 110)]
    r = post_upload(hub.url, "A", secret, upload_body(SIM, "A", 2, late))
    assert r.json() == {"upload": 2, "stored": 2, "held": 2, "again": False}, r.text
    assert _ns(hub, SIM) == {"1": "100.00", "2": "0.00"}  # not ranked, and the others' figures unchanged
    assert {b: sorted(r["ns"] for r in rows) for b, rows in _published(hub, SIM)["boards"].items()} == {
        "1": ["1", "2"]}  # nor on a traveller
    with hub.public() as web:
        pbn = web.get(f"/api/v1/sims/{SIM}/export.pbn").text
        assert pbn.count('[Result "10"]') == 1 and '[Board "2"]' not in pbn  # nor in the files: 420 once
    with hub.organiser() as org:
        assert org.get(f"/api/v1/sims/{SIM}/progress").json()["held"] == 2
        held = org.get(f"/api/v1/sims/{SIM}/held").json()
        assert [(h["club"], h["board"], h["ns"], h["score_ns"]) for h in held] == [("A", 1, "9", 420),
                                                                                   ("A", 2, "9", 110)]
        rows = _audit(org, SIM)
        assert len(rows) == audited + 2 and rows[:2] == [("result held: first seen after the release", "9")] * 2

        # the organiser rejects board 2's and admits board 1's, each with the reason
        r = org.post(f"/api/v1/sims/{SIM}/held", json={"club": "A", "admit": False, "reason": "pair 9 did not play",
                                                        "results": [{"section": "A", "board": 2, "ns": "9",
                                                                     "ew": "9"}]})
        assert r.json() == {"rejected": 1}, r.text
        r = org.post(f"/api/v1/sims/{SIM}/held", json={"club": "A", "admit": True, "reason": "late table, checked"})
        assert r.json() == {"admitted": 1}, r.text
        again = org.post(f"/api/v1/sims/{SIM}/held", json={"club": "A", "admit": True, "reason": "twice"})
        assert again.status_code == 409 and again.json()["field"] == "results"
        assert org.get(f"/api/v1/sims/{SIM}/held").json() == []
        decided = [a for a in org.get(f"/api/v1/sims/{SIM}/audit").json() if a["what"].startswith("held result")]
        assert [(a["what"], a["detail"]["board"], a["detail"]["reason"]) for a in decided] == [
            ("held result admitted", 1, "late table, checked"), ("held result rejected", 2, "pair 9 did not play")]
    assert _ns(hub, SIM) == {"1": "75.00", "9": "75.00", "2": "0.00"}

    # a correction of a result the field holds is the club's to make in the correction period: taken, audited
    fix = [played("A", 1, "2", "2", "4S", "N", 10, 420)]
    r = post_upload(hub.url, "A", secret, upload_body(SIM, "A", 3, fix))
    assert r.json() == {"upload": 3, "stored": 1, "held": 0, "again": False}, r.text
    assert _ns(hub, SIM) == {"1": "50.00", "9": "50.00", "2": "50.00"}  # three 420s: each ties two, 2 of 4
    with hub.organiser() as org:
        assert _audit(org, SIM)[0] == ("result corrected", "2")
