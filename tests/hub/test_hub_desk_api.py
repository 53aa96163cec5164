"""The organiser's desk behind its pages (issue 39), against a real hub (two workers, a real PostgreSQL): the sims
listed, a club's secret changed (the old one then opens nothing), a club removed with its results (they leave the
field, and the audit says how many went), a correction whose score the hub works out by Law 77, and each of these
refused on its head without the organiser's credential."""
from datetime import UTC, datetime, timedelta

import httpx2 as httpx
from hubkit import played, post_upload, upload_body
from waiting import wait_until

SIM = "desk-api"


def _field(org):
    def settled():
        p = org.get(f"/api/v1/sims/{SIM}/progress").json()
        return p if p["ranking_changes"] == p["changes"] else None
    return wait_until(settled, 30, 0.1, "the ranking scored from the last change")


def test_the_desks_calls(hub):
    with hub.organiser() as org:
        assert org.post("/api/v1/sims", json={"id": SIM, "name": "Desk", "boards": [1], "release_at": (
            datetime.now(UTC) + timedelta(days=1)).isoformat()}).status_code == 201
        listed = next(s for s in org.get("/api/v1/sims").json() if s["id"] == SIM)
        assert (listed["name"], listed["released"]) == ("Desk", False)
        secrets = {c: org.post(f"/api/v1/sims/{SIM}/clubs", json={"id": c, "name": f"Club {c}"}).json()["secret"]
                   for c in ("A", "B")}
    for club, score, tricks in (("A", 420, 10), ("B", -50, 9)):
        r = post_upload(hub.url, club, secrets[club],
                        upload_body(SIM, club, 1, [played("A", 1, "1", "1", "4S", "N", tricks, score)]))
        assert r.status_code == 200, r.text

    with hub.organiser() as org:
        fresh = org.post(f"/api/v1/sims/{SIM}/clubs/A/secret")
        assert fresh.status_code == 201 and fresh.json()["secret"] != secrets["A"]
        late = upload_body(SIM, "A", 2, [played("A", 1, "1", "1", "4S", "N", 11, 450)])
        assert post_upload(hub.url, "A", secrets["A"], late).status_code == 401  # the old secret: nothing
        assert post_upload(hub.url, "A", fresh.json()["secret"], late).status_code == 200

        # a correction as the desk's form sends it: no score, the hub works it out (4S by N, 9 tricks: -50)
        fix = {"club": "A", "reason": "misentered", "result": {"section": "A", "board": 1, "ns": "1", "ew": "1",
                                                                "contract": "4S", "declarer": "N", "tricks": 9}}
        assert org.post(f"/api/v1/sims/{SIM}/corrections", json=fix).json() == {"version": 3, "changed": True}
        assert [e["pct"] for e in _field(org)["ranking"] if e["direction"] == "NS"] == ["50.00", "50.00"]  # tied

        gone = org.delete(f"/api/v1/sims/{SIM}/clubs/B")
        assert gone.json() == {"id": "B", "results_removed": 1}
        p = _field(org)
        assert [(c["id"]) for c in p["clubs"]] == ["A"] and p["results"] == 1
        assert org.delete(f"/api/v1/sims/{SIM}/clubs/B").status_code == 404
        audit = [(a["what"], a["detail"].get("club"), a["detail"].get("results"))
                 for a in org.get(f"/api/v1/sims/{SIM}/audit").json()]
        assert audit[0] == ("club removed", "B", 1) and ("club secret changed", "A", None) in audit

    # without the organiser's credential each is refused on its head (401), and changes nothing
    for method, path in (("POST", f"/api/v1/sims/{SIM}/clubs/A/secret"), ("DELETE", f"/api/v1/sims/{SIM}/clubs/A"),
                         ("POST", f"/api/v1/sims/{SIM}/held"), ("GET", "/api/v1/sims")):
        assert httpx.request(method, hub.url + path, timeout=10).status_code == 401, (method, path)
    with hub.organiser() as org:
        assert [c["id"] for c in org.get(f"/api/v1/sims/{SIM}/progress").json()["clubs"]] == ["A"]
