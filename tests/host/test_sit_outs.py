"""A half table in the new movements (issue 37): one pair fewer than the movement holds makes the phantom, whose
opponents sit out the rounds it would have played; the table is told (the unit's message) and gets no assign,
and the pair plays fewer boards (its percentage is over the boards it played, as the EBU and the ACBL score a
sit-out in matchpoint pairs)."""
from bidwire_host.event import seating
from bidwire_host.event.model import new_event


def test_a_barometer_with_a_phantom_sits_its_opponents_out():
    ev = new_event("Barometer", {"type": "barometer", "tables": 4}, boards_per_round=1, pairs=7)  # pair 8 missing
    for r in range(1, 8):
        sits = seating.sit_outs(ev, r)
        assert len(sits) == 1 and len(seating.assignments(ev, r)) == 3
        assert sits[0]["text"].startswith(f"pair {sits[0]['pair']}: sit out round {r}")
    assert {s["pair"] for r in range(1, 8) for s in seating.sit_outs(ev, r)} == set(range(1, 8))  # each once


def test_an_arrow_switched_mitchell_with_a_phantom_sits_out_the_same_way():
    ev = new_event("One winner", {"type": "mitchell", "tables": 5, "arrow_switch": [5]}, boards_per_round=1, pairs=9)
    sits = [s for r in range(1, 6) for s in seating.sit_outs(ev, r)]
    assert [(s["round"], s["pair"]) for s in sits] == [(r, (5 - r) % 5 + 1) for r in range(1, 6)]  # each EW pair
    assert sits[-1]["text"] == "EW 1: sit out round 5"
