"""Declarer's Law 26 choice, recorded by the director (collector/decisions/leads.py): the choices the Law gives for
26 A and 26 B, one choice per alert, none after the opening lead, the command to the opening leader's unit, the
alert's lifecycle until the unit has it, and the audit list.

Board 1, dealer N: S's call out of rotation at N's turn, rejected by the director: N passes throughout, W declares
1S and N, S's partner, is on lead (laws.md §4.5).
"""
import pytest
from collector_kit import ApiClient, auction_end, board_start, hello, sync

from bidwire_host.server import create_app

KEY = "alert:T01:3:lead_restriction"


@pytest.fixture
def client(data):
    with ApiClient(create_app(data)) as c:
        yield c


def restriction(client, withdrawn):
    tokens = [f"S:1{withdrawn}", "!reject", "N:P", "E:P", "S:P", "W:1S", "N:P", "E:P", "S:P"]
    assert sync(client, [hello(1), board_start(2, 1), auction_end(3, 1, tokens)]).status_code == 200


def choose(client, choice, suit=None, **more):
    return client.post("/api/v1/leads", json={"alert": KEY, "choice": choice, "suit": suit, **more})


def lead_alert(client, state):
    return [a for a in client.get(f"/api/v1/queue?state={state}").json()["alerts"] if a["kind"] == "lead_restriction"]


@pytest.mark.parametrize("withdrawn, allowed, refused", [
    # 26 A: the withdrawn 1H named hearts: require or bar a heart, or waive; no other suit
    ("H", [("require", "H"), ("bar", "H"), ("waive", None)], [("bar", "S"), ("require", "C"), ("bar", None)]),
    # 26 B: the withdrawn 1NT named no suit: bar any one suit, or waive; never require
    ("NT", [("bar", "C"), ("bar", "D"), ("bar", "H"), ("bar", "S"), ("waive", None)],
     [("require", "H"), ("bar", None)]),
])
def test_the_page_offers_what_law_26_gives_declarer_and_nothing_else(client, withdrawn, allowed, refused):
    restriction(client, withdrawn)
    [alert] = lead_alert(client, "open")
    assert [tuple(c) for c in alert["lead_choices"]] == allowed and alert["seat"] == "N"
    for choice, suit in refused:
        r = choose(client, choice, suit)
        assert r.status_code == 400 and "Law 26" in r.json()["error"], r.text


def test_the_choice_goes_to_the_leaders_unit_and_the_alert_closes_once_it_has_it(client):
    restriction(client, "H")
    r = choose(client, "bar", "H", by="Ann (TD)")
    assert r.status_code == 201, r.text
    # the command, in the unit's next sync reply
    [cmd] = [c for c in sync(client, [], cmd_ack=0).json()["commands"] if c["type"] == "lead_choice"]
    assert {k: cmd[k] for k in ("board", "seat", "choice", "suit")} == {"board": 1, "seat": "N", "choice": "bar",
                                                                       "suit": "H"}
    [alert] = lead_alert(client, "open")  # on its way: still open, saying so
    assert alert["chosen"]["said"] == "N may not lead hearts" and alert["chosen"]["command"] == cmd["seq"]
    assert sync(client, [], cmd_ack=cmd["seq"]).status_code == 200  # the unit applied it
    assert lead_alert(client, "open") == []
    [closed] = lead_alert(client, "closed")
    assert closed["outcome"] == "declarer's choice: N may not lead hearts (shown at the table)"
    # declarer chooses once
    again = choose(client, "waive")
    assert again.status_code == 409 and "recorded already" in again.json()["error"]


def test_no_choice_after_the_opening_lead(client):
    restriction(client, "H")
    assert sync(client, [{"seq": 4, "type": "lead", "board": 1, "seat": "N", "suit": "C", "t": 1000}]).status_code \
        == 200
    r = choose(client, "require", "H")
    assert r.status_code == 409 and "opening lead was made" in r.json()["error"]
    assert [c for c in sync(client, [], cmd_ack=0).json()["commands"] if c["type"] == "lead_choice"] == []


def test_an_unknown_alert_is_refused(client):
    restriction(client, "H")
    r = client.post("/api/v1/leads", json={"alert": "alert:T01:2:lead_restriction", "choice": "waive"})
    assert r.status_code == 404


def test_the_audit_list_names_declarers_choice(client, data):
    from bidwire_host.collector.store import Store
    from bidwire_host.dashboard import queries

    restriction(client, "NT")
    assert choose(client, "bar", "S").status_code == 201
    store = Store(data)
    try:
        [row] = queries.audit(store.reader())
    finally:
        store.close()
    assert row["kind"] == "declarer's choice (Law 26)" and "N may not lead spades" in row["summary"]
