"""Teams events end to end (issue 38): a 6-team Swiss of 4 matches and a 4-team round robin, each run by a real
`bidwire serve` from `bidwire event create`'s file and played by real virtual units (the firmware on MicroPython),
one a table. The collector pushes each match round to the units; the Swiss's next draw is made by the collector
from the standings and pushed by the director (the test) once the round is over.

Every board is 1NT by the dealer, and a team's pairs always take the same tricks when they declare (K below), so
on every board of a match the home team gains s(K[home]) - s(K[away]) at the two tables together, s(t) being
1NT's score making t tricks (90, 120, 150, 180 for 7-10: partscores, whatever the vulnerability). A difference of
30 is 1 IMP, 60 is 2, 90 is 3 (Law 78 B); a match is 4 boards (two halves of 2). VPs on the ACBL's 20-point scale
for 1-8 boards (bridgehands.com "Victory Points"): a margin of 0 is 10-10, 3-4 IMPs 12-8, 8-10 14-6, 11-13 15-5.
"""
import json
import re
import subprocess

import httpx2 as httpx
from collector_proc import BIDWIRE, Collector, keyring, rows
from table_play import play_rounds
from table_threads import run_tables
from test_collector_units import secret
from waiting import wait_until

SEATS = "NESW"

# The Swiss (6 teams, K: 1 takes 10 tricks, 2 and 3 take 9, 4 takes 8, 5 and 6 take 7), worked by hand:
# Match 1, the first draw (number order): 1 v 2 (+1 IMP a board: 4, 12-8), 3 v 4 (12-8), 5 v 6 (0: 10-10).
#   Standings 1 12, 3 12, 5 10, 6 10, 2 8, 4 8; ties not split (1 and 3, 2 and 4 alike in every tie-break; 5 and
#   6 drew): by team number. Draw: 1 meets 3; 5 has met 6: 5 meets 2; 6 meets 4.
# Match 2: 1 v 3 (+4: 12-8), 5 v 2 (-8: 6-14), 6 v 4 (-4: 8-12). 1 24, 2 22, 3 20, 4 20, 6 18, 5 16 (3 above 4:
#   their match). Draw: 1 has met 2 and 3: 1 v 4; 2 v 3 would leave 6 v 5, who have met: 2 v 6, 3 v 5.
# Match 3: 1 v 4 (+8: 14-6), 2 v 6 (+8: 14-6), 3 v 5 (+8: 14-6). 1 38, 2 36, 3 34, 4 26, 6 24, 5 22.
#   Draw: 1 has met 2, 3 and 4: 1 v 6; 2 v 3; 4 v 5.
# Match 4: 1 v 6 (+12: 15-5), 2 v 3 (0: 10-10), 4 v 5 (+4: 12-8). Final: 1 53, 2 46, 3 44, 4 38, 5 30, 6 29.
SWISS_K = {1: 10, 2: 9, 3: 9, 4: 8, 5: 7, 6: 7}
SWISS_DRAWS = {2: [[1, 3], [5, 2], [6, 4]], 3: [[1, 4], [2, 6], [3, 5]], 4: [[1, 6], [2, 3], [4, 5]]}
SWISS_FINAL = [("1", "1", "53.00"), ("2", "2", "46.00"), ("3", "3", "44.00"), ("4", "4", "38.00"),
               ("5", "5", "30.00"), ("6", "6", "29.00")]

# The round robin (4 teams, K: 10, 9, 8, 7), the Berger table's matches: 1 v 4 (+12: 15-5), 2 v 3 (+4: 12-8);
# 4 v 3 (-4: 8-12), 1 v 2 (+4: 12-8); 2 v 4 (+8: 14-6), 3 v 1 (-8: 6-14). 1 41, 2 34, 3 26, 4 19.
RR_K = {1: 10, 2: 9, 3: 8, 4: 7}
RR_FINAL = [("1", "1", "41.00"), ("2", "2", "34.00"), ("3", "3", "26.00"), ("4", "4", "19.00")]


def tricks(assign, board, k):
    """The tricks 1NT by the dealer takes: those of the team whose pair sits in the dealer's seat."""
    dealer = SEATS[(board - 1) % 4]
    return k[assign["ns"] if dealer in "NS" else assign["ew"]]


