"""The director's desk against the loaded event (issue 26): a table is late only while it still has a board of
its round to play; the page heads with the event and links the scorer's page; alerts name the table and say when
they closed; a star in a diagram is explained in words; a finished live card gives the result; every time is the
club's (the event's time zone), named once."""
import json
import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from collector_kit import ApiClient, board_start, played, query, sync

from bidwire_host.dashboard import queries
from bidwire_host.dashboard.fragments import templates
from bidwire_host.event import model as ev
from bidwire_host.scoring.model import law77_score
from bidwire_host.server import create_app

TABLES = {"T01": 1, "T02": 2, "T03": 3}


ZONE = "Pacific/Auckland"  # 13 hours ahead of UTC in December: no chance of agreeing with UTC or a host's clock
PASSWORD = "desk-pw"


def mitchell():
    data = ev.to_dict(ev.new_event("Tuesday Pairs", {"type": "mitchell", "tables": 3, "rounds": 1},
                                   boards_per_round=2, date="2026-12-01"))
    data["time_zone"] = ZONE
    return data


@pytest.fixture
def client(data):
    with ApiClient(create_app(data, event=mitchell(), tables=TABLES, director_password=PASSWORD)) as c:
        yield c


def log_in(c):
    token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
    assert c.post("/login", data={"password": PASSWORD, "csrf": token}, follow_redirects=False).status_code == 303


def text(html):
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def club_time(iso, fmt="%H:%M:%S"):
    """A stored UTC instant on the club's clock, as the test reads it (zoneinfo, not the collector's code)."""
    return datetime.fromisoformat(iso).astimezone(ZoneInfo(ZONE)).strftime(fmt)


def assign(data, unit):
    [a] = [json.loads(r["body"]) for r in query(data, "SELECT body FROM commands WHERE unit = ? AND type = 'assign'",
                                                unit)]
    return a


def nt(seq, board, tricks, a):
    d = "NESW"[(board - 1) % 4]
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
    return played(seq, board, inputs, "1NT", d, tricks, law77_score(board, "1NT", d, tricks), section=a["section"],
                  table=a["table"], round=a["round"], ns=a["ns"], ew=a["ew"])


def test_a_table_that_has_played_its_boards_is_never_late(client, data, monkeypatch):
    """Issue 26 item 1: after the session's last board every table turned "late: over 15 min in the round"."""
    monkeypatch.setattr(queries, "ROUND_MINUTES", -1)  # every round is over its budget, whatever the clock says
    one, two = assign(data, "T01"), assign(data, "T02")
    for seq, board in ((1, one["boards"][0]), (5, one["boards"][1])):
        assert sync(client, nt(seq, board, 7, one), "T01").status_code == 200
    assert sync(client, nt(1, two["boards"][0], 7, two), "T02").status_code == 200  # its second board to come
    rows = {r["unit"]: r for r in queries.grid(client.app.state.service)}
    assert rows["T01"]["phase"] == "done" and rows["T01"]["late"] is None
    assert rows["T02"]["phase"] == "done" and "over" in rows["T02"]["late"]


def test_the_director_page_heads_with_the_event_and_links_the_scorer(client):
    """Issue 26 item 8: no event name or date in the director's header, no link to the scorer's page."""
    log_in(client)
    page = client.get("/director").text
    header = text(page[page.index("<header"):page.index("</header>")])
    assert "Tuesday Pairs · director" in header and "Session 1 · Tue 1 Dec 2026" in header
    assert re.search(r'<a href="/scorer">Scorer\'s page</a>', page)


