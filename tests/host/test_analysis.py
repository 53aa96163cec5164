"""Hand records and their double-dummy analysis (bidwire_host/event/analysis.py; docs/scorer.md): the tables equal
endplay's DDS deal by deal, a deal worked by hand gives what a person reads from it, dealt sessions are
repeatable, and the collector analyses an event's hand records in the background and uses them: a lead from a
void is a fouled board, a result far from double dummy is flagged."""

from collector_kit import ApiClient, auction_end, board_start, query, result, sync
from waiting import wait_until

from bidwire_host.event import analysis
from bidwire_host.event import model as ev
from bidwire_host.formats.pbn_import import load
from bidwire_host.server import create_app

# North holds every top card: in notrump, 13 tricks for North or South (nobody can ruff), none for East or West
# (North is on lead against them and wins every trick). East is void in diamonds. Board 1 (dealer N, nobody
# vulnerable): par 7NT by N or S, 220 + 300 + 1000 = +1520 (Law 77).
TOP = "N:AKQJ.AKQ.AKQ.AKQ 65432.5432..5432 T98.T98.T98.T987 7.J76.J765432.J6"
HANDS = f'[Event "?"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n[Deal "{TOP}"]\n'


# Board 1 at table 1, as a unit reports it: 1NT by N, E leads a spade, N takes all 13 tricks (the collector scores
# it by Law 77 itself, whatever score the unit claims).
ALL_THIRTEEN = [board_start(1, 1, section="A", table=1, round=1, ns=1, ew=1),
                auction_end(2, 1, ["N:1N", "E:P", "S:P", "W:P"]),
                {"seq": 3, "type": "lead", "board": 1, "seat": "E", "suit": "S", "t": 1000},
                result(4, 1, "1NT", "N", 13, 220)]


def _event_with_hands(tmp_path):
    """The 3-table Mitchell with HANDS as its hand records."""
    (tmp_path / "hands.pbn").write_text(HANDS)
    return ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2,
                                   hand_records=str(tmp_path / "hands.pbn")))


def _wait_for_analysis(data, timeout=120):
    """The collector analyses in the background, after start: wait until it has stored something."""
    wait_until(lambda: query(data, "SELECT board FROM analysis"), timeout, 0.2, "an analysis stored")


def test_a_deal_worked_by_hand():
    [(board, t)] = analysis.tables(load(HANDS).hands).items()
    assert board == 1
    assert t["dd"]["N"]["NT"] == t["dd"]["S"]["NT"] == 13
    assert t["dd"]["E"]["NT"] == t["dd"]["W"]["NT"] == 0
    assert t["par"]["score"] == 1520 and all(c.startswith("7NT") for c in t["par"]["contracts"])


def test_the_tables_equal_endplays_dds_deal_by_deal():
    from endplay.dds import calc_dd_table
    from endplay.types import Deal

    hands = load(analysis.deal_session(range(1, 9), seed=11)).hands
    assert sorted(hands) == list(range(1, 9))
    tables = analysis.tables(hands)
    for board, h in hands.items():
        one = calc_dd_table(Deal(h.deal.pbn("N"))).to_list()  # endplay: rows S H D C NT, columns N E S W
        for d, strain in enumerate(("S", "H", "D", "C", "NT")):
            assert [tables[board]["dd"][seat][strain] for seat in "NESW"] == one[d], (board, strain)


def test_a_dealt_session_is_repeatable_and_follows_law_2():
    a, b = analysis.deal_session(range(1, 5), seed=3), analysis.deal_session(range(1, 5), seed=3)
    assert a == b and a != analysis.deal_session(range(1, 5), seed=4)
    hands = load(a).hands
    assert [hands[n].dealer for n in range(1, 5)] == ["N", "E", "S", "W"]  # Law 2: dealer rotates
    assert [hands[n].vulnerable for n in range(1, 5)] == [0, 1, 2, 3]  # None, NS, EW, All


def test_the_collector_analyses_the_hand_records_and_flags_a_fouled_board_and_a_suspicious_result(tmp_path, data):
    event = _event_with_hands(tmp_path)
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3})) as client:
        _wait_for_analysis(data)
        [row] = query(data, "SELECT board, deal FROM analysis")
        assert row == {"board": 1, "deal": TOP}
        inputs = ["N:1N", "E:P", "S:P", "W:P"]
        events = [board_start(1, 1, section="A", table=1, round=1, ns=1, ew=1), auction_end(2, 1, inputs),
                  {"seq": 3, "type": "lead", "board": 1, "seat": "E", "suit": "D", "t": 1000},
                  result(4, 1, "1NT", "N", 7, 90)]
        assert sync(client, events, unit="T01").status_code == 200
        kinds = {a["kind"]: a for a in query(data, "SELECT kind, law, detail FROM alerts")}
        assert kinds["fouled_board"]["law"] == 87 and "E led a diamond" in kinds["fouled_board"]["detail"]
        assert "took 7 tricks; double dummy gives 13" in kinds["suspicious_result"]["detail"]


def test_the_travellers_show_the_deal_its_analysis_and_par(tmp_path, data, monkeypatch):
    event = _event_with_hands(tmp_path)
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3}, scorer_password="pw")) as c:
        _wait_for_analysis(data)
        assert sync(c, ALL_THIRTEEN, unit="T01").status_code == 200
        import re
        token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
        c.post("/login", data={"password": "pw", "csrf": token}, follow_redirects=False)
        page = c.get("/scorer").text
        assert 'aria-label="The deal"' in page and "AKQJ" in page and "J765432" in page
        assert "Par: +1520 NS (7NT" in page
        dd = page[page.index('aria-label="Double-dummy tricks"'):]
        assert re.search(r'<th scope="row">N</th><td class="n">13</td>', dd)  # N in notrump: 13


def test_the_pbn_export_carries_the_analysis_and_readers_take_it(tmp_path, data):
    event = _event_with_hands(tmp_path)
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3})) as c:
        _wait_for_analysis(data)
        assert sync(c, ALL_THIRTEEN, unit="T01").status_code == 200
        for table in (2, 3):  # board 1 done at every table (withheld.py: a board still to be played is left out)
            adj = {"table": table, "board": 1, "ns": "A", "ew": "A", "reason": "not played"}
            assert c.post("/api/v1/adjustments", json=adj).status_code == 201
        text = c.get("/api/v1/export/pbn").text
    assert '[OptimumScore "NS 1520"]' in text and '[ParContract "NS 7NT"]' in text
    # PBN 2.1 §3.2: a backslash inside a string is two; §5.1: "\\" then a width and an alignment in a column name
    assert '[OptimumResultTable "Declarer\\1L;Denomination\\2L;Result\\2R"]' in text  # PBN 2.1 §3.8
    table = text[text.index("[OptimumResultTable"):].splitlines()[1:21]
    assert table[0] == "N NT 13" and "W NT  0" in table and len(table) == 20
    # §3.1, §3.4: OptimumScore and ParContract are identification-section tags, before the auction section
    game = text[text.index('[Board "1"]'):]
    assert game.index("[OptimumScore") < game.index("[ParContract") < game.index("[Auction")
    from endplay.parsers import pbn as endplay_pbn
    [board] = endplay_pbn.loads(text)  # an independent reader takes the file, deal included
    assert board.deal.to_pbn() == TOP
    mine = load(text)  # and bidwire's own reader
    assert mine.hands[1].deal.pbn("N") == TOP and [r.tricks for r in mine.results if r.adjusted is None] == [13]