def play_event(tmp_path, collector, units, rounds, k, after_match=None, seated=lambda table, round_no: True,
               halves=2):
    """The units play every round as the collector assigns it (a table not `seated` in a round has no assign and
    waits); after each match (its second half, all tables done) `after_match(match)` runs once, before any unit
    goes on."""
    done = {"round": 0}

    def between():
        done["round"] += 1
        if done["round"] % halves == 0 and after_match is not None:
            after_match(done["round"] // halves)

    def play_table(table, finished):
        play_rounds(tmp_path, collector, units[table], table, rounds, lambda a, board: tricks(a, board, k), finished,
                    seated=lambda round_no: seated(table, round_no))

    run_tables(list(units), play_table, after_round=between)


def new_event(tmp_path, kind, teams, extra=()):
    event_file = tmp_path / "event.json"
    scale = () if kind == "knockout" else ("--vp-scale", "acbl20")  # a knock-out is won on IMPs
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", f"{kind} night", "--movement", kind,
                    "--teams", str(teams), "--boards-per-round", "2", *scale, *extra], check=True, capture_output=True)
    return event_file


def test_a_six_team_swiss_of_four_matches_is_drawn_round_by_round(tmp_path):
    event_file = new_event(tmp_path, "swiss-teams", 6, ("--rounds", "4"))
    units = {t: f"T{t:02d}" for t in range(1, 7)}
    ring = keyring(tmp_path / "keyring.json", {units[t]: secret(t) for t in units})
    tables = ",".join(f"{units[t]}={t}" for t in units)
    (tmp_path / "director-pw").write_text("swiss-director\n")
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", tables, "--method", "teams",
                                                 "--director-password-file", str(tmp_path / "director-pw")))
    pushed = {}

    def draw(match):
        if match == 4:
            return
        def over():  # the units' last syncs may still be on their way
            view = collector.api.get("/api/v1/teams").json()["sections"][0]
            return view if [m["over"] for m in view["matches"] if m["round"] == match] == [True] * 3 else None
        nxt = wait_until(over, 30, 0.2, f"match {match} over")["draw"]
        assert (nxt["round"], nxt["ready"], nxt["proposed"], nxt["bye"]) == (match + 1, True,
                                                                          SWISS_DRAWS[match + 1], None)
        if match == 2:  # the director's page: its Teams panel offers the rule's draw, pushed as it stands
            with httpx.Client(base_url=collector.url, timeout=30) as browser:
                browser.get("/login")
                assert browser.post("/login", data={"password": "swiss-director",
                                                    "csrf": browser.cookies.get("bidwire_login")}).status_code == 303
                page = browser.get("/director").text
                offered = re.search(r'name="matches"[^>]*value="([^"]*)"', page).group(1)
                assert offered == "1-4, 2-6, 3-5" and "Push match 3" in page
                csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
                r = browser.post("/director/draw", data={"csrf": csrf, "section": "A", "round": "3",
                                                         "matches": offered, "reason": ""}, follow_redirects=False)
                assert r.status_code == 303, r.text
            [row] = rows(tmp_path, "SELECT body FROM director_actions WHERE kind = 'draw' ORDER BY id DESC LIMIT 1")
            pushed[3] = json.loads(row["body"])
            return
        r = collector.api.post("/api/v1/teams/draw", json={"round": match + 1, "by": "director"})
        assert r.status_code == 201, r.text
        pushed[match + 1] = r.json()["action"]

    try:
        early = collector.api.post("/api/v1/teams/draw", json={"round": 2})
        assert early.status_code == 409 and "waits for" in early.json()["error"]  # match 1 not played yet
        play_event(tmp_path, collector, units, 8, SWISS_K, draw)
        assert [pushed[m]["matches"] for m in (2, 3, 4)] == [SWISS_DRAWS[m] for m in (2, 3, 4)]
        view = collector.api.get("/api/v1/teams").json()["sections"][0]
        assert [(s["team"], s["rank"], s["vps"]) for s in view["standings"]] == SWISS_FINAL
        met = [frozenset((m["home"], m["away"])) for m in view["matches"]]
        assert len(met) == 12 and len(set(met)) == 12  # no two teams met twice
        assert view["draw"] is None  # every round drawn
        # match 4's 1 v 6, board by board: +3 IMPs to team 1 on each of boards 13-16
        [last] = [m for m in view["matches"] if m["round"] == 4 and m["home"] == "1"]
        assert [(b["board"], b["home"]) for b in last["boards"]] == [(13, 3), (14, 3), (15, 3), (16, 3)]
        assert (last["imps"], last["vps"]) == ([12, 0], ["15.00", "5.00"])
        assigns = rows(tmp_path, "SELECT count(*) AS n FROM commands WHERE type = 'assign'")[0]["n"]
        assert assigns == 6 * 8
        # each match's tables are told the match as it begins: match 2's 5 v 2 at tables 3 (5's NS) and 4
        told = [json.loads(r["body"])["text"] for r in rows(tmp_path, "SELECT body FROM commands WHERE unit = 'T04' "
                                                                       "AND type = 'message' ORDER BY seq")]
        assert told == ["Match 1: Team 3 (home) v Team 4", "Match 2: Team 5 (home) v Team 2",
                        "Match 3: Team 2 (home) v Team 6", "Match 4: Team 2 (home) v Team 3"]
        # the public page, once published: the standings in VPs and each match round's matches
        assert collector.api.post("/api/v1/publish", json={}).status_code == 201
        page = httpx.get(collector.url + "/results", timeout=30).text
        assert "Swiss teams" in page and "Match 4" in page and "53.00" in page and "Team 6" in page
        decided = rows(tmp_path, "SELECT by_whom FROM director_actions WHERE kind = 'draw' ORDER BY id")
        assert [d["by_whom"] for d in decided] == ["director"] * 3  # each draw recorded as the director's
    finally:
        collector.stop()