def test_an_alert_names_the_table_and_a_closed_one_says_when(client, data):
    """Issue 26 item 8: alerts said T03, not the table; closed alerts had no time."""
    log_in(client)
    a = assign(data, "T03")
    start = board_start(1, a["boards"][0], section="A", table=a["table"], round=1, ns=a["ns"], ew=a["ew"])
    call = {"seq": 2, "type": "td_call", "board": a["boards"][0], "seat": "S", "t": 1}
    assert sync(client, [start, call], "T03").status_code == 200
    page = client.get("/director").text
    [h3] = re.findall(r'<article class="alert open".*?<h3>(.*?)</h3>', page, re.S)
    assert text(h3).startswith(f"Table 3 · board {a['boards'][0]} · director called")
    assert sync(client, [{"seq": 3, "type": "td_end", "board": a["boards"][0], "seat": "S", "t": 2}],
                "T03").status_code == 200
    [received] = query(data, "SELECT received FROM events WHERE unit = 'T03' AND seq = 3")
    closed = text(client.get("/director?state=closed").text)
    assert f"closed at {club_time(received['received'])}" in closed


def test_a_starred_call_is_explained_in_words():
    """Issue 26 item 8: the * on an irregular call was explained only by a tooltip, which a tablet cannot show."""
    made = [{"seat": "S", "call": "1N", "text": "1N", "irregular": None},
            {"seat": "N", "call": "2C", "text": "2♣", "irregular": "out_of_rotation"}]
    html = templates.env.from_string('{% from "_auction.html" import diagram %}{{ diagram(a, "x") }}').render(
        a=queries.diagram("S", made))
    assert "* 2♣ by N: out of rotation" in text(html)
    assert "<abbr" not in html


def test_a_call_out_of_rotation_before_the_dealer_opens_the_first_row():
    """Issue 26 item 8: with dealer S, West's call out of rotation left an empty, squashed first row."""
    d = queries.diagram("S", [{"seat": "W", "call": "1S", "text": "1♠", "irregular": "out_of_rotation"}])
    assert [[c and c["call"] for c in row] for row in d["rows"]] == [["1S", None, None, None]]


def test_a_finished_live_card_gives_the_result(client, data):
    """Issue 26 item 8: live auction cards said "done" without the result."""
    log_in(client)
    a = assign(data, "T01")
    board = a["boards"][0]  # 1NT by the dealer, one down
    assert sync(client, nt(1, board, 6, a), "T01").status_code == 200
    [card] = re.findall(r'<article class="live-table".*?</article>', client.get("/director/live").text, re.S)
    [score] = query(data, "SELECT score_ns FROM results WHERE unit = 'T01'")
    assert score["score_ns"] < 0
    assert f"done · 1NT by {'NESW'[(board - 1) % 4]} \u22121 · NS {score['score_ns']:+d}" in text(card)


def test_every_time_on_the_director_page_is_the_club_s_named_once(client, data):
    """Issue 26 item 9: times were shown in UTC, in ISO and on the browser's 12-hour clock; now the event's zone."""
    log_in(client)
    a = assign(data, "T01")
    assert sync(client, nt(1, a["boards"][0], 7, a), "T01").status_code == 200
    r = client.post("/api/v1/adjustments", json={"section": "A", "table": 1, "board": a["boards"][0], "ns": "A+",
                                                 "ew": "A-", "reason": "slow play"})
    assert r.status_code == 201, r.text
    page = client.get("/director").text
    [seen] = query(data, "SELECT last_seen FROM unit_sync WHERE unit = 'T01'")
    row = re.search(r'<tr id="u-T01".*?</tr>', page, re.S).group(0)
    assert club_time(seen["last_seen"]) in text(row)
    [action] = query(data, "SELECT at FROM director_actions")
    audit = re.search(r'<table id="audit-table".*?</table>', page, re.S).group(0)
    assert club_time(action["at"], "%H:%M") in text(audit) and action["at"] not in text(audit)
    assert text(page).count(f"times in {ZONE}") == 1 and "UTC" not in text(page)


def test_a_time_zone_that_does_not_exist_is_refused():
    data = mitchell()
    data["time_zone"] = "Europe/Atlantis"
    with pytest.raises(ev.EventError, match="time_zone: 'Europe/Atlantis' is not a time zone name"):
        ev.from_dict(data)
