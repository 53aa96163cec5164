"""Neuberg is the default wherever a board's results are unequal in number (issue 27), and the files write each
board's figures so that they sum to its exact total (docs/scorer.md "Exact figures"). Every expected figure is
worked by hand in the comments, from Neuberg's formula F = (M + 1) x E / n - 1 (2/1 units, laws.md §8.1)."""
import csv
import io
import json
import xml.etree.ElementTree as ET
from fractions import Fraction

from click.testing import CliRunner

from bidwire_host.cli import main
from bidwire_host.formats import pbn_export, results_csv, usebio
from bidwire_host.formats.pbn import parse
from bidwire_host.formats.publish import EventInfo, publication
from bidwire_host.scoring import Artificial, Result, Session, score_board, score_field
from bidwire_host.scoring.model import written_figures
from bidwire_host.scoring.session import board_method

F = Fraction


def adjusted_board():
    """Board 1 (nobody vulnerable) at five tables: NS +480 twice, +450, +420, and an artificial A+/A- at the
    fifth (no result could be obtained). Four results compare; the traveller holds five."""
    return [Result(1, "1", "1", 480, table="1"), Result(1, "2", "2", 480, table="2"),
            Result(1, "3", "3", 450, table="3"), Result(1, "4", "4", 420, table="4"),
            Result(1, "5", "5", adjusted=Artificial("A+", "A-"), table="5")]


def test_an_adjusted_board_is_factored_by_default():
    # E = 5 (the traveller), n = 4 comparable results, top 2 x (5 - 1) = 8.
    # +480: beats 2, ties 1: M = 2 x 2 + 1 = 5; F = 6 x 5/4 - 1 = 13/2 = 6.5 of 8 = 81.25 %.
    # +450: M = 2 (beats +420); F = 3 x 5/4 - 1 = 11/4.   +420: M = 0; F = 5/4 - 1 = 1/4.
    # EW mirror them: -480 ties one: M = 1, F = 2 x 5/4 - 1 = 3/2; -450: M = 4, F = 21/4; -420: M = 6, F = 31/4.
    # The A+/A- gets 60 % and 40 % of the top 8: 24/5 and 16/5.
    rows = score_board(adjusted_board())
    assert [(r.mp_ns, r.mp_ew, r.top) for r in rows] == [
        (F(13, 2), F(3, 2), 8), (F(13, 2), F(3, 2), 8), (F(11, 4), F(21, 4), 8), (F(1, 4), F(31, 4), 8),
        (F(24, 5), F(16, 5), 8)]
    assert rows[0].pct_ns == F(325, 4)  # 81.25 %


def test_plain_matchpoints_stay_available_by_name():
    # Unfactored, the four comparable results have a top of 2 x (4 - 1) = 6: +480 has 5 of 6 = 83.33 %, and
    # the A+ is 60 % of 6 = 18/5.
    rows = score_board(adjusted_board(), "mp")
    assert [(r.mp_ns, r.top) for r in rows] == [(5, 6), (5, 6), (2, 6), (0, 6), (F(18, 5), 6)]
    assert rows[0].pct_ns == F(250, 3)


def test_a_board_played_fewer_times_is_factored_to_the_others_in_a_session():
    # Board 1 played at all four tables: +420 +420 +400 +450, every result compared (top 6, F = M).
    # Board 2 only three times (a late play not made up): +450 +450 +420, so E = 4, n = 3:
    # the two +450 tie and beat one: M = 3, F = 4 x 4/3 - 1 = 13/3; +420: M = 0, F = 4/3 - 1 = 1/3.
    results = [Result(1, str(t), str(t), s, table=str(t)) for t, s in ((1, 420), (2, 420), (3, 400), (4, 450))]
    results += [Result(2, str(t), str(t), s, table=str(t)) for t, s in ((1, 450), (2, 450), (3, 420))]
    session = Session(two_fields=True)
    session.extend(results)
    assert [r.mp_ns for r in session.travellers[1].rows] == [3, 3, 0, 6]
    assert [(r.mp_ns, r.top) for r in session.travellers[2].rows] == [(F(13, 3), 6), (F(13, 3), 6), (F(1, 3), 6)]
    rows, totals, _, _ = score_field(results, two_fields=True)
    assert [r.mp_ns for r in rows[2]] == [F(13, 3), F(13, 3), F(1, 3)]
    # NS 1: 3 + 13/3 = 22/3 of 12 = 61.11 %; exact, not a sum of rounded figures.
    assert totals[("NS", "1")].mp == F(22, 3) and totals[("NS", "1")].pct == F(550, 9)


def test_what_the_scorer_page_says_each_board_used():
    assert board_method("neuberg", adjusted_board(), 5) == "Neuberg: 4 results compared, factored to 5, top 8"
    full = [Result(1, str(t), str(t), s) for t, s in ((1, 420), (2, 450))]
    assert board_method("neuberg", full, 2) == "Matchpoints: 2 results compared, top 2"
    assert board_method("mp", adjusted_board()) == "Matchpoints, not factored: 4 results compared, top 6"
    assert board_method("cross-imps", full) == "Cross-IMPs"


