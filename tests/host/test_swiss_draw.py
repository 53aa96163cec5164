"""The Swiss draw (issue 38) against the rule it claims (docs/teams.md "The Swiss draw"), on standings made by hand:
the top team meets the highest placed team it has not met, and so on down the list; no repeat meeting while a
draw without one exists (the search goes back up from the lowest tables); the bye to the lowest placed team that
has not had one; repeats, as few as can be, only when every draw has one."""
import pytest

from bidwire_host.event.swiss_draw import Draw, DrawError, draw
from bidwire_host.scoring.team_matches import Match
from bidwire_host.scoring.team_standings import standings
from bidwire_host.scoring.victory_points import ACBL20


def test_winners_meet_winners_and_nobody_meets_again():
    # after round 1 (1 beat 2, 3 beat 4, 5 beat 6) the standings read 1, 3, 5, 2, 4, 6
    assert draw([1, 3, 5, 2, 4, 6], met=[(1, 2), (3, 4), (5, 6)]) == Draw(((1, 3), (5, 2), (4, 6)))


def test_the_draw_goes_back_up_rather_than_leave_a_repeat_at_the_bottom():
    # down the list 1-2, 3-4 would leave 5-6, who have met: the lowest choice above changes first (3 takes 5)
    assert draw([1, 2, 3, 4, 5, 6], met=[(5, 6)]) == Draw(((1, 2), (3, 5), (4, 6)))


def test_a_team_that_has_met_everyone_above_it_meets_the_next_below():
    # 4 has met 1, 2 and 3; 3 has met 4 and 5: 1-2, then 3 takes 6, and 4 meets 5, the one left below it
    met = [(1, 4), (2, 4), (3, 4), (1, 3), (3, 5)]
    assert draw([1, 2, 3, 4, 5, 6], met=met) == Draw(((1, 2), (3, 6), (4, 5)))


def test_the_leader_who_has_met_the_next_two_meets_the_fourth():
    assert draw([1, 2, 3, 4], met=[(1, 2), (1, 3)]) == Draw(((1, 4), (2, 3)))


def test_an_odd_number_gives_the_bye_to_the_lowest_team_without_one():
    assert draw([1, 2, 3, 4, 5], met=[(1, 2)]) == Draw(((1, 3), (2, 4)), bye=5)
    assert draw([1, 2, 3, 4, 5], met=[(1, 2)], byes=[5]) == Draw(((1, 3), (2, 5)), bye=4)
    assert draw([1, 2, 3, 4, 5], byes=[1, 2, 3, 4, 5]) == Draw(((1, 2), (3, 4)), bye=5)  # all had one


def test_the_bye_moves_up_when_the_lowest_teams_left_could_only_meet_again():
    # 5 has had the bye; 4 would take it, leaving 1, 2, 3, 5 with 3-5 the only match for 5 after 1-2... and 3 has
    # met 5: with 4 out, 1-3? met; 1-5, 2-3 is new: found. The bye stays with 4.
    met = [(1, 2), (3, 5), (1, 3)]
    assert draw([1, 2, 3, 4, 5], met=met, byes=[5]) == Draw(((1, 5), (2, 3)), bye=4)


def test_when_every_draw_repeats_a_meeting_the_fewest_repeats_are_taken_and_named():
    everyone = [(1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3)]
    assert draw([1, 2, 3, 4], met=everyone) == Draw(((1, 2), (3, 4)), repeats=((1, 2), (3, 4)))
    # 4 teams, two rounds gone (1-2, 3-4; 1-3, 2-4): only 1-4 and 2-3 are new, whatever the standings
    assert draw([4, 1, 3, 2], met=[(1, 2), (3, 4), (1, 3), (2, 4)]) == Draw(((4, 1), (3, 2)))


def test_a_bad_standings_list_is_refused():
    with pytest.raises(DrawError, match="twice"):
        draw([1, 2, 2, 3])
    with pytest.raises(DrawError, match="two teams"):
        draw([1])


