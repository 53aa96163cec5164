"""The director page's pure helpers (dashboard/queries.py): the bidding diagram's layout and late tables."""
from bidwire_host.dashboard import queries


def call(seat, c, irregular=None):
    return {"seat": seat, "call": c, "text": queries.call_text(c), "irregular": irregular}


def test_the_diagram_starts_at_the_dealer_and_wraps_in_w_n_e_s_order():
    made = [call("N", "1C"), call("E", "P"), call("S", "1H"), call("W", "1S"), call("N", "2H")]
    d = queries.diagram("N", made)
    assert [[c and c["text"] for c in row] for row in d["rows"]] == [
        [None, "1♣", "Pass", "1♥"], ["1♠", "2♥", None, None]]
    assert d["dealer"] == "N" and not d["empty"]


def test_a_call_out_of_rotation_goes_to_its_seat_on_a_new_row():
    d = queries.diagram("S", [call("S", "1NT"), call("N", "2C", "out_of_rotation")])
    rows = [[c and c["call"] for c in row] for row in d["rows"]]
    assert rows == [[None, None, None, "1NT"], [None, "2C", None, None]]
    assert queries.diagram("W", [])["empty"] is True


def test_late_tables():
    assert queries.lateness("bidding", 3, 1) is None
    assert "over" in queries.lateness("done", queries.ROUND_MINUTES + 1, 0)
    assert "nothing for" in queries.lateness("play", 2, queries.IDLE_MINUTES + 1)
    assert queries.lateness("done", 2, queries.IDLE_MINUTES + 10) is None  # waiting for the next round
