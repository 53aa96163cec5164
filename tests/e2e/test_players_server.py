"""Players' names on the real server (issue 14, item 1): `bidwire players import` records a register beside the
event file, `bidwire serve --event` loads it (names from numbers, numbers from names), three tables report a
3-round Mitchell over real HTTP with signed bodies, and the ranking, the PBN (read back by endplay, an
independent reader), the CSV and the public results name the players the test's own files give; the director's
fix from the pairs page (login, CSRF) renames a pair in the PBN at once."""
import csv
import hashlib
import hmac
import io
import json
import re
import subprocess

import httpx2 as httpx
from collector_proc import BIDWIRE, Collector, keyring
from endplay.parsers import pbn as endplay_pbn

from bidwire.core import readback, record
from bidwire.core.auction import Auction
from bidwire_host.event import analysis
from bidwire_host.event import model as ev
from bidwire_host.scoring.model import law77_score

SECRETS = {"T01": "5a" * 32, "T02": "a5" * 32, "T03": "3c" * 32}
PASSWORD = "heron-amber-61"
REGISTER = "Membership number,Name\r\n501,Ann Smith\r\n502,Bob Jones\r\n503,Cat Lee\r\n504,Dan Roe\r\n"
GIVEN = {("NS", 1): [{"id": 501}, {"id": 502}], ("NS", 2): [{"name": "Cat Lee"}, {"name": "Dan Roe"}],
         ("NS", 3): [{"name": "Eve Ng"}, {"name": "Fay Orr"}], ("EW", 1): [{"name": "Gus Pry"}, {"name": "Hal Quin"}],
         ("EW", 2): [{"name": "Ida Ray"}, {"name": "Jo Sim"}], ("EW", 3): [{"name": "Kit Tate"}, {"name": "Lou Vance"}]}
NAMES = {("NS", "1"): "Ann Smith - Bob Jones", ("NS", "2"): "Cat Lee - Dan Roe", ("NS", "3"): "Eve Ng - Fay Orr",
         ("EW", "1"): "Gus Pry - Hal Quin", ("EW", "2"): "Ida Ray - Jo Sim", ("EW", "3"): "Kit Tate - Lou Vance"}