def test_a_four_team_round_robin_is_played_and_ranked_in_vps(tmp_path):
    event_file = new_event(tmp_path, "round-robin", 4)
    event = json.loads(event_file.read_text())
    event["evening"] = {"match_scores": True}  # each match's tables are shown its score once both have finished
    event_file.write_text(json.dumps(event))
    units = {t: f"T{t:02d}" for t in range(1, 5)}
    ring = keyring(tmp_path / "keyring.json", {units[t]: secret(t) for t in units})
    tables = ",".join(f"{units[t]}={t}" for t in units)
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", tables, "--method", "teams"))
    try:
        play_event(tmp_path, collector, units, 6, RR_K)
        view = wait_until(lambda: (lambda v: v if all(m["over"] for m in v["matches"]) else None)(
            collector.api.get("/api/v1/teams").json()["sections"][0]), 30, 0.2, "every match over")
        assert [(m["round"], m["home"], m["away"], m["vps"]) for m in view["matches"]] == [
            (1, "1", "4", ["15.00", "5.00"]), (1, "2", "3", ["12.00", "8.00"]),
            (2, "4", "3", ["8.00", "12.00"]), (2, "1", "2", ["12.00", "8.00"]),
            (3, "2", "4", ["14.00", "6.00"]), (3, "3", "1", ["6.00", "14.00"])]
        assert [(s["team"], s["rank"], s["vps"]) for s in view["standings"]] == RR_FINAL
        told = {u: [json.loads(r["body"])["text"] for r in rows(tmp_path, "SELECT body FROM commands WHERE unit = ? "
                                                                        "AND type = 'message' ORDER BY seq", u)]
                for u in ("T01", "T02")}
        # tables 1 and 2: 1 v 4, 4 v 3 (4 home), 2 v 4; each told as the match begins and once it is over
        assert told["T01"] == told["T02"] == [
            "Match 1: Team 1 (home) v Team 4", "Match 1 over: home 12-0 IMPs, VPs 15.00-5.00",
            "Match 2: Team 4 (home) v Team 3", "Match 2 over: home 0-4 IMPs, VPs 8.00-12.00",
            "Match 3: Team 2 (home) v Team 4", "Match 3 over: home 8-0 IMPs, VPs 14.00-6.00"]
    finally:
        collector.stop()


def test_a_knockout_with_a_carry_over_goes_to_its_final(tmp_path):
    """A 4-team knock-out: the seeded bracket's first stage (1 v 4, 2 v 3), team 4 carrying 13 IMPs into its match
    (the event's carry_over). K as the round robin's: 1 beats 4 by 12 IMPs at the table (+3 a board), so 4 goes
    through 13-12 on the carry-over; 2 beats 3 by 4. The final the collector draws: 2 (the better seed, home) v
    4, won by 2 by 8. Places: 2 the winner, 4 lost the final, 1 and 3 share third."""
    event_file = new_event(tmp_path, "knockout", 4)
    event = json.loads(event_file.read_text())
    event["sessions"][0]["sections"][0]["carry_over"] = [{"stage": 1, "team": 4, "imps": 13}]
    event_file.write_text(json.dumps(event))
    units = {t: f"T{t:02d}" for t in range(1, 5)}
    ring = keyring(tmp_path / "keyring.json", {units[t]: secret(t) for t in units})
    tables = ",".join(f"{units[t]}={t}" for t in units)
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", tables, "--method", "teams"))

    def final(stage):
        if stage == 2:
            return

        def over():
            view = collector.api.get("/api/v1/teams").json()["sections"][0]
            return view if view["draw"] and view["draw"]["ready"] else None
        nxt = wait_until(over, 30, 0.2, "stage 1 over")["draw"]
        assert nxt["proposed"] == [[2, 4]]
        assert collector.api.post("/api/v1/teams/draw", json={"by": "director"}).status_code == 201

    try:
        play_event(tmp_path, collector, units, 4, RR_K, final, seated=lambda table, r: r <= 2 or table <= 2)
        view = wait_until(lambda: (lambda v: v if all(m["over"] for m in v["matches"]) and len(v["matches"]) == 3
                                   else None)(collector.api.get("/api/v1/teams").json()["sections"][0]),
                          30, 0.2, "the final over")
        assert [(m["round"], m["home"], m["away"], m["imps"], m["carry"], m["winner"]) for m in view["matches"]] == [
            (1, "1", "4", [12, 13], [0, 13], "4"), (1, "2", "3", [4, 0], None, "2"), (2, "2", "4", [8, 0], None, "2")]
        assert [(s["rank"], s["team"], s["how"]) for s in view["standings"]] == [
            ("1", "2", "winner"), ("2", "4", "lost the final"), ("3=", "1", "lost in stage 1"),
            ("3=", "3", "lost in stage 1")]
    finally:
        collector.stop()


