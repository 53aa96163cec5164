"""The night that does not go to plan (issue 36; docs/director.md "The night that does not go to plan"), end to end:
a real `bidwire serve`, virtual units on the frozen 32-bit device model, and the director's page in chromium at a
laptop's 1366 px and a phone's 390 px.

A 3-table Mitchell, 2 boards a round (NS stay, EW up one table, boards down one table), the event asking each side to
confirm who sits there (evening.confirm_pairs):
  round 1: table 1 boards 1-2 NS1-EW1, table 2 boards 3-4 NS2-EW2, table 3 boards 5-6 NS3-EW3
  round 2: table 1 boards 3-4 NS1-EW3, table 2 boards 5-6 NS2-EW1, table 3 boards 1-2 NS3-EW2
  round 3: table 1 boards 5-6 NS1-EW2, table 2 boards 1-2 NS2-EW3, table 3 boards 3-4 NS3-EW1
What goes wrong, and what the director does:
  round 1: EW 3 sits at table 2 and EW 2 at table 3 (each side says so at the round's start): two alerts, and the
           director records who sat from them; table 2 does not play board 4: "Not played" (A/A, Law 12 C).
  round 2: table 1 does not play board 4: "Play late" at table 3, whose unit plays it after its round; table 2's
           unit dies after board 5: the director gives table 2 to the spare T09, which plays board 6 alone.
  round 3: table 1's unit never reports board 6: the director enters it from the paper traveller.
Every contract is 1NT by the dealer; the scores are Law 77's (1NT making 7 is 90, 8 is 120).
"""
import json
import subprocess
import time

import pytest
from collector_proc import BIDWIRE, Collector, keyring
from test_collector_units import board_lines, play, secret
from test_dashboard import PASSWORD, SHOTS, browser, chromium_installed, log_in  # noqa: F401 (fixtures)
from vunit import VUnit, write_config

LAPTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
UNITS = {"T01": 1, "T02": 2, "T03": 3, "T09": 9}




@pytest.fixture
def collector(tmp_path, monkeypatch):
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", PASSWORD)
    event = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event), "--name", "Tuesday pairs", "--movement", "mitchell",
                    "--tables", "3", "--boards-per-round", "2"], check=True, capture_output=True)
    data = json.loads(event.read_text())
    data["evening"] = {"confirm_pairs": True, "not_played": ["A", "A"]}
    event.write_text(json.dumps(data))
    home = tmp_path / "collector"
    home.mkdir()
    c = Collector(home, keyring(home / "keyring.json", {u: secret(i) for u, i in UNITS.items()}),
                  extra=("--event", str(event), "--tables", "T01=1,T02=2,T03=3"))
    yield c
    c.stop()


def unit(tmp_path, collector, name):
    (tmp_path / name).mkdir()
    return VUnit(write_config(tmp_path / name / "unit.json", tmp_path / name / "state", collector.url, unit=name,
                              secret=secret(UNITS[name])))


def synced_until(u, found, what, tries=150):
    """Ask the unit to sync, a fifth of a second apart, until `found()` gives something; that. A count of tries, not
    a clock: what is checked is whether it came at all."""
    for _ in range(tries):
        got = found()
        if got:
            return got
        u.write("sync 1000")
        time.sleep(0.2)
    raise AssertionError(f"{what} after {tries} syncs")


def assign_on(collector, u, name, round_no, late=False):
    """Sync the unit until it has applied its assign of `round_no` (a late one if `late`); that command."""
    def applied():
        listing = collector.api.get(f"/api/v1/units/{name}/commands").json()["commands"]
        return [c["command"] for c in listing if c["command"]["type"] == "assign" and c["applied"]
                and c["command"]["round"] == round_no and bool(c["command"].get("late")) == late]
    return synced_until(u, applied, f"{name}: no assign of round {round_no} applied")[-1]


