"""The hub's flows against a real PostgreSQL and two real workers: the organiser sets up a sim and registers
clubs, clubs upload signed results, the hub scores the field and keeps it embargoed until the release time.

The combined figures are worked by hand here (Law 78 A, 2 points a pair beaten, 1 a pair tied; Neuberg's
(M + 1) x E / N - 1 for a board played N times against the E of the most-played board), not by the hub's code.
"""
import time
from datetime import UTC, datetime, timedelta

import pytest
from hubkit import HANDS, played, post_upload, upload_body
from waiting import wait_until

SOON = (datetime.now(UTC) + timedelta(days=1)).isoformat()
PAST = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()

# Board 1 (dealer N, none vul) four times, board 2 (dealer E, NS vul) three times: B's second table sat out.
CLUB_A = [played("A", 1, "1", "1", "4S", "N", 10, 420), played("A", 1, "2", "2", "4S", "N", 9, -50),
          played("A", 2, "1", "1", "2H", "S", 8, 110), played("A", 2, "2", "2", "2H", "S", 9, 140)]
CLUB_B = [played("A", 1, "1", "1", "4S", "N", 10, 420), played("A", 1, "2", "2", "3NT", "S", 9, 400),
          played("A", 2, "1", "1", "2H", "S", 8, 110)]


def setup_sim(hub, sim, release_at=SOON, **extra):
    with hub.organiser() as org:
        r = org.post("/api/v1/sims", json={"id": sim, "name": f"Sim {sim}", "release_at": release_at,
                                           "boards": [1, 2], **extra})
        assert r.status_code == 201, r.text
        secrets = {}
        for club in ("A", "B"):
            r = org.post(f"/api/v1/sims/{sim}/clubs", json={"id": club, "name": f"Club {club}"})
            assert r.status_code == 201, r.text
            secrets[club] = r.json()["secret"]
    return secrets


def upload(hub, sim, club, secret, number, results):
    return post_upload(hub.url, club, secret, upload_body(sim, club, number, results))


def pct(ranking, club, pair, direction):
    (e,) = [e for e in ranking if (e["club"], e["pair"], e["direction"]) == (club, pair, direction)]
    return e["rank"], e["pct"]


def test_the_field_is_scored_across_clubs_with_neuberg_and_ties(hub):
    secrets = setup_sim(hub, "flows-score")
    assert upload(hub, "flows-score", "A", secrets["A"], 1, CLUB_A).json() == {"upload": 1, "stored": 4, "held": 0,
                                                                                "again": False}
    assert upload(hub, "flows-score", "B", secrets["B"], 1, CLUB_B).status_code == 200
    with hub.organiser() as org:
        ranking = org.get("/api/v1/sims/flows-score/results").json()["ranking"]
    # NS. Board 1: 420 beats 400 and -50 and ties 420: 5 of 6; 400: 2; -50: 0. Board 2 (N=3, E=4): 140 beats
    # two: (4+1)x4/3-1 = 17/3; each 110 ties one: (1+1)x4/3-1 = 5/3. Tops: 12 for two boards, 6 for one.
    assert pct(ranking, "A", "1", "NS") == ("1=", "55.56")  # (5 + 5/3) / 12
    assert pct(ranking, "B", "1", "NS") == ("1=", "55.56")
    assert pct(ranking, "A", "2", "NS") == ("3", "47.22")  # (0 + 17/3) / 12
    assert pct(ranking, "B", "2", "NS") == ("4", "33.33")  # 2 / 6
    # EW: board 1 420s 1, 400: 4, -50: 6; board 2 140: (0+1)x4/3-1 = 1/3, 110s: (3+1)x4/3-1 = 13/3.
    assert pct(ranking, "B", "2", "EW") == ("1", "66.67")  # 4 / 6
    assert pct(ranking, "A", "2", "EW") == ("2", "52.78")  # (6 + 1/3) / 12
    assert pct(ranking, "A", "1", "EW") == ("3=", "44.44")  # (1 + 13/3) / 12
    assert pct(ranking, "B", "1", "EW") == ("3=", "44.44")


