"""The pages players read (issue 14, item 6; docs/scorer.md): the public results with the event, its movement and
the players' names, a frequency traveller per board (NS and EW scores apart, the result against the contract as
=/+1/−2, the lead), personal score cards naming the opponents' line, local human-readable times, and nothing of
it public before publication. Played through the collector's own sync, scored by the collector (Law 77)."""
import re
import time

import pytest
from collector_kit import ApiClient, played, query, sync

from bidwire.core.board import dealer, vulnerability
from bidwire.core.calls import seat_name
from bidwire.core.score import score_ns
from bidwire_host.dashboard.scorer import result_text, when
from bidwire_host.event import model as ev
from bidwire_host.event import seating
from bidwire_host.server import create_app

NAMES = {("NS", 1): ("Ann Smith", "Bob Jones"), ("NS", 2): ("Carol White", "Dan Brown"),
         ("NS", 3): ("Eve Green", "Frank Black"), ("EW", 1): ("Grace Hall", "Henry Ford"),
         ("EW", 2): ("Ivy Lane", "Jack Stone"), ("EW", 3): ("Kate Price", "Liam Ward")}
UNITS = {1: "T01", 2: "T02", 3: "T03"}
# Board 1 (dealer N, nobody vulnerable), 4S by North everywhere: at table 1 (round 1, NS 1 v EW 1) ten tricks,
# +420 (=); at table 3 (round 2, NS 3 v EW 2) eleven, +450 (+1); at table 2 (round 3, NS 2 v EW 3) eight, two
# down, 100 to EW (−2). Every other board: 4S by N making ten.
BOARD_1_TRICKS = {1: 10, 3: 11, 2: 8}


def _auction(board):
    """Passes round to North, 4S, three passes: 4S by N whoever deals."""
    seats = [seat_name((dealer(board) + i) % 4) for i in range(4)]
    return [f"{s}:P" for s in seats[:seats.index("N")]] + ["N:4S", "E:P", "S:P", "W:P"]


def _event():
    data = ev.to_dict(ev.new_event("Tuesday Pairs", {"type": "mitchell", "tables": 3}, boards_per_round=2,
                                   date="2026-12-01"))
    for p in data["sessions"][0]["sections"][0]["pairs"]:
        p["players"] = [{"name": n} for n in NAMES[(p["line"], p["number"])]]
    return data


def _play_session(client):
    seq = {u: 1 for u in UNITS.values()}
    event = ev.from_dict(_event())
    for round_no in (1, 2, 3):
        for a in seating.assignments(event, round_no):
            unit, events = UNITS[a["table"]], []
            for board in a["boards"]:
                tricks = BOARD_1_TRICKS[a["table"]] if board == 1 else 10
                claim = score_ns("4S", 0, vulnerability(board), tricks)  # the unit's claim; the host scores it again
                events += played(seq[unit], board, _auction(board), "4S", "N", tricks, claim, section="A",
                                 table=a["table"], round=round_no, ns=a["ns"], ew=a["ew"])
                seq[unit] += 4
            assert sync(client, events, unit=unit).status_code == 200


@pytest.fixture
def club(data):
    with ApiClient(create_app(data, event=_event(), tables={"T01": 1, "T02": 2, "T03": 3},
                              scorer_password="pw")) as client:
        _play_session(client)
        yield client


def _publish(client):
    r = client.post("/api/v1/publish", json={"minutes": 30, "override": True, "by": "TD"})
    assert r.status_code == 201, r.text
    return client.get("/api/v1/publish").json()


def _log_in(client):
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"password": "pw", "csrf": token}, follow_redirects=False).status_code == 303


def _cells(row_html):
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row_html, re.S)]


def _rows(page, table_class):
    table = re.search(rf'<table class="{table_class}".*?</table>', page, re.S).group(0)
    body = table[table.index("<tbody>"):]
    return {m.group(1): _cells(m.group(2)) for m in re.finditer(r'<tr data-\w+="(\d+)">(.*?)</tr>', body, re.S)}


@pytest.mark.parametrize("contract, tricks, shown", [("4S", 10, "="), ("4S", 11, "+1"), ("4S", 8, "\u22122"),
                                                     ("3NTX", 9, "="), ("7NT", 13, "="), ("1C", 13, "+6"),
                                                     ("6HXX", 5, "\u22127"), ("Pass", None, "")])
def test_the_result_is_written_against_the_contract(contract, tricks, shown):
    assert result_text(contract, tricks) == shown


def test_times_are_the_collectors_local_time_as_people_read_them(monkeypatch):
    monkeypatch.setenv("TZ", "NZDT-13")  # New Zealand summer time: 13 hours ahead of UTC
    time.tzset()
    try:
        shown = when("2026-12-01T07:24:37+00:00")
    finally:
        monkeypatch.undo()
        time.tzset()
    assert shown == '<time datetime="2026-12-01T07:24:37+00:00">Tue 1 Dec 2026, 20:24</time>'


