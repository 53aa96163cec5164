"""A call thought unusually long is marked on the director's page (issue 26, the tempo of every call): from the
event's `long_call_s`, 10 s when it names none. The unit's tempo is in tenths of a second."""
import re

import pytest
from collector_kit import ApiClient, board_start, query, sync

from bidwire_host.event import model as ev
from bidwire_host.event.model import EventError
from bidwire_host.server import create_app


def _calls(seq, tempos):
    out = []
    for i, (token, tempo) in enumerate(tempos):
        seat = token[0]
        out.append({"seq": seq + i, "type": "call", "board": 1, "input": token, "seat": seat, "verdict": "legal",
                    "law": 0, "alert": False, "tempo": tempo, "t": 1000})
    return out


def _page(data, long_call_s):
    event = ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2)
    event.long_call_s = long_call_s
    app = create_app(data, event=ev.to_dict(event), tables={"T01": 1, "T02": 2, "T03": 3}, director_password="pw")
    with ApiClient(app) as c:
        events = [board_start(1, 1, section="A", table=1, round=1, ns=1, ew=1)]
        events += _calls(2, [("N:1C", 42), ("E:P", 99), ("S:1H", 100), ("W:2S", 254)])
        assert sync(c, events).status_code == 200
        token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
        assert c.post("/login", data={"password": "pw", "csrf": token}, follow_redirects=False).status_code == 303
        [board] = query(data, "SELECT id FROM boards")
        return c.get(f"/director/boards/{board['id']}").text


def long_marked(page):
    return re.findall(r'<td data-call="(\w+)" class="[^"]*\blong\b', page)


def test_calls_from_ten_seconds_are_long_by_default(data):
    page = _page(data, None)
    assert long_marked(page) == ["1H", "2S"]  # 10.0 s and 25.4 s; 9.9 s is not
    assert "Long: 1♥ by S (10.0s), 2♠ by W (25.4s)" in page


def test_the_event_sets_its_own_threshold(data):
    page = _page(data, 20)
    assert long_marked(page) == ["2S"]
    assert "Long: 2♠ by W (25.4s)" in page


@pytest.mark.parametrize("bad", [0, 601, -5])
def test_a_threshold_out_of_bounds_is_refused(bad):
    data = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    data["long_call_s"] = bad
    with pytest.raises(EventError, match="long_call_s: a call's thinking time in whole seconds, 1 to 600"):
        ev.from_dict(data)
