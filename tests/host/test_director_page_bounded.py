"""The director's page stays light whatever one unit has stored (issue 12 item 6): 20,000 calls and 150
irregularities on one board (a store from before calls were bounded, or a unit gone wrong) give a page of a few
hundred kilobytes, not hundreds of megabytes: the open queue is paged (50), each alert's diagram shows the last 48
calls with a link to the whole board, and the live stream's first message is as light."""
import json

import pytest
from collector_kit import ApiClient

from bidwire_host.collector import derive
from bidwire_host.server import create_app

CALLS, IRREGULARITIES = 20_000, 150


def _flood(conn):
    received = "2026-12-01T20:00:00.000+00:00"
    events = [{"seq": 1, "type": "board_start", "board": 1, "dealer": "N", "vul": "None", "mode": "record", "t": 1}]
    seq = 2
    every = CALLS // IRREGULARITIES + 1  # 134: irregular calls 0, 134, ..., 19966 (150 of them)
    for i in range(CALLS):
        seat = "NESW"[i % 4]
        events.append({"seq": seq, "type": "call", "board": 1, "input": f"{seat}:1S", "seat": seat,
                       "verdict": "out_of_rotation" if i % every == 0 else "legal", "law": 31, "alert": False, "t": 1})
        seq += 1
        if i % every == 0:
            events.append({"seq": seq, "type": "irregularity", "board": 1, "kind": "out_of_rotation", "law": 31,
                           "at": i, "offender": seat, "call": "1S", "entitled": "NESW"[(i + 1) % 4],
                           "options": ["reject"], "t": 1})
            seq += 1
    for e in events:
        conn.execute("INSERT INTO events (unit, seq, type, board, boot, received, body) VALUES (?, ?, ?, ?, 1, ?, ?)",
                     ("T01", e["seq"], e["type"], e.get("board"), received, json.dumps(e)))
        derive.apply(conn, "T01", e["seq"], e, received)


@pytest.fixture
def flooded(data, monkeypatch):
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", "pw")
    with derive.open_store(data) as store:
        store.write(_flood, timeout=120)
        assert store.reader().execute("SELECT count(*) FROM irregularities").fetchone()[0] == IRREGULARITIES
    with ApiClient(create_app(data, director_password="pw")) as c:
        import re
        token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
        assert c.post("/login", data={"password": "pw", "csrf": token}, follow_redirects=False).status_code == 303
        yield c


def test_the_directors_page_stays_small_with_20000_calls_and_150_irregularities_on_a_board(flooded):
    r = flooded.get("/director")
    assert r.status_code == 200
    assert len(r.content) < 5 * 1024 * 1024, len(r.content)
    assert r.text.count('class="alert open"') == 50  # one page of the open queue
    assert "(150 open)" in r.text
    assert "earlier calls not shown" in r.text and "/director/boards/1" in r.text
    assert flooded.get("/director?page=3").text.count('class="alert open"') == 50
    whole = flooded.get("/director/boards/1")  # the whole board is there, on its own page
    assert whole.status_code == 200 and whole.text.count("data-call=") == CALLS


def test_the_live_pages_are_as_light(flooded):
    r = flooded.get("/director/live")
    assert r.status_code == 200 and len(r.content) < 1024 * 1024, len(r.content)
    assert "the whole board" in r.text


def test_the_whole_board_shows_each_calls_thinking_time(data, monkeypatch):
    """The tempo each unit sends with a call (docs/unit.md) is on the director's bidding diagram, and a call from a
    unit that sends none shows none."""
    received = "2026-12-01T20:00:00.000+00:00"

    def play(conn):
        events = [{"seq": 1, "type": "board_start", "board": 1, "dealer": "N", "vul": "None", "mode": "record"}]
        for seq, (token, tempo) in enumerate((("N:1S", 123), ("E:P", 8), ("S:2S", None), ("W:P", "old")), 2):
            seat = token[0]
            e = {"seq": seq, "type": "call", "board": 1, "input": token, "seat": seat, "verdict": "legal"}
            if tempo != "old":
                e["tempo"] = tempo
            events.append(e)
        for e in events:
            conn.execute("INSERT INTO events (unit, seq, type, board, boot, received, body) VALUES (?, ?, ?, ?, 1, ?, "
                         "?)", ("T01", e["seq"], e["type"], e.get("board"), received, json.dumps(e)))
            derive.apply(conn, "T01", e["seq"], e, received)

    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", "pw")
    with derive.open_store(data) as store:
        store.write(play, timeout=30)
    with ApiClient(create_app(data, director_password="pw")) as c:
        import re
        token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
        c.post("/login", data={"password": "pw", "csrf": token})
        page = c.get("/director/boards/1").text
    shown = re.findall(r'data-call="([^"]+)"[^>]*>[^<]*(?:<span class="tempo[^"]*"[^>]*>([^<]+)</span>)?', page)
    assert shown == [("1S", "12.3s"), ("P", "0.8s"), ("2S", ""), ("P", "")]
