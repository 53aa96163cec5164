"""The director's Rounds panel (issue 36, "Rounds from the page"): each section's round, the boards each table has
still to play and why the next round has not started, and the buttons that start it for a table, a section or every
section. Two sections, each a 3-table Mitchell of 2 boards a round (3 rounds); unit T01 at section A table 1."""
import copy
import re

import pytest
from collector_kit import ApiClient, played, sync

from bidwire_host.event import model as ev
from bidwire_host.server import create_app

PASSWORD = "rounds-pw"


@pytest.fixture
def client(data):
    e = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    b = copy.deepcopy(e["sessions"][0]["sections"][0])
    b["name"] = "B"
    e["sessions"][0]["sections"].append(b)
    with ApiClient(create_app(data, event=e, tables={"T01": ["A", 1]}, director_password=PASSWORD)) as c:
        token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
        assert c.post("/login", data={"password": PASSWORD, "csrf": token}, follow_redirects=False).status_code == 303
        yield c


def panel(client):
    page = client.get("/director").text
    return page, " ".join(re.sub(r"<[^>]+>", " ", re.search(r'<div id="rounds">(.*?)</section>', page,
                                                             re.S).group(1)).split())


def test_the_panel_says_what_each_table_has_left_and_starts_every_section(client):
    sync(client, played(1, 1, ["N:1N", "E:P", "S:P", "W:P"], "1NT", "N", 7, 90, section="A", table=1, round=1,
                        ns=1, ew=1))
    page, said = panel(client)
    assert "Section A: Round 1 of 3" in said and "Section B: Round 1 of 3" in said, said
    assert "Round 2 has not started: section A table 1: board 2; section A table 2: boards 3, 4" in said, said
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    r = client.post("/director/rounds", data={"csrf": csrf, "all": "1"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    _, said = panel(client)
    assert "Section A: Round 2 of 3" in said and "Section B: Round 2 of 3" in said, said
    r = client.post("/director/rounds", data={"all": "1"}, follow_redirects=False)  # no CSRF token: refused
    assert r.status_code == 403