def test_score_pbn_factors_by_default(tmp_path):
    path = tmp_path / "late.pbn"
    games = []
    # nobody vulnerable: 4S = +420, 4S +1 = +450, 3NT = +400 (the session of the test above)
    for board, table, contract, tricks in ((1, 1, "4S", 10), (1, 2, "4S", 10), (1, 3, "3NT", 9), (1, 4, "4S", 11),
                                           (2, 1, "4S", 11), (2, 2, "4S", 11), (2, 3, "4S", 10)):
        games.append(f'[Event "Club"]\n[Board "{board}"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
                     f'[PairNS "{table}"]\n[PairEW "{table}"]\n[Declarer "N"]\n[Contract "{contract}"]\n'
                     f'[Result "{tricks}"]\n')
    path.write_text("\n".join(games), encoding="utf-8")
    out = CliRunner().invoke(main, ["score-pbn", str(path)])
    assert out.exit_code == 0, out.output
    board2 = [b for b in json.loads(out.output)["boards"] if b["board"] == 2][0]
    assert [r["mp_ns"] for r in board2["rows"]] == [4.33, 4.33, 0.33]  # 13/3, 13/3, 1/3 as above


# --- written figures ----------------------------------------------------------------------------------------------

def test_written_figures_sum_to_the_exact_total():
    # 2/3 + 17/3 + 17/3 = 12. Rounded alone: 0.67 + 5.67 + 5.67 = 12.01. One 1/100 must go: the lone 0.67 loses it
    # (a whole group; the tied 17/3 stay equal): 0.66 + 5.67 + 5.67 = 12.
    assert written_figures([F(2, 3), F(17, 3), F(17, 3)]) == [0.66, 5.67, 5.67]
    # 16/3 + 1/3 + 1/3 = 6: 5.33 + 0.33 + 0.33 = 5.99, one 1/100 more, to the lone 5.33.
    assert written_figures([F(16, 3), F(1, 3), F(1, 3)]) == [5.34, 0.33, 0.33]
    # Three equal thirds summing to 1 cannot all stay equal: one of them carries the 1/100.
    assert sorted(written_figures([F(1, 3)] * 3)) == [0.33, 0.33, 0.34]
    # Exact figures are written as they are; None stays None.
    assert written_figures([3, F(1, 2), None, F(-5, 4)]) == [3, 0.5, None, -1.25]


def factored_board():
    """Board 2 played three times where board 1 was played five times: E = 5, n = 3, top 8.
    +450 twice (tie, beat one): M = 3, F = 4 x 5/3 - 1 = 17/3; +420: M = 0, F = 5/3 - 1 = 2/3.
    EW: 8 - 17/3 = 7/3 twice, 8 - 2/3 = 22/3. Each column sums to 12."""
    results = [Result(1, str(t), str(t), 420 + 10 * t, table=str(t)) for t in range(1, 6)]
    results += [Result(2, "1", "1", 450, table="1"), Result(2, "2", "2", 450, table="2"),
                Result(2, "3", "3", 420, table="3")]
    return publication(results, EventInfo("Club", date="2025.03.04"), two_fields=True)


def test_the_files_write_the_factored_board_so_it_sums():
    pub = factored_board()
    assert [r.mp_ns for r in pub.boards[1].rows] == [F(17, 3), F(17, 3), F(2, 3)]
    ns, ew = [5.67, 5.67, 0.66], [2.33, 2.33, 7.34]  # as test_written_figures_sum_to_the_exact_total works them
    root = ET.fromstring(usebio.dumps(pub).split("\n", 2)[2])
    board = [b for b in root.iterfind("EVENT/BOARD") if b.findtext("BOARD_NUMBER") == "2"][0]
    lines = board.findall("TRAVELLER_LINE")
    assert [float(x.findtext("NS_MATCH_POINTS")) for x in lines] == ns
    assert [float(x.findtext("EW_MATCH_POINTS")) for x in lines] == ew
    rows = [r for r in csv.DictReader(io.StringIO(results_csv.travellers(pub).removeprefix("\ufeff")))
            if r["board"] == "2"]
    assert [float(r["mp_ns"]) for r in rows] == ns and [float(r["mp_ew"]) for r in rows] == ew
    game = [g for g in parse(pbn_export.dumps(pub)).games if g.get("Board") == "2" and "ScoreTable" in g.tables][0]
    table = [row for _, row in game.tables["ScoreTable"].rows]
    assert [float(row["MP_NS"]) for row in table] == ns and [float(row["MP_EW"]) for row in table] == ew
    for column in (ns, ew):
        assert sum(Fraction(str(x)) for x in column) == 12