def _progress_with(hub, sim, results):
    """The organiser's progress once its ranking holds `results` results (a worker rescores at most every
    RESCORE_EVERY: read again, at most 100 times)."""
    with hub.organiser() as org:
        for _ in range(100):
            p = org.get(f"/api/v1/sims/{sim}/progress").json()
            if p["results"] == results:
                return p
            time.sleep(0.05)
    raise AssertionError(f"progress never held {results} results: {p}")


def test_progress_counts_each_clubs_results_and_boards(hub):
    secrets = setup_sim(hub, "flows-progress")
    assert upload(hub, "flows-progress", "A", secrets["A"], 1, CLUB_A).status_code == 200
    p = _progress_with(hub, "flows-progress", 4)
    # A: 4 results on boards 1 and 2; B registered, nothing in yet.
    assert p["clubs"] == [{"id": "A", "name": "Club A", "sessions": [], "results": 4, "boards": 2, "started": True},
                          {"id": "B", "name": "Club B", "sessions": [], "results": 0, "boards": 0, "started": False}]
    assert p["clubs_started"] == 1
    assert upload(hub, "flows-progress", "B", secrets["B"], 1, CLUB_B[:1]).status_code == 200
    p = _progress_with(hub, "flows-progress", 5)
    assert [(c["id"], c["results"], c["boards"], c["started"]) for c in p["clubs"]] == [("A", 4, 2, True),
                                                                                        ("B", 1, 1, True)]
    assert p["clubs_started"] == 2


def test_one_winner_ranks_every_pair_in_one_list(hub):
    secrets = setup_sim(hub, "flows-one", winners="one")
    upload(hub, "flows-one", "A", secrets["A"], 1, CLUB_A)
    upload(hub, "flows-one", "B", secrets["B"], 1, CLUB_B)
    with hub.organiser() as org:
        ranking = org.get("/api/v1/sims/flows-one/results").json()["ranking"]
    assert [(e["club"], e["pair"], e["direction"], e["rank"]) for e in ranking][:3] == [
        ("B", "2", "EW", "1"), ("A", "1", "NS", "2="), ("B", "1", "NS", "2=")]
    assert len(ranking) == 8 and {e["field"] for e in ranking} == {"NS+EW"}


def test_an_adjusted_score_is_scored_as_the_club_gave_it(hub):
    secrets = setup_sim(hub, "flows-adj", scoring="mp")
    upload(hub, "flows-adj", "A", secrets["A"], 1, CLUB_A[:2])
    r = upload(hub, "flows-adj", "B", secrets["B"], 1, [
        played("A", 1, "1", "1", "4S", "N", 10, 420),
        {"section": "A", "board": 1, "ns": "2", "ew": "2", "adjusted": {"ns": 60, "ew": 40}}])
    assert r.status_code == 200, r.text
    with hub.organiser() as org:
        rows = org.get("/api/v1/sims/flows-adj/results").json()["boards"]["1"]
    (adj,) = [r for r in rows if r["adjusted"]]
    assert (adj["pct_ns"], adj["pct_ew"]) == (60, 40)  # Law 12 C: the percentages themselves


def test_a_correction_replaces_the_result_and_is_in_the_audit_log(hub):
    secrets = setup_sim(hub, "flows-fix")
    upload(hub, "flows-fix", "A", secrets["A"], 1, CLUB_A)
    r = upload(hub, "flows-fix", "A", secrets["A"], 2, [played("A", 1, "2", "2", "4S", "N", 10, 420)])
    assert r.json()["stored"] == 1
    with hub.organiser() as org:
        rows = org.get("/api/v1/sims/flows-fix/results").json()["boards"]["1"]
        log = org.get("/api/v1/sims/flows-fix/audit").json()
    assert sorted(r["score_ns"] for r in rows) == [420, 420]  # replaced, not added
    assert [r["version"] for r in rows if r["ns"] == "2"] == [2]
    assert any(e["what"] == "result corrected" and e["by"] == "club A" and e["detail"]["board"] == 1 for e in log)