# The Swiss pairs (4 pairs, 3 matches of 2 boards, each board scored across the field in Butler IMPs: the datum the
# mean of its two NS scores rounded to 10, halves away from nothing; a match's margin the NS pair's IMPs less the EW
# pair's). The declarer's pair takes K tricks: 1 10, 2 8, 3 8, 4 9. Match 1 (1 v 2, 3 v 4; boards 1 N, 2 E):
#   board 1 180 and 120, datum 150: +1 and -1; board 2 -120 and -150, datum -140: +1 and 0. 1 v 2: 2 + 2 = 4 IMPs:
#   12-8; 3 v 4: -2 + 0 = -2: 9-11. Standings 1 12, 4 11, 3 9, 2 8: 1 meets 4, 3 meets 2.
# Match 2 (boards 3 S, 4 W): 180 and 120, datum 150: +1, -1; -150 and -120, datum -140: 0, +1. 1 v 4 +2: 11-9;
#   3 v 2 0: 10-10. Standings 1 23, 4 20, 3 19, 2 18: 1 meets 3 (it has met 4), 4 meets 2.
# Match 3 (boards 5 N, 6 E): 180 and 150, datum 170: 0, -1; -120 and -120: 0, 0. 1 v 3 0: 10-10; 4 v 2 -2: 9-11.
# Final: 1 33; 2, 3 and 4 29 each, and every one of them has met the others: their matches among themselves, 2 21
#   (10 + 11), 4 20 (11 + 9), 3 19 (9 + 10).
PAIRS_K = {1: 10, 2: 8, 3: 8, 4: 9}
PAIRS_DRAWS = {2: [[1, 4], [3, 2]], 3: [[1, 3], [4, 2]]}
PAIRS_FINAL = [("1", "1", "33.00"), ("2", "2", "29.00"), ("4", "3", "29.00"), ("3", "4", "29.00")]


def test_a_swiss_pairs_is_scored_across_the_field_and_drawn(tmp_path):
    event_file = tmp_path / "event.json"
    subprocess.run([str(BIDWIRE), "event", "create", str(event_file), "--name", "Swiss pairs", "--movement",
                    "swiss-pairs", "--pairs", "4", "--rounds", "3", "--boards-per-round", "2", "--vp-scale", "acbl20"],
                   check=True, capture_output=True)
    units = {t: f"T{t:02d}" for t in range(1, 3)}
    ring = keyring(tmp_path / "keyring.json", {units[t]: secret(t) for t in units})
    tables = ",".join(f"{units[t]}={t}" for t in units)
    collector = Collector(tmp_path, ring, extra=("--event", str(event_file), "--tables", tables, "--method", "butler"))

    def draw(match):
        if match == 3:
            return

        def over():
            view = collector.api.get("/api/v1/teams").json()["sections"][0]
            return view if view["draw"] and view["draw"]["ready"] else None
        nxt = wait_until(over, 30, 0.2, f"match {match} over")["draw"]
        assert nxt["proposed"] == PAIRS_DRAWS[match + 1]
        assert collector.api.post("/api/v1/teams/draw", json={"by": "director"}).status_code == 201

    try:
        play_event(tmp_path, collector, units, 3, PAIRS_K, draw, halves=1)
        view = wait_until(lambda: (lambda v: v if len(v["matches"]) == 6 and all(m["over"] for m in v["matches"])
                                   else None)(collector.api.get("/api/v1/teams").json()["sections"][0]),
                          30, 0.2, "every match over")
        assert [(m["round"], m["home"], m["away"], m["vps"]) for m in view["matches"]] == [
            (1, "1", "2", ["12.00", "8.00"]), (1, "3", "4", ["9.00", "11.00"]),
            (2, "1", "4", ["11.00", "9.00"]), (2, "3", "2", ["10.00", "10.00"]),
            (3, "1", "3", ["10.00", "10.00"]), (3, "4", "2", ["9.00", "11.00"])]
        assert [(s["team"], s["rank"], s["vps"]) for s in view["standings"]] == PAIRS_FINAL
    finally:
        collector.stop()
