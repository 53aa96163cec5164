"""An event of two sessions ranked as a whole (issue 37): the afternoon and the evening of one event file, each
played by three real virtual units against a real `bidwire serve --play-session` in a data directory of its own,
then `bidwire overall` with the event's carry-over.

The afternoon is test_collector_mitchell.py's 3-table Mitchell (NS 3 16 of 24, NS 1 and NS 2 10, EW 1 and EW 3
13, EW 2 10). In the evening every table makes 1NT exactly on every board: every result ties, 12 of 24 each. So,
percentages averaged over the boards played (the matchpoints over both tops, 48): NS 3 28/48 = 58.33, NS 1 and
NS 2 22/48 = 45.83, EW 1 and EW 3 25/48 = 52.08, EW 2 22/48 = 45.83; matchpoints summed: 28, 22, 25...; and a
carry-forward of a quarter of the afternoon: NS 3 66.67/4 + 50 x 3/4 = 54.17.
"""
import json
import subprocess

from collector_proc import BIDWIRE, Collector, keyring
from test_collector_mitchell import TRICKS, UNITS, play_mitchell
from test_collector_units import secret


def overall(*args):
    out = subprocess.run([str(BIDWIRE), "overall", *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_two_sessions_are_ranked_together_with_the_events_carry_over(tmp_path):
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Two-session pairs", "--session",
                    "Afternoon", "--movement", "mitchell", "--tables", "3", "--boards-per-round", "2"],
                   check=True, capture_output=True)
    event = json.loads(event_file.read_text())
    event["sessions"].append(dict(event["sessions"][0], name="Evening"))
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