@pytest.mark.parametrize("case", ["forged", "other club", "unknown club", "not in sim", "bad score", "replayed"])
def test_refused_uploads_store_nothing(hub, case):
    sim = f"flows-refuse-{case.replace(' ', '-')}"
    secrets = setup_sim(hub, sim)
    assert upload(hub, sim, "A", secrets["A"], 1, CLUB_A[:1]).status_code == 200
    assert upload(hub, sim, "A", secrets["A"], 2, CLUB_A[1:2]).status_code == 200
    body = upload_body(sim, "A", 3, CLUB_A[2:])
    if case == "forged":
        r = post_upload(hub.url, "A", secrets["B"], body)
        assert r.status_code == 401
    elif case == "other club":  # B signs an upload that says it is A's
        r = post_upload(hub.url, "B", secrets["B"], body)
        assert r.status_code == 403 and "cannot upload for club A" in r.json()["error"]
    elif case == "unknown club":
        r = post_upload(hub.url, "Z", secrets["A"], body)
        assert r.status_code == 401
    elif case == "not in sim":
        r = upload(hub, sim, "A", secrets["A"], 3, CLUB_A[2:] + [played("A", 9, "1", "1", "1NT", "N", 7, 90)])
        assert r.status_code == 422 and r.json()["field"] == "results[2].board"
    elif case == "bad score":
        r = upload(hub, sim, "A", secrets["A"], 3, [played("A", 2, "1", "1", "2H", "S", 8, 140)])
        assert r.status_code == 422 and "Law 77 score 110" in r.text and "results.0" in r.text
    else:  # the first upload sent again, after the second was taken
        r = upload(hub, sim, "A", secrets["A"], 1, CLUB_A[:1])
        assert r.status_code == 409 and r.json()["field"] == "upload"
    with hub.organiser() as org:
        rows = org.get(f"/api/v1/sims/{sim}/results").json()["boards"]
    assert sum(len(v) for v in rows.values()) == 2  # the two uploads taken before, nothing more


def test_a_retry_of_the_last_upload_is_answered_again_and_stored_once(hub):
    secrets = setup_sim(hub, "flows-retry")
    first = upload(hub, "flows-retry", "A", secrets["A"], 1, CLUB_A)
    again = upload(hub, "flows-retry", "A", secrets["A"], 1, CLUB_A)
    assert first.json()["again"] is False and again.json() == {"upload": 1, "stored": 0, "held": 0, "again": True}
    with hub.organiser() as org:
        rows = org.get("/api/v1/sims/flows-retry/results").json()["boards"]
        log = org.get("/api/v1/sims/flows-retry/audit").json()
    assert sum(len(v) for v in rows.values()) == 4
    assert not any(e["what"] == "result corrected" for e in log)


def test_nothing_combined_is_public_before_the_release_time(hub):
    secrets = setup_sim(hub, "flows-embargo", hands_pbn=HANDS)
    upload(hub, "flows-embargo", "A", secrets["A"], 1, CLUB_A)
    upload(hub, "flows-embargo", "B", secrets["B"], 1, CLUB_B)
    with hub.public() as web:
        pages = [web.get(p) for p in ("/", "/sims/flows-embargo", "/sims/flows-embargo/boards/1",
                                      "/sims/flows-embargo/boards/2", "/api/v1/sims/flows-embargo/results")]
        assert pages[-1].status_code == 403
        pages.append(web.get("/sims/flows-embargo/pairs/A/A/NS/1"))
        assert pages[-1].status_code == 403
        for page in pages:
            text = page.text
            for secret in ("55.56", "47.22", "AKQJ", "T9876", "420", "Frequencies", "Traveller", "1520", "Double"):
                assert secret not in text, (page.url, secret)
        assert web.get("/api/v1/sims/flows-embargo/progress").status_code == 401
        assert web.get("/api/v1/sims/flows-embargo/release").json()["released"] is False
    with hub.organiser() as org:  # the organiser moves the release time to now: the results go public
        assert org.patch("/api/v1/sims/flows-embargo", json={"release_at": PAST}).status_code == 200
        assert org.patch("/api/v1/sims/flows-embargo", json={"scoring": "mp"}).status_code == 409  # play started
    with hub.public() as web:  # a worker serves the sim's row as it read it within SIM_TTL (docs/hub.md)
        wait_until(lambda: "55.56" in web.get("/sims/flows-embargo").text, 10, 0.05, "the released ranking")
        board = wait_until(lambda: (t := web.get("/sims/flows-embargo/boards/1").text) and "AKQJ" in t and t, 10, 0.05,
                           "the released board")
        assert "AKQJ" in board and "Frequencies" in board and "420" in board
        # North holds AKQJ AKQ AKQ AKQ: 13 tricks in every strain double dummy; par is 7NT by NS (+1520, none vul)
        assert "Double dummy" in board and "Par: 1520" in board
        card = web.get("/sims/flows-embargo/pairs/A/A/NS/1").text  # A's NS 1: 420 on board 1, 110 on board 2
        assert "55.56" in card and "4S" in card and "2H" in card
        assert web.get("/api/v1/sims/flows-embargo/release").json()["released"] is True