def _match(round_no, home, away, board_imps, boards=None):
    """A finished match of len(board_imps) boards: each board's IMPs to the home team (the away team's are the
    negative)."""
    boards = boards or tuple(range(1, len(board_imps) + 1))
    imps = {b: (x, -x) for b, x in zip(boards, board_imps, strict=True)}
    return Match(round_no, str(home), str(away), boards, imps, ACBL20)


def test_ties_are_split_before_the_draw_as_the_ebu_splits_them():
    """Six teams after two rounds, on the ACBL's 20-point scale for 1-8 boards (a margin of 8-10 IMPs: 14-6; 3-4:
    12-8; 0: 10-10). VPs: 1 and 2 have 26 (14 + 12), 4 has 20 (12 + 8), 3, 5 and 6 have 16 (8 + 8, 6 + 10,
    6 + 10). 1 and 2 have not met: tie-break points, 1's opponents 6 and 3 (16 + 16) against 2's 5 and 4
    (16 + 20): 2 above 1. 3, 5 and 6 have not all met: tie-break points, 3's opponents 4 and 1 (20 + 26 = 46), 5's
    2 and 6 (26 + 16 = 42), 6's 1 and 5 (42): 3 first. 5 and 6, still tied, start again: their match was 10-10
    and 2-2 in IMPs, their tie-break points 42 each, their IMPs -8 each (0-8 and 2-2); the boards won: 5 won one
    (1 - 0), 6 won one and drew one (0 - 1.5): 6 above 5."""
    round1 = [_match(1, 1, 6, [8, 0]), _match(1, 2, 5, [4, 4]), _match(1, 4, 3, [3, 0])]
    round2 = [_match(2, 1, 3, [3, 1]), _match(2, 2, 4, [0, 4]), _match(2, 5, 6, [2, -2])]
    order = standings(range(1, 7), round1 + round2)
    assert [(s.team, s.rank, s.vps) for s in order] == [("2", "1", 2600), ("1", "2", 2600), ("4", "3", 2000),
                                                        ("3", "4", 1600), ("6", "5", 1600), ("5", "6", 1600)]
    met = [(m.home, m.away) for m in round1 + round2]
    # 2 meets 1 (new); 4 has met 3: it meets 6; 3 meets 5
    assert draw([s.team for s in order], met=met) == Draw((("2", "1"), ("4", "6"), ("3", "5")))


def test_teams_level_on_every_tie_break_share_the_place():
    # 1 beat 2 and 3 beat 4, each by 3-0 over two boards: 12-8, the same opponents' VPs, IMPs and boards won
    order = standings(range(1, 5), [_match(1, 1, 2, [3, 0]), _match(1, 3, 4, [3, 0])])
    assert [(s.team, s.rank) for s in order] == [("1", "1="), ("3", "1="), ("2", "3="), ("4", "3=")]


def test_a_round_robin_leaves_tie_break_points_out():
    """All-play-all (EBU §143.5.2: tie-break points are never used there), after two rounds of four teams: 1 and 2
    drew their match (10-10, 1-1 in IMPs), then each won 12-8 (by 3 and by 4 IMPs): 22 VPs each; 3 has 20 (12 + 8),
    4 has 16. Tie-break points would put 1 first (its opponents 2 and 3: 42; 2's, 1 and 4: 38); without them the
    IMPs decide: 2 (+4) above 1 (+3)."""
    matches = [_match(1, 1, 2, [1, -1]), _match(1, 3, 4, [3, 0]), _match(2, 1, 3, [3, 0]), _match(2, 2, 4, [4, 0])]
    swiss = standings(range(1, 5), matches)
    assert [(s.team, s.vps) for s in swiss] == [("1", 2200), ("2", 2200), ("3", 2000), ("4", 1600)]
    assert [s.team for s in standings(range(1, 5), matches, swiss=False)] == ["2", "1", "3", "4"]
