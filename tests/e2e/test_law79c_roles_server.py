"""Law 79 C by role on the real server (issue 24, item 6; docs/scorer.md, docs/collector.md): after the correction
period only the director's session records a correction and only the director publishes again; the scorer's
override tick and the scorer's republication are refused (403) and store nothing; a republication after the period
does not reopen it, so the director's correction after it is still marked post-period."""
import re
import subprocess
import sys
from pathlib import Path

import httpx2 as httpx
import pytest
from collector_proc import BIDWIRE, Collector, keyring, rows

sys.path.insert(0, str(Path(__file__).parents[1] / "host"))
from collector_kit import SECRETS, played, sync  # noqa: E402

DIRECTOR_PW = "director's own, long enough"
SCORER_PW = "scorer's own, long enough too"


@pytest.fixture
def collector(tmp_path, monkeypatch):
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", DIRECTOR_PW)
    monkeypatch.setenv("BIDWIRE_SCORER_PASSWORD", SCORER_PW)
    event = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event), "--name", "Club pairs", "--movement", "mitchell",
                    "--tables", "3", "--boards-per-round", "2"], check=True, capture_output=True)
    data = tmp_path / "data"
    data.mkdir()
    c = Collector(data, keyring(data / "keyring.json", SECRETS), 0,
                  extra=("--event", str(event), "--tables", "T01=1,T02=2,T03=3"))
    yield c
    c.stop()


def board_played(c):
    """Table 1 plays its first board of round 1 as its assign says (4S by N making, +420)."""
    [assign] = [x["command"] for x in c.api.get("/api/v1/units/T01/commands").json()["commands"]
                if x["command"]["type"] == "assign"]
    with httpx.Client(base_url=c.url, timeout=10) as client:
        r = sync(client, played(1, board=assign["boards"][0], section=assign["section"], table=assign["table"],
                                round=assign["round"], ns=assign["ns"], ew=assign["ew"], event=assign["event"]))
        assert r.status_code == 200, r.text
    # every other table and board of the movement done with an adjusted score (the director's API), so that the
    # session is complete and the scorer may publish (an early publication is the director's alone)
    for table in (1, 2, 3):
        for board in range(1, 7):
            if (table, board) != (assign["table"], assign["boards"][0]):
                r = c.api.post("/api/v1/adjustments", json={"table": table, "board": board, "ns": "A", "ew": "A",
                                                             "reason": "not played"})
                assert r.status_code in (201, 404), r.text  # 404: the movement does not give that board there
    return assign["boards"][0]


def logged_in(url, password):
    """A browser-like client logged in with `password`, and the CSRF token of its /scorer page."""
    client = httpx.Client(base_url=url, timeout=10)
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"password": password, "csrf": token}).status_code == 303
    page = client.get("/scorer")
    assert page.status_code == 200
    return client, re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)


def correction(csrf, board, override=False):
    # 4S by N with nine tricks, one down: the result as it really was
    form = {"csrf": csrf, "table": "1", "board": str(board), "contract": "4S", "declarer": "N", "tricks": "9",
            "reason": "tricks miscounted"}
    return dict(form, override="on") if override else form


def actions(c):
    return [(a["kind"], a["by_whom"], a["post_period"]) for a in
            rows(c.data, "SELECT kind, by_whom, post_period FROM director_actions ORDER BY id")]


def test_after_the_period_only_the_director_corrects_and_republishes(collector):
    board = board_played(collector)
    scorer, scorer_csrf = logged_in(collector.url, SCORER_PW)
    try:
        # a 0-minute period: it has ended by the next request
        r = scorer.post("/scorer/publish", data={"csrf": scorer_csrf, "minutes": "0"}, follow_redirects=False)
        assert r.status_code == 303
        # the attack as it was made: the scorer ticks the override
        r = scorer.post("/scorer/correct", data=correction(scorer_csrf, board, override=True), follow_redirects=False)
        assert r.status_code == 403
        assert "only the director can correct the scores now, from the director&#39;s login" in r.text or \
            "only the director can correct the scores now, from the director's login" in r.text, r.text
        assert 'id="cor-override"' not in r.text  # no override offered to the scorer
        # or the scorer publishes again to reopen the period
        r = scorer.post("/scorer/publish", data={"csrf": scorer_csrf, "minutes": "30"}, follow_redirects=False)
        assert r.status_code == 403 and "only the director can publish again" in r.text, r.text
        r = scorer.post("/scorer/correct", data=correction(scorer_csrf, board), follow_redirects=False)
        assert r.status_code == 403
    finally:
        scorer.close()
    assert actions(collector)[-1:] == [("publish", "scorer", 0)]  # nothing the scorer tried was stored

    director, director_csrf = logged_in(collector.url, DIRECTOR_PW)
    try:
        r = director.post("/scorer/publish", data={"csrf": director_csrf, "minutes": "30"}, follow_redirects=False)
        assert r.status_code == 303
        # a republication after the period does not reopen it: without the override, refused (409) with the reason
        r = director.post("/scorer/correct", data=correction(director_csrf, board), follow_redirects=False)
        assert r.status_code == 409 and "correction period ended" in r.text and "Law 79 C" in r.text
        assert 'id="cor-override"' in r.text
        r = director.post("/scorer/correct", data=correction(director_csrf, board, override=True),
                          follow_redirects=False)
        assert r.status_code == 303
    finally:
        director.close()
    assert actions(collector)[-3:] == [("publish", "scorer", 0), ("publish", "director", 1),
                                       ("correct", "director", 1)]
    [row] = [t for t in collector.api.get(f"/api/v1/travellers/{board}").json()["rows"] if t["table"] == 1]
    assert (row["contract"], row["tricks"], row["score_ns"]) == ("4S", 9, -50)  # one down, not vulnerable