def test_every_worker_serves_the_same_field(hub):
    """Two workers, one database: whichever worker takes a request sees every upload at once (the counter of
    changes, read from the database), and both workers answer (each read on a new connection, which the kernel
    hands to either worker; read until both have answered, at most 200 reads)."""
    secrets = setup_sim(hub, "flows-workers")
    pids, seen = set(), set()
    import httpx2 as httpx
    for n in range(1, 13):
        upload(hub, "flows-workers", "A", secrets["A"], n, [played("A", 1, "1", "1", "1NT", "N", 6 + n % 7,
                                                                   _score_1nt(6 + n % 7))])
        with httpx.Client(base_url=hub.url, headers={"Authorization": "Bearer organiser-test-password"}) as c:
            pids.add(c.get("/healthz").json()["pid"])
            seen.add(c.get("/api/v1/sims/flows-workers/progress").json()["changes"])
    for _ in range(200):
        if len(pids) == 2:
            break
        with httpx.Client(base_url=hub.url) as c:
            pids.add(c.get("/healthz").json()["pid"])
    assert len(pids) == 2 and set(hub.workers_pids()) == pids
    assert len(seen) == 12  # each read, on whichever worker, saw the upload just acknowledged


def _score_1nt(tricks):
    return 90 + 30 * (tricks - 7) if tricks >= 7 else -50 * (7 - tricks)


def test_the_combined_field_exports_as_pbn_and_usebio_that_other_readers_take(hub):
    """endplay (a PBN reader nobody here wrote) reads the hub's PBN: each board's deal from the sim's hand set and
    one ScoreTable holding every club's results; the USEBIO file names every club's pair on the board."""
    import xml.etree.ElementTree as ET

    from endplay.parsers import pbn as endplay_pbn

    secrets = setup_sim(hub, "flows-export", hands_pbn=HANDS)
    upload(hub, "flows-export", "A", secrets["A"], 1, CLUB_A)
    upload(hub, "flows-export", "B", secrets["B"], 1, CLUB_B)
    with hub.public() as web:
        assert web.get("/api/v1/sims/flows-export/export.pbn").status_code == 403  # embargoed
        assert web.get("/api/v1/sims/flows-export/export.xml").status_code == 403
    with hub.organiser() as org:
        text = org.get("/api/v1/sims/flows-export/export.pbn").text
        xml = org.get("/api/v1/sims/flows-export/export.xml").text
    boards = endplay_pbn.loads(text)
    assert [b.board_num for b in boards] == [1] * 4 + [2] * 3  # a game per result, the traveller on the first
    assert boards[0].deal.to_pbn().startswith("N:AKQJ.AKQ.AKQ.AKQ")
    table = boards[0].info["ScoreTable"]
    assert len(table["rows"]) == 4 and len(boards[4].info["ScoreTable"]["rows"]) == 3
    assert "TotalScoreTable" in boards[0].info
    root = ET.fromstring(xml.split("\n", 2)[2])  # past the declaration and the DOCTYPE
    pairs = {el.text for el in root.iter("PAIR_NUMBER")}
    assert {"A-A-1", "A-A-2", "B-A-1", "B-A-2"} <= {p.removesuffix("NS").removesuffix("EW") for p in pairs}
    assert len(pairs) == len(list(root.iter("PAIR_NUMBER")))  # each PAIR_NUMBER once in the event


