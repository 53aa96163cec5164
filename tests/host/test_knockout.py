"""A knock-out's bracket (issue 38): the standard seeded draw (the seeds of each first-stage match add up to the
bracket's size plus one, and 1 and 2 can meet only in the final), byes to the top seeds, and each later stage made
of the winners bracket by bracket; worked by hand."""
import pytest

from bidwire_host.event.knockout import first_stage, next_stage, seeding, stages
from bidwire_host.event.movements import MovementError


def test_the_seeded_bracket():
    assert seeding(4) == [1, 4, 2, 3]
    assert seeding(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert first_stage(8) == ((1, 8), (4, 5), (2, 7), (3, 6))
    assert all(a + b == 17 for a, b in zip(seeding(16)[::2], seeding(16)[1::2], strict=True))
    assert [stages(n) for n in (2, 3, 4, 5, 8, 9, 16)] == [1, 2, 2, 3, 3, 4, 4]


def test_when_the_better_seed_always_wins_1_meets_2_in_the_final():
    better = min
    drawn = [list(first_stage(8))]
    drawn.append(list(next_stage(8, drawn, better)))
    assert drawn[1] == [(1, 4), (2, 3)]
    drawn.append(list(next_stage(8, drawn, better)))
    assert drawn[2] == [(1, 2)]
    assert next_stage(8, drawn, better) == ()  # the final was the last stage


def test_six_teams_give_the_top_two_seeds_a_bye():
    assert first_stage(6) == ((4, 5), (3, 6))
    assert next_stage(6, [first_stage(6)], max) == ((1, 5), (2, 6))  # the lower seeds won


def test_a_stage_without_its_winners_or_drawn_another_way_has_no_next_stage_by_rule():
    with pytest.raises(MovementError, match="no winner yet"):
        next_stage(4, [first_stage(4)], lambda a, b: None)
    with pytest.raises(MovementError, match="was not drawn"):
        next_stage(4, [[(1, 3), (2, 4)]], min)