def test_nothing_is_public_before_publication(club):
    for path in ("/results", "/results/boards/1", "/results/pairs/NS/1", "/results/pairs/EW/3"):
        r = club.get(path)
        assert "not published yet" in r.text, path
        assert "<table" not in r.text and "Ann Smith" not in r.text, path
    assert club.get("/results/boards/1").status_code == 404
    assert club.get("/results/pairs/NS/1").status_code == 404


def test_the_public_results_name_the_event_its_movement_and_the_pairs(club):
    state = _publish(club)
    page = club.get("/results").text
    assert "<h1>Tuesday Pairs</h1>" in page
    assert re.search(r'Session 1 · <time datetime="2026-12-01">Tue 1 Dec 2026</time>', page)
    assert "Mitchell, 3 tables, 6 boards" in page
    # every board ties at +420 but board 1: 4 MP for NS 3, 2 for NS 1, 0 for NS 2 (and the mirror for EW 3, 1, 2):
    # of 24 MP, NS 3 14 (58.33 %), NS 1 12 (50 %), NS 2 10 (41.67 %)
    ranking = [_cells(m.group(1)) for m in re.finditer(r'<tr data-direction="NS"[^>]*>(.*?)</tr>', page, re.S)]
    assert [(r[0], r[1], r[-1]) for r in ranking] == [("1", "NS 3 Eve Green &amp; Frank Black", "58.33"),
                                                      ("2", "NS 1 Ann Smith &amp; Bob Jones", "50.00"),
                                                      ("3", "NS 2 Carol White &amp; Dan Brown", "41.67")]
    assert 'href="/results/pairs/NS/1?section=A">NS 1</a>' in page and "Kate Price &amp; Liam Ward" in page
    assert 'href="/results/boards/1"' in page
    published = re.search(r'<p id="publication">.*?</p>', page, re.S).group(0)
    assert f'<time datetime="{state["published_at"]}">' in published
    assert state["published_at"] not in re.sub(r"<[^>]+>", "", published)  # no raw ISO in the text people read


def test_a_boards_traveller_has_ns_and_ew_scores_the_result_and_the_lead(club):
    _publish(club)
    r = club.get("/results/boards/1")
    assert r.status_code == 200
    assert "Board 1: dealer N, nobody vulnerable." in r.text
    head = re.search(r'<table class="traveller".*?</thead>', r.text, re.S).group(0)
    # two header rows: the groups (pairs, scores, matchpoints, percentages), then NS and EW under each
    assert _cells(head) == ["Table", "Pair", "Contract", "By", "Result", "Lead", "Score", "MP", "%"] + ["NS", "EW"] * 4
    rows = _rows(r.text, "traveller")
    # table, NS, EW (each with its players, hidden on a phone), contract, by, result, lead (East leads a club), NS
    # score, EW score, MP NS, MP EW: 2 MP for each score beaten, so a top of 4 on three tables
    ns1, ew1 = "1 Ann Smith &amp; Bob Jones", "1 Grace Hall &amp; Henry Ford"
    assert rows["1"][:11] == ["1", ns1, ew1, "4S", "N", "=", "♣", "420", "", "2", "2"]
    assert rows["3"][:11] == ["3", "3 Eve Green &amp; Frank Black", "2 " + " &amp; ".join(NAMES["EW", 2]), "4S",
                              "N", "+1", "♣", "450", "", "4", "0"]
    assert rows["2"][:11] == ["2", "2 Carol White &amp; Dan Brown", "3 Kate Price &amp; Liam Ward", "4S", "N",
                              "\u22122", "♣", "", "100", "0", "4"]
    assert club.get("/results/boards/99").status_code == 404


def test_a_score_card_names_the_opponents_with_their_line(club):
    _publish(club)
    r = club.get("/results/pairs/EW/3?section=A")
    assert r.status_code == 200
    assert "Pair EW 3: Kate Price &amp; Liam Ward" in r.text
    rows = _rows(r.text, "scorecard")
    # board, table, sat, opponents, contract, by, result, lead, score (EW's side), MP
    assert rows["1"][:10] == ["1", "2", "EW", "NS 2 — Carol White &amp; Dan Brown", "4S", "N", "\u22122", "♣",
                              "100", "4"]
    assert set(rows) == {"1", "2", "3", "4", "5", "6"}  # EW 3 played every board: 2 per round, 3 rounds

    _log_in(club)
    staff = club.get("/scorer/pairs/NS/1?section=A").text
    assert _rows(staff, "scorecard")["1"][3] == "EW 1 — Grace Hall &amp; Henry Ford"  # not "Opponents 1"