def test_wrong_organiser_passwords_are_limited_across_workers(hub):
    """Five wrong passwords from one address, whichever worker took them, and the sixth try waits (429), even
    with the right password; the API's bearer password counts the same."""
    import httpx2 as httpx

    def client():  # from 127.0.0.2: the other tests' address (127.0.0.1) is not held up
        return httpx.Client(base_url=hub.url, transport=httpx.HTTPTransport(local_address="127.0.0.2"))

    codes = []
    for n in range(5):
        with client() as c:  # a new connection each time: both workers take some
            if n % 2:
                codes.append(c.post("/organiser/login", data={"password": f"guess{n}"}).status_code)
            else:
                codes.append(c.get("/api/v1/sims/x/progress", headers={"Authorization": f"Bearer g{n}"}).status_code)
    assert codes == [401] * 5
    with client() as c:
        assert c.post("/organiser/login", data={"password": "organiser-test-password"}).status_code == 429
    with hub.public() as c:  # another address is not held up
        assert c.post("/organiser/login", data={"password": "organiser-test-password"}).status_code == 303


def test_after_the_correction_period_only_the_organiser_changes_a_result(hub):
    secrets = setup_sim(hub, "flows-period", correction_minutes=0)
    upload(hub, "flows-period", "A", secrets["A"], 1, CLUB_A)
    with hub.organiser() as org:  # released now, with no correction period: it is over at once
        assert org.patch("/api/v1/sims/flows-period", json={"release_at": PAST}).status_code == 200
    late = upload(hub, "flows-period", "A", secrets["A"], 2, [played("A", 1, "2", "2", "4S", "N", 10, 420)])
    assert late.status_code == 409 and "only the organiser" in late.json()["error"]
    fix = {"club": "A", "reason": "the club's scorer phoned: 10 tricks",
           "result": played("A", 1, "2", "2", "4S", "N", 10, 420)}
    with hub.organiser() as org:
        r = org.post("/api/v1/sims/flows-period/corrections", json=fix)
        assert r.json() == {"version": 2, "changed": True}
        assert org.post("/api/v1/sims/flows-period/corrections", json=fix).json()["changed"] is False
        rows = org.get("/api/v1/sims/flows-period/results").json()["boards"]["1"]
        log = org.get("/api/v1/sims/flows-period/audit").json()
    assert sorted(r["score_ns"] for r in rows) == [420, 420]
    (entry,) = [e for e in log if e["what"] == "result corrected"]
    assert entry["by"] == "organiser" and entry["detail"]["reason"] == fix["reason"]
    with hub.public() as web:  # nobody else may
        assert web.post("/api/v1/sims/flows-period/corrections", json=fix).status_code == 401


def test_the_hub_deals_the_boards_when_the_organiser_asks(hub):
    """Flow 1 without a hand set: the hub deals, keeps the deals and their analysis, and gives the organiser the
    hand set as PBN (read by endplay, a reader nobody here wrote) to send to the clubs; nobody else gets it."""
    from endplay.parsers import pbn as endplay_pbn
    from endplay.types import Player as Seat

    boards = [1, 2, 3, 4]
    hand_sets = []
    with hub.organiser() as org:
        for sim in ("flows-dealt", "flows-dealt-again"):
            r = org.post("/api/v1/sims", json={"id": sim, "name": 'Sim "dealt"', "release_at": SOON,
                                               "boards": boards, "deal": True, "deal_seed": 7})
            assert r.status_code == 201, r.text
            r = org.get(f"/api/v1/sims/{sim}/hands.pbn")
            assert r.status_code == 200
            hand_sets.append(r.text)
        both = org.post("/api/v1/sims", json={"id": "flows-dealt-both", "name": "x", "release_at": SOON,
                                              "boards": boards, "deal": True, "hands_pbn": HANDS})
        assert both.status_code == 422 and "not both" in both.text
    read = endplay_pbn.loads(hand_sets[0])
    assert [int(b.board_num) for b in read] == boards
    deals = [b.deal.to_pbn() for b in read]
    assert len(set(deals)) == 4 and all(len(d.replace(" ", "").replace(".", "")) == 2 + 52 for d in deals)
    assert [b.dealer for b in read] == [Seat.north, Seat.east, Seat.south, Seat.west]  # Law 2, boards 1-4
    assert hand_sets[0] == hand_sets[1]  # the same seed, the same deals
    assert '[Event "Sim \\"dealt\\""]' in hand_sets[0]
    import httpx2 as httpx
    assert httpx.get(f"{hub.url}/api/v1/sims/flows-dealt/hands.pbn", timeout=10).status_code == 401
