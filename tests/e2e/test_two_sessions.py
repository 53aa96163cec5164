"""An event of two sessions ranked as a whole (issue 37): the afternoon and the evening of one event file, each
played by three real virtual units against a real `bidwire serve --play-session` in a data directory of its own,
then `bidwire overall` with the event's carry-over.

The afternoon is test_collector_mitchell.py's 3-table Mitchell (NS 3 16 of 24, NS 1 and NS 2 10, EW 1 and EW 3
13, EW 2 10). In the evening every table makes 1NT exactly on every board: every result ties, 12 of 24 each. So,
percentages averaged over the boards played (the matchpoints over both tops, 48): NS 3 28/48 = 58.33, NS 1 and
NS 2 22/48 = 45.83, EW 1 and EW 3 25/48 = 52.08, EW 2 22/48 = 45.83; matchpoints summed: 28, 22, 25...; and a
carry-forward of a quarter of the afternoon: NS 3 66.67/4 + 50 x 3/4 = 54.17.

The whole event's files (`bidwire overall --pbn --usebio`) are read back by readers nobody here wrote: endplay's
PBN parser (every session's 18 games, each session its Stage, the evening's all 1NT making 7, and the event's
TotalScoreTable in the first game with the figures above) and ElementTree for the USEBIO (the places, the
matchpoints and percentages above, 12 boards a pair over the two sessions).
"""
import json
import subprocess
from collections import Counter
from xml.etree import ElementTree

from collector_proc import BIDWIRE, Collector, keyring
from endplay.parsers import pbn
from test_collector_mitchell import TRICKS, UNITS, play_mitchell
from test_collector_units import secret


def overall(*args):
    out = subprocess.run([str(BIDWIRE), "overall", *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_two_sessions_are_ranked_together_with_the_events_carry_over(tmp_path):
    event_file = tmp_path / "event.json"
    for path, seed in ((event_file, "1"), (tmp_path / "evening.json", "2")):  # each session its own deals
        subprocess.run([str(BIDWIRE), "event", "create", str(path), "--name", "Two-session pairs", "--session",
                        "Afternoon", "--movement", "mitchell", "--tables", "3", "--boards-per-round", "2", "--deal",
                        "--seed", seed], check=True, capture_output=True)
    event = json.loads(event_file.read_text())
    evening_hands = json.loads((tmp_path / "evening.json").read_text())["sessions"][0]["hand_records"]
    assert evening_hands != event["sessions"][0]["hand_records"]
    event["sessions"].append(dict(event["sessions"][0], name="Evening", hand_records=evening_hands))
    event["overall"] = {"method": "average"}
    event_file.write_text(json.dumps(event))
    evening_tricks = {b: dict.fromkeys(UNITS, 7) for b in TRICKS}
    for name, tricks in (("Afternoon", TRICKS), ("Evening", evening_tricks)):
        data = tmp_path / name
        data.mkdir()
        ring = keyring(data / "keyring.json", {UNITS[t]: secret(t) for t in UNITS})
        collector = Collector(data, ring, extra=("--event", str(event_file), "--tables", "T01=1,T02=2,T03=3",
                                                 "--play-session", name))
        try:
            assert collector.api.get("/api/v1/event").json()["session"] == name
            play_mitchell(data, collector, tricks)
        finally:
            collector.stop()
    dirs = ("--data", str(tmp_path / "Afternoon"), "--data", str(tmp_path / "Evening"))
    got = overall(*dirs)
    assert got["sessions"] == ["Afternoon", "Evening"]
    ranked = {tuple(r["who"][1:]): (r["rank"], r["score"], r["sessions"]) for r in got["ranking"]}
    assert ranked[("NS", "3")] == ("1", 58.33, [66.67, 50])
    assert ranked[("EW", "1")][1:] == ranked[("EW", "3")][1:] == (52.08, [54.17, 50])
    assert ranked[("NS", "1")][1] == ranked[("NS", "2")][1] == ranked[("EW", "2")][1] == 45.83
    summed = {tuple(r["who"][1:]): r["score"] for r in overall(*dirs, "--method", "sum")["ranking"]}
    assert (summed[("NS", "3")], summed[("NS", "1")], summed[("EW", "1")]) == (28, 22, 25)
    carried = {tuple(r["who"][1:]): r["score"] for r in overall(*dirs, "--method", "carry", "--weights", "25,75")[
        "ranking"]}
    assert carried[("NS", "3")] == 54.17
    files = (tmp_path / "event.pbn", tmp_path / "event.xml")
    subprocess.run([str(BIDWIRE), "overall", *dirs, "--pbn", str(files[0]), "--usebio", str(files[1])], check=True,
                   capture_output=True)
    with open(files[0], encoding="utf-8") as f:
        games = pbn.load(f)
    assert Counter(g.info["Stage"] for g in games) == {"Afternoon": 18, "Evening": 18}
    evening = [g for g in games if g.info["Stage"] == "Evening"]
    assert {(g.contract.level, g.contract.denom.name, g.contract.result) for g in evening} == {(1, "nt", 0)}
    assert sorted({g.board_num for g in evening}) == list(range(1, 7))
    with open(tmp_path / evening_hands, encoding="utf-8") as f:  # each session's boards with its own deals
        evening_deals = {b.board_num: b.deal.to_pbn() for b in pbn.load(f)}
    assert all(g.deal.to_pbn() == evening_deals[g.board_num] for g in evening)
    assert all(g.deal.to_pbn() != evening_deals[g.board_num] for g in games if g.info["Stage"] == "Afternoon")
    total = games[0].info["TotalScoreTable"]
    assert [h["name"] for h in total["headers"]] == ["Rank", "Direction", "PairId", "Names", "TotalPercentage",
                                                     "Percentage_1", "Percentage_2", "NrBoards"]
    rows = {(r[1], r[2]): (r[0], r[-4], r[-3], r[-2], r[-1]) for r in total["rows"]}
    assert rows[("NS", "3")] == ("1", "58.33", "66.67", "50", "12")
    assert rows[("EW", "1")][1:] == rows[("EW", "3")][1:] == ("52.08", "54.17", "50", "12")
    assert "TotalScoreTable" not in games[1].info and len(rows) == 6
    event = ElementTree.parse(files[1]).getroot().find("EVENT")
    assert event.findtext("SESSION_COUNT") == "2"
    pairs = {p.findtext("PAIR_NUMBER"): (p.findtext("PLACE"), p.findtext("TOTAL_SCORE"), p.findtext("PERCENTAGE"),
                                         p.findtext("BOARDS_PLAYED")) for p in event.iter("PAIR")}
    assert pairs["3NS"] == ("1", "28", "58.33", "12") and pairs["1EW"][1:] == ("25", "52.08", "12")
    assert len(pairs) == 6
