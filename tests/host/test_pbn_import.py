"""PBN results and hand records into the scoring model; every score checked against Law 77 (laws.md §6-§7)."""
import pytest

from bidwire_host.formats.pbn import PbnError
from bidwire_host.formats.pbn_import import load
from bidwire_host.scoring import Artificial, Assigned

HEAD = '[Board "1"]\n[Vulnerable "None"]\n'
COLS = '[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\5R;Score_EW\\5R"]\n'


def table(*rows, head=HEAD, cols=COLS):
    return load(head + cols + "".join(r + "\n" for r in rows))


def test_per_table_rows_are_scored_by_the_core():
    got = table(" 1  1 4S   N 10   420     -", " 2  2 3NT  S  8     -    50", " 3  3 Pass -  -     0     -")
    assert [(r.ns, r.ew, r.score_ns, r.contract, r.declarer, r.tricks) for r in got.results] == [
        ("1", "1", 420, "4S", "N", 10), ("2", "2", -50, "3NT", "S", 8), ("3", "3", 0, "Pass", None, None)]
    assert [r.line for r in got.results] == [4, 5, 6] and not got.problems


def test_board_4_sign_check_from_laws_md_7():
    # laws.md §7: board 4 (both vulnerable, dealer W), E declares 4S doubled and takes 6 tricks -> NS +1100.
    got = table(" 1  1 4SX  E  6     -     -", head='[Board "4"]\n')
    assert got.results[0].score_ns == 1100
    assert got.hands[4].dealer == "W" and got.hands[4].vulnerable == 3


def test_score_not_the_law77_score_is_a_problem_not_a_result():
    got = table(" 1  1 4S   N 10   430     -", " 2  2 -    -  -   423     -", " 3  3 4S   N 10   420  -420",
                " 4  4 4S   N 10   420   420")
    assert [r.ns for r in got.results] == ["3"]
    assert [(p.line, p.board) for p in got.problems] == [(4, 1), (5, 1), (7, 1)]
    assert "not the Law 77 score of 4S by N taking 10 (420 with vulnerability None)" in got.problems[0].message
    assert "423 for NS is not a Law 77 score" in got.problems[1].message
    assert "do not balance" in got.problems[2].message


def test_score_only_rows_and_result_relative_to_the_contract():
    got = table(" 1  1 -    -  -   620     -", " 2  2 4H   N  =     -     -", " 3  3 4H   N -2     -     -",
                " 4  4 4H   N  -   650     -", head='[Board "2"]\n')  # board 2: NS vulnerable
    assert [(r.score_ns, r.tricks) for r in got.results] == [(620, None), (620, 10), (-200, 8), (650, 11)]


def test_tricks_outside_0_13_is_a_problem():
    got = table(" 1  1 4H   N 14     -     -")
    assert not got.results and "tricks must be 0-13" in got.problems[0].message


def test_multiplicity_frequency_rows():
    got = table("4H N 10 3", "3NT S = 2", "- - - 1",
                cols='[ScoreTable "Contract\\5L;Declarer\\1;Result\\2R;Multiplicity"]\n')
    assert [r.score_ns for r in got.results] == [420, 420, 420, 400, 400]
    assert [p.line for p in got.problems] == [6]


def test_artificial_and_assigned_scores_marked_with_a_caret():
    got = table(" 1  1 -    -  -   ^A+   ^A-", " 2  2 -    -  -  ^140 ^-620", " 3  3 -    -  -  ^-100     -")
    assert got.results[0].adjusted == Artificial("A+", "A-")
    assert got.results[1].adjusted == Assigned(140, 620)
    assert got.results[2].adjusted == Assigned(-100, -100)
    pct = table(" 4  4 - - - - - ^55 ^45",
                cols='[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS;Score_EW;'
                     'Percentage_NS;Percentage_EW"]\n')
    assert pct.results[0].adjusted == Artificial(55, 45)


def test_one_sided_artificial_score_is_a_problem():
    got = table(" 1  1 -    -  -   ^A+     -")
    assert not got.results and "both sides" in got.problems[0].message


