"""`make demo-sim`'s engine: two clubs' heats of one sim (3-table Mitchells on the same 3 boards, one club
offline until its session is over) feed a hub on a local PostgreSQL, which publishes the field; everything the
demo started is stopped at the end."""
import re
import subprocess
import sys
from xml.etree import ElementTree

from endplay.parsers import pbn
from endplay.types import Deal


def _running(folder):
    """Processes whose command line names the demo's folder (its clubs, units, hub and PostgreSQL)."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if str(folder) in line and "ps -eo" not in line]


def test_the_sim_demo_scores_every_club_and_leaves_nothing_running(tmp_path):
    folder = tmp_path / "demo-sim"
    proc = subprocess.run([sys.executable, "-m", "bidwire_host.demo.sim", "--clubs", "2", "--tables", "3",
                           "--boards", "3", "--exit-when-done", "--dir", str(folder)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    out = proc.stdout
    # 2 clubs x 3 tables x 3 rounds of 1 board: 18 results, every board played 3 times at each club
    assert "hub: all 18 results in from 2 clubs" in out
    assert "club C2: session over; its link to the hub is open now" in out
    assert "organiser:" in out and "login:" in out
    exports = folder / "exports"
    assert sorted(p.name for p in exports.iterdir()) == ["C1.pbn", "C2.pbn", "sim.pbn", "sim.xml"]
    boards = pbn.loads((exports / "sim.pbn").read_text(encoding="utf-8"))
    assert sorted(b.board_num for b in boards) == [1] * 6 + [2] * 6 + [3] * 6  # a game per result
    assert all(str(b.contract) and b.info["North"] not in ("", "?") for b in boards)  # each with its players
    firsts = [b for b in boards if "ScoreTable" in b.info]
    assert [b.board_num for b in firsts] == [1, 2, 3]
    for b in firsts:
        assert len(b.info["ScoreTable"]["rows"]) == 6  # both clubs' three results on the one table
    # the club played the sim's deals (its own PBN read by its tags: its auctions carry PBN 2.1 irregularity
    # marks, which endplay refuses)
    club_deals = dict(re.findall(r'\[Board "(\d+)"\]\s*(?:\[[^\]]*\]\s*)*?\[Deal "([^"]+)"\]',
                                 (exports / "C1.pbn").read_text("utf-8")))
    assert sorted(map(int, club_deals)) == [1, 2, 3]
    assert all(Deal(club_deals[str(b.board_num)]).to_pbn() == b.deal.to_pbn() for b in boards)
    root = ElementTree.fromstring((exports / "sim.xml").read_text(encoding="utf-8").split("\n", 2)[2])
    clubs = {p.text.split("-")[0] for p in root.iter("PAIR_NUMBER")}
    assert clubs == {"C1", "C2"}
    # issue 40: each pair of the combined USEBIO is its club's own pair, with the names and national numbers the
    # club's own file gives it (each club's collector wrote its USEBIO from its own register)
    combined = {p.findtext("PAIR_NUMBER"): _players(p) for p in root.iter("PAIR")}
    own = {}
    for c in ("C1", "C2"):
        mine = ElementTree.parse(folder / "clubs" / c / "exports" / "bidwire.xml").getroot()
        own.update({f"{c}-A-{p.findtext('PAIR_NUMBER')}": _players(p) for p in mine.iter("PAIR")})
    assert len(combined) == 12 and combined == own
    assert all(name and number.isdigit() for players in own.values() for name, number in players)
    assert _running(folder) == []


def _players(pair):
    return [(x.findtext("PLAYER_NAME"), x.findtext("NATIONAL_ID_NUMBER")) for x in pair.iter("PLAYER")]