def test_the_scorer_page_puts_the_ranking_before_its_forms(club):
    _log_in(club)
    page = club.get("/scorer").text
    rank = page.index('id="rank-h"')
    assert rank < page.index('id="pub-h"') and rank < page.index('id="corr-h"')
    assert 'class="ranking"' in page[rank:page.index('id="pub-h"')]


def _method_note(page, board):
    section = re.search(rf'<h3 id="board-{board}">.*?</section>', page, re.S).group(0)
    found = re.search(r'<p class="method">(.*?)</p>', section)
    return found.group(1) if found else None


def test_the_scorer_page_says_which_method_each_board_used(club):
    # Every board was played at all three tables: matchpoints with every result compared, top 2 x (3 - 1) = 4.
    # Then the director gives table 2's board 1 an artificial A+/A-: two results left to compare, factored to
    # the traveller's three (Neuberg, the default), the top staying 4.
    _log_in(club)
    page = club.get("/scorer").text
    assert [_method_note(page, b) for b in range(1, 7)] == ["Matchpoints: 3 results compared, top 4"] * 6
    r = club.post("/api/v1/adjustments", json={"table": 2, "board": 1, "ns": "A+", "ew": "A-"})
    assert r.status_code == 201, r.text
    page = club.get("/scorer").text
    assert _method_note(page, 1) == "Neuberg: 2 results compared, factored to 3, top 4"
    assert _method_note(page, 2) == "Matchpoints: 3 results compared, top 4"
    _publish(club)  # the public pages say it too
    assert _method_note(club.get("/results").text, 1) == "Neuberg: 2 results compared, factored to 3, top 4"
    assert _method_note(club.get("/results/boards/1").text, 1) == "Neuberg: 2 results compared, factored to 3, top 4"


def test_a_corrected_result_is_marked_on_every_traveller_and_score_card(club, data):
    """Issue 26 item 2: the API carried `corrected`, but no traveller showed it (docs/scorer.md says they do)."""
    [res] = [r for r in club.get("/api/v1/travellers/1").json()["rows"] if r["table"] == 2]
    assert not res["corrected"]
    [row] = query(data, "SELECT unit, seq FROM results WHERE table_no = 2 AND board = 1")
    r = club.post(f"/api/v1/results/{row['unit']}/{row['seq']}/correct", json={"tricks": 9, "reason": "miscounted"})
    assert r.status_code == 201, r.text
    _publish(club)
    _log_in(club)
    for path in ("/scorer", "/scorer/print", "/results", "/results/boards/1"):
        rows = _rows(club.get(path).text, "traveller")
        assert rows["2"][3] == "4S corrected", path  # table 2's 4S, now one down
        assert rows["1"][3] == "4S", path  # the others are not
    for path in ("/scorer/pairs/NS/2?section=A", "/results/pairs/NS/2?section=A"):
        assert _rows(club.get(path).text, "scorecard")["1"][4] == "4S corrected", path



def test_the_scorers_hand_records_give_dealer_and_vulnerability(data, tmp_path):
    """Issue 26 item 6: the scorer's travellers and /scorer/print showed the deal without dealer or vulnerability.
    Law 2: board 3 is dealt by South with EW vulnerable, board 4 by West with both sides vulnerable."""
    from bidwire_host.event import analysis
    (tmp_path / "hands.pbn").write_text(analysis.deal_session(range(1, 7), seed=26))
    event = dict(_event())
    event["sessions"][0]["hand_records"] = str(tmp_path / "hands.pbn")
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3},
                              scorer_password="pw")) as client:
        _play_session(client)
        _log_in(client)
        for path in ("/scorer", "/scorer/print"):
            page = client.get(path).text
            for board, said in ((3, "Dealer South EW vul."), (4, "Dealer West Game all")):
                section = re.search(rf'<section class="board" aria-labelledby="board-{board}">.*?</section>', page,
                                    re.S).group(0)
                conditions = re.search(r'<p class="board-conditions">(.*?)</p>', section, re.S)
                assert conditions and " ".join(re.sub(r"<[^>]+>", " ", conditions.group(1)).split()) == said, path


def test_the_scorer_s_and_public_times_are_the_club_s_named_once(data):
    """Issue 26 item 9: "Wed 2 Dec 2026, 05:35" with no zone; now the event's time zone, named once a page."""
    from datetime import datetime
    from zoneinfo import ZoneInfo
    event = _event()
    event["time_zone"] = "Pacific/Auckland"
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3},
                              scorer_password="pw")) as client:
        _play_session(client)
        state = _publish(client)
        at = datetime.fromisoformat(state["published_at"]).astimezone(ZoneInfo("Pacific/Auckland"))
        shown = f"{at:%a} {at.day} {at:%b %Y, %H:%M}"
        _log_in(client)
        for path in ("/scorer", "/scorer/print", "/results"):
            page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", client.get(path).text))
            assert f"Published at {shown}" in page, path
            assert page.count("times in Pacific/Auckland") == 1, path