@pytest.mark.parametrize("row,line,words", [
    (" 1  1 4S   N ten   420     -", 4, "result (tricks won by declarer) ten is not a whole number"),
    (" 1  1 4S   Q 10   420     -", 4, "declarer Q must be W, N, E or S"),
    (" 1  1 9S   N 10   420     -", 4, "the level must be 1-7"),
    (" 1  1 4S   N 10   lots     -", 4, "Score_NS lots is not a whole number"),
    (" 1  1 4S   N 10", 4, "5 values for 7 columns"),
])
def test_bad_scoretable_rows_are_errors_naming_the_line(row, line, words):
    with pytest.raises(PbnError) as e:
        table(row)
    assert e.value.line == line and words in str(e.value)


@pytest.mark.parametrize("count", ["0", "99999999999"])
def test_implausible_multiplicity_is_an_error(count):
    with pytest.raises(PbnError, match=f"line 4: Multiplicity {count} must be from 1 to 10000"):
        table(f"4H N 10 {count}", cols='[ScoreTable "Contract;Declarer;Result;Multiplicity"]\n')


def test_results_from_one_game_per_table():
    text = ('[Board "1"]\n[Contract "4S"]\n[Declarer "N"]\n[Result "10"]\n[PairNS "3"]\n[PairEW "7"]\n\n'
            '[Board "1"]\n[Contract "4S"]\n[Declarer "E"]\n[Result "NS 3"]\n[Score "EW 420"]\n\n'
            '[Board "1"]\n[Contract "3NT"]\n[Declarer "S"]\n[Score "400"]\n[Room "Closed"]\n[HomeTeam "Aces"]\n'
            '[VisitTeam "Kings"]\n')
    got = load(text)
    assert [(r.ns, r.ew, r.score_ns, r.tricks) for r in got.results] == [
        ("3", "7", 420, 10), (None, None, -420, 10), ("Kings", "Aces", 400, 9)]


def test_score_tag_inconsistent_with_the_contract_is_a_problem():
    got = load('[Board "1"]\n[Contract "4S"]\n[Declarer "N"]\n[Result "10"]\n[Score "NS 450"]\n')
    assert not got.results and got.problems[0].line == 2


def test_scoretable_wins_over_the_games_of_the_same_board():
    game = '[Board "1"]\n[Contract "4S"]\n[Declarer "N"]\n[Result "10"]\n'
    text = HEAD + COLS + " 1  1 4S   N 10   420     -\n\n" + game
    assert len(load(text).results) == 1


def test_two_different_scoretables_for_a_board_are_reported():
    text = HEAD + COLS + " 1  1 4S   N 10   420     -\n\n" + HEAD + COLS + " 2  2 4S   N 11   450     -\n"
    got = load(text)
    assert len(got.results) == 1 and "a second, different ScoreTable" in got.problems[0].message


def test_hand_record_import():
    text = ('[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
            '[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n\n'
            '[Board "2"]\n[Deal "E:- - - -"]\n')
    got = load(text)
    assert not got.results
    assert got.hands[1].deal.hands["S"] == ("765", "432", "AKQJ", "T98")
    assert got.hands[2].dealer == "E" and got.hands[2].vulnerable == 1  # Law 2 defaults for board 2


def test_board_tag_and_vulnerable_tag_errors():
    with pytest.raises(PbnError, match=r"line 1: \[Board \"x\"\] must be a board number"):
        load('[Board "x"]\n[Contract "4S"]\n')
    with pytest.raises(PbnError, match="line 1: this game has results but no"):
        load('[Contract "4S"]\n[Declarer "N"]\n[Result "10"]\n')
    with pytest.raises(PbnError, match=r"line 2: \[Vulnerable\] unknown vulnerability"):
        load('[Board "1"]\n[Vulnerable "Some"]\n')


def test_vulnerable_tag_governs_over_the_board_number():
    # laws.md §2.2: if a board is marked differently, its markings govern; the collector keeps what was used.
    got = table(" 1  1 4S   N 10     -     -", head='[Board "1"]\n[Vulnerable "All"]\n')
    assert got.results[0].score_ns == 620
