"""A teams event's matches from the tables' results (issue 38): each board IMPed between the match's two tables by
the Law 78 B table, the running score, and the VPs once the match's last board is in, worked here by hand."""
from bidwire_host.scoring import Result
from bidwire_host.scoring.team_matches import matches
from bidwire_host.scoring.victory_points import ACBL20

# Team 1 (home) v team 2 (away) on boards 1 and 2: team 1 NS at table 1, team 2 NS at table 2; team 3 v team 4 the
# same way at tables 3 and 4.
# Board 1 (none vul): 4S by N makes 10 at table 1 (+420 to 1), 9 at table 2 (-50: +50 to team 1 sitting EW):
#   470 to team 1, 10 IMPs (430-490). Board 2 (NS vul): 3NT by S makes 9 at table 1 (+600), 10 at table 2 (+630 to
#   team 2): 30 to team 2, 1 IMP. Team 1 wins 10-1, by 9: 14-6 on the ACBL's scale for 1-8 boards (8-10 IMPs).
# Teams 3 and 4: 1NT by N making 7 at both tables on both boards: 0-0, 10-10.
RESULTS = [Result.played(1, "1", "2", "4S", "N", 10, table="1"), Result.played(1, "2", "1", "4S", "N", 9, table="2"),
           Result.played(2, "1", "2", "3NT", "S", 9, table="1"), Result.played(2, "2", "1", "3NT", "S", 10, table="2"),
           Result.played(1, "3", "4", "1NT", "N", 7, table="3"), Result.played(1, "4", "3", "1NT", "N", 7, table="4"),
           Result.played(2, "3", "4", "1NT", "N", 7, table="3"), Result.played(2, "4", "3", "1NT", "N", 7, table="4")]
SCHEDULE = [(1, 1, 2, (1, 2)), (1, 3, 4, (1, 2))]


def test_each_match_is_imped_between_its_two_tables_and_scored_in_vps():
    first, second = matches(RESULTS, SCHEDULE, ACBL20)
    assert first.imps == {1: (10, -10), 2: (-1, 1)}
    assert (first.score, first.margin, first.over, first.vps) == ((10, 1), 9, True, (1400, 600))
    assert first.won_drawn("1") == (1, 0) and first.won_drawn("2") == (1, 0)
    assert (second.score, second.vps, second.won_drawn("3")) == ((0, 0), (1000, 1000), (0, 2))


def test_a_match_with_a_board_still_at_one_table_has_a_running_score_and_no_vps_yet():
    first, _ = matches(RESULTS[:3], SCHEDULE, ACBL20)  # board 2 played at table 1 only
    assert (first.imps, first.score, first.over, first.vps) == ({1: (10, -10)}, (10, 0), False, None)