def seats_confirmed(u, ew_pair=None):
    """Each side's answer at the round's start: NS is the pair shown; EW too, or says it is `ew_pair`."""
    u.frame_until(lambda f: f[0].startswith("R") and "who is" in f[0])
    u.send("N PASS")
    for line in (["E PASS"] if ew_pair is None else ["E X", *[f"E {d}" for d in str(ew_pair)], "E PASS"]):
        u.send(line)


def boards(u, *played):
    for board, tricks in played:
        play(u, board_lines(board, tricks))
    u.write("sync 10000")


def rows(collector, board):
    return {r["table"]: r for r in collector.api.get(f"/api/v1/travellers/{board}").json()["rows"]}


def test_a_night_that_does_not_go_to_plan_is_run_from_the_directors_page(tmp_path, collector, browser):  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    laptop = browser.new_page(viewport=LAPTOP)
    log_in(laptop, collector.url)
    laptop.wait_for_url("**/director")
    phone = browser.new_page(viewport=PHONE)
    log_in(phone, collector.url)
    phone.wait_for_url("**/director")
    t1, t2, t3 = (unit(tmp_path, collector, n) for n in ("T01", "T02", "T03"))
    t9 = None
    try:
        # ---- round 1 ----------------------------------------------------------------------------------------
        for u, name in ((t1, "T01"), (t2, "T02"), (t3, "T03")):
            a = assign_on(collector, u, name, 1)
            assert a["confirm"] is True
        seats_confirmed(t1)
        boards(t1, (1, 7), (2, 8))
        seats_confirmed(t2, ew_pair=3)  # EW 3 sat down at table 2
        boards(t2, (3, 7))  # board 4 is not played: the table is slow
        seats_confirmed(t3, ew_pair=2)  # and EW 2 at table 3
        boards(t3, (5, 7), (6, 7))
        laptop.reload()
        for table, pair in ((2, 3), (3, 2)):
            alert = laptop.locator("article.alert.open", has_text=f"table {table} EW: pair {table} expected, pair "
                                                                  f"{pair} confirmed")
            alert.wait_for(timeout=15000)
            assert alert.locator("input[name=ew]").input_value() == str(pair)
            if table == 2:
                laptop.screenshot(path=str(SHOTS / "director-wrong-pair.png"), full_page=True)
            alert.get_by_role("button", name="Record who sat").click()
            laptop.wait_for_url("**/director?done=seated*")
        why = laptop.locator("#round-A .round-why").inner_text()
        assert "Round 2 has not started" in why and "table 2: board 4" in why, why
        assert laptop.evaluate("document.documentElement.scrollWidth") <= LAPTOP["width"]
        laptop.screenshot(path=str(SHOTS / "director-rounds.png"), full_page=True)
        laptop.get_by_role("button", name="Board 4 at table 2 not played: A/A").click()
        laptop.wait_for_url("**/director?done=adjust*")

        # ---- round 2 ----------------------------------------------------------------------------------------
        for u, name in ((t1, "T01"), (t2, "T02"), (t3, "T03")):
            assign_on(collector, u, name, 2)  # table 2 moves on from board 4's start: the round goes on
        seats_confirmed(t1)
        boards(t1, (3, 8))  # board 4 not played in time
        seats_confirmed(t2)
        boards(t2, (5, 8))
        synced_until(t2, lambda: 2 in rows(collector, 5), "T02's board 5 never arrived")  # it reached the collector
        t2.kill()  # then the battery dies
        laptop.goto(collector.url + "/director")  # table 1's board 4 is played late, at table 3
        laptop.locator("#late-table").fill("1")
        laptop.locator("#late-board").fill("4")
        laptop.locator("#late-at").fill("3")
        laptop.get_by_role("button", name="Send it to that table").click()
        laptop.wait_for_url("**/director?done=late*")
        phone.reload()
        phone.locator("#give-unit").fill("T09")
        phone.locator("#give-table").fill("2")
        phone.locator("#give-reason").fill("T02's battery died")
        phone.get_by_role("button", name="Give the table").click()
        phone.wait_for_url("**/director?done=table*")
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        phone.screenshot(path=str(SHOTS / "director-spare-phone.png"), full_page=True)
        t9 = unit(tmp_path, collector, "T09")
        a = assign_on(collector, t9, "T09", 2)
        assert (a["table"], a["boards"]) == (2, [6])  # board 5 of the round is stored already: not played again
        seats_confirmed(t9)
        boards(t9, (6, 7))
        seats_confirmed(t3)
        boards(t3, (1, 8), (2, 7))
        late = assign_on(collector, t3, "T03", 2, late=True)
        assert (late["table"], late["boards"], str(late["ns"]), str(late["ew"])) == (1, [4], "1", "3")
        t3.frame_until(lambda f: "LATE" in f[1])
        boards(t3, (4, 7))  # played late, for table 1 of round 2

        # ---- round 3 ----------------------------------------------------------------------------------------
        for u, name in ((t1, "T01"), (t9, "T09"), (t3, "T03")):
            assign_on(collector, u, name, 3)
        seats_confirmed(t1)
        boards(t1, (5, 7))  # board 6 is played on paper: the unit never reports it
        seats_confirmed(t9)
        boards(t9, (1, 7), (2, 7))
        seats_confirmed(t3)
        boards(t3, (3, 7), (4, 8))
        phone.goto(collector.url + "/director")
        phone.locator("#res-table").fill("1")
        phone.locator("#res-board").fill("6")
        phone.locator("#res-contract").fill("1NT")
        phone.locator("#res-declarer").select_option("E")
        phone.locator("#res-tricks").fill("8")
        phone.locator("#res-reason").fill("T01 never reported board 6: the paper traveller")
        phone.get_by_role("button", name="Enter result").click()
        phone.wait_for_url("**/director?done=result*")
        laptop.goto(collector.url + "/director")
        laptop.screenshot(path=str(SHOTS / "director-night-end.png"), full_page=True)
        audit = laptop.locator("#audit-table tbody").inner_text()
        for said in ("who sat", "not played", "late play", "table given", "result entered"):
            assert said in audit, (said, audit)
    finally:
        for u in (t1, t3, t9):
            if u is not None:
                u.write("sync 10000")
                u.finish()

    # ---- the scores follow what happened ------------------------------------------------------------------------
    assert collector.api.get("/api/v1/held").json()["held"] == []
    b3, b5 = rows(collector, 3), rows(collector, 5)
    assert (b3[2]["ns"], b3[2]["ew"]) == ("2", "3")  # who sat at table 2 in round 1, not the movement's EW 2
    assert (b5[3]["ns"], b5[3]["ew"]) == ("3", "2")
    b4 = rows(collector, 4)
    assert b4[2]["adjusted"] == "A/A"  # not played at table 2 (Law 12 C)
    assert (b4[1]["ns"], b4[1]["ew"], b4[1]["score_ns"]) == ("1", "3", -90)  # played late at table 3: W 1NT, 7
    assert (b4[3]["ns"], b4[3]["ew"], b4[3]["score_ns"]) == ("3", "1", -120)
    b6 = rows(collector, 6)
    assert b6[2]["score_ns"] == -90  # played on the spare: E 1NT making 7
    assert b6[1]["entered"]["by"] == "director" and b6[1]["score_ns"] == -120  # entered: E 1NT making 8
    ranked = {(r["direction"], str(r["pair"])): r["boards"] for r in collector.api.get("/api/v1/ranking").json()[
        "ranking"]}
    # the swap of round 1 had EW 3 play boards 3-4 twice (at table 2, then at table 1 as the movement says) and EW 2
    # play 5-6 twice: Law 15 B is the director's to rule on; the ranking credits each result to who played it
    assert set(ranked) == {(d, p) for d in ("NS", "EW") for p in ("1", "2", "3")}, ranked
    assert all(n == 6 for n in ranked.values()), ranked  # six results each, two a round