def sync(c, unit, events, cmd_ack):
    raw = json.dumps({"unit": unit, "boot": 1, "cmd_ack": cmd_ack, "events": events}).encode()
    sig = hmac.new(bytes.fromhex(SECRETS[unit]), raw, hashlib.sha256).hexdigest()
    r = httpx.post(c.url + "/api/v1/sync", content=raw, headers={"X-Bidwire-Signature": sig}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def one_notrump(seq, board, a, tricks):
    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
    vul = ("None", "NS", "EW", "Both", "NS", "EW")[board - 1]  # Law 2, boards 1-6
    where = {k: a[k] for k in ("section", "table", "round", "ns", "ew", "event")}  # as the unit copies its assign
    inputs = [f"{seats[0]}:1N"] + [f"{s}:P" for s in seats[1:]]
    auction = Auction("NESW".index(seats[0]))
    for token in inputs:
        readback.apply(auction, token)
    return [{"seq": seq, "type": "board_start", "board": board, "dealer": seats[0], "vul": vul, **where, "t": 1},
            {"seq": seq + 1, "type": "auction_end", "board": board, "inputs": inputs,
             "auction": record.summary(auction)["auction"], "contract": "1NT", "declarer": seats[0], "t": 2},
            {"seq": seq + 2, "type": "result", "board": board, "contract": "1NT", "declarer": seats[0],
             "tricks": tricks, "score_ns": law77_score(board, "1NT", seats[0], tricks), "t": 3}]


def endplay_games(text):
    """Each game of an export read by endplay on its own (endplay folds games of one board into one Board)."""
    return [endplay_pbn.loads(game)[0] for game in re.split(r"\r\n\r\n(?=\[Event )", text)]


def test_names_from_the_register_reach_the_ranking_the_pbn_the_csv_and_the_public_page(tmp_path):
    event = tmp_path / "event"
    event.mkdir()
    (event / "hands.pbn").write_text(analysis.deal_session(range(1, 7), 14), encoding="utf-8")  # endplay needs deals
    data = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2,
                                   hand_records="hands.pbn"))
    for pair in data["sessions"][0]["sections"][0]["pairs"]:
        pair["players"] = GIVEN[pair["line"], pair["number"]]
    (event / "event.json").write_text(json.dumps(data), encoding="utf-8")
    (event / "members.csv").write_bytes(b"\xef\xbb\xbf" + REGISTER.encode("utf-8"))
    out = subprocess.run([str(BIDWIRE), "players", "import", str(event / "members.csv"), "--event",
                          str(event / "event.json")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    (tmp_path / "pw").write_text(PASSWORD)
    store = tmp_path / "data"
    store.mkdir()
    with Collector(store, keyring(store / "keyring.json", SECRETS),
                   extra=("--event", str(event / "event.json"), "--tables", "T01=1,T02=2,T03=3",
                          "--director-password-file", str(tmp_path / "pw"))) as c:
        acks, seqs = dict.fromkeys(SECRETS, 0), dict.fromkeys(SECRETS, 1)
        for rnd in (1, 2, 3):
            for unit in SECRETS:
                reply = sync(c, unit, [], acks[unit])
                [a] = [cmd for cmd in reply["commands"] if cmd["type"] == "assign" and cmd["round"] == rnd]
                acks[unit] = a["seq"]
                for board in a["boards"]:
                    sync(c, unit, one_notrump(seqs[unit], board, a, 7 + (board + a["table"]) % 3), acks[unit])
                    seqs[unit] += 3
        ranking = c.api.get("/api/v1/ranking").json()["ranking"]
        assert {(r["direction"], r["pair"]): r["names"] for r in ranking} == NAMES
        assert [p["id"] for r in ranking if (r["direction"], r["pair"]) == ("NS", "1") for p in r["players"]] == \
            [501, 502]
        boards = endplay_games(c.api.get("/api/v1/export/pbn").text)
        assert len(boards) == 18
        for b in boards:
            ns, ew = NAMES["NS", b.info["PairNS"]].split(" - "), NAMES["EW", b.info["PairEW"]].split(" - ")
            assert [b.info[k] for k in ("North", "South", "East", "West")] == ns + ew
        rows = list(csv.DictReader(io.StringIO(c.api.get("/api/v1/export/csv", params={"table": "ranking"})
                                               .content.decode("utf-8-sig"), newline="")))
        assert {(r["direction"], r["pair"]): r["name"] for r in rows} == NAMES
        assert c.api.post("/api/v1/publish", json={"minutes": 30}).status_code == 201
        public = httpx.get(c.url + "/results", timeout=10).text
        on_page = [name.replace(" - ", " &amp; ") for name in NAMES.values()]  # the pages write "A & B"
        assert all(f'<span class="names">{name}</span>' in public for name in on_page)

        with httpx.Client(base_url=c.url, timeout=10) as director:
            token = re.search(r'name="csrf" value="([^"]+)"', director.get("/login").text).group(1)
            assert director.post("/login", data={"password": PASSWORD, "csrf": token}).status_code == 303
            page = director.get("/director/pairs").text
            csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
            r = director.post("/director/players", data={
                "csrf": csrf, "idem": "fix-1", "section": "A", "direction": "NS", "pair": "3", "name0": "Eve Ng",
                "name1": "Max Zed", "id1": "777", "reason": "Fay Orr went home"})
            assert r.status_code == 303 and "Players of NS 3 recorded" in director.get(r.headers["location"]).text
        boards = endplay_games(c.api.get("/api/v1/export/pbn").text)
        renamed = {(b.info["North"], b.info["South"]) for b in boards if b.info["PairNS"] == "3"}
        assert renamed == {("Eve Ng", "Max Zed")}
        [fix] = c.rows("SELECT by_whom, body FROM director_actions WHERE kind = 'players'")
        assert fix["by_whom"] == "director"
        assert json.loads(fix["body"])["before"] == [{"name": "Eve Ng", "id": None}, {"name": "Fay Orr", "id": None}]
