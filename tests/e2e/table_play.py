"""A virtual unit at its table for a whole session, as the end-to-end tests of the club's week play it: it syncs
until the collector has given it the round's assign, plays every board of it (1NT by the dealer, the tricks the
test says), sends the results and waits for the other tables (tests/table_threads.py's barrier)."""
from table_threads import await_assign
from test_collector_units import board_lines, play, unit_config
from vunit import VUnit


def play_rounds(tmp_path, collector, unit, index, rounds, tricks, finished, seated=lambda round_no: True,
                on_assign=lambda assign: None):
    """The unit `unit` (its secret the test's `secret(index)`) plays rounds 1 to `rounds`: `tricks(assign, board)`
    the tricks 1NT by the dealer takes; a round it is not `seated` in it only waits; `on_assign(assign)` looks at
    each round's assign first."""
    u = VUnit(unit_config(tmp_path, collector, unit, index))
    for round_no in range(1, rounds + 1):
        if not seated(round_no):
            finished.wait()
            continue
        a = await_assign(u, collector, unit, round_no)
        on_assign(a)
        for board in a["boards"]:
            play(u, board_lines(board, tricks(a, board)))
        u.write("sync 10000")
        finished.wait()
    u.write("sync 10000")
    assert u.finish() == 0

