"""What the public sees while boards are still in play, or embargoed by a sim's hub (issue 24 item 5; the club
side of issue 23's embargo; docs/collector.md "What the public sees").

On a real `bidwire serve` with a dealt 3-table Mitchell (3 rounds of 2 boards, every board at every table) and
signed syncs standing in for the units: publishing after round 1 is refused, then done with the director's
override (recorded); every public page and export is then fetched and holds no deal, traveller or score-card row
of any board, since every board still has tables to play it; the later rounds go on (no result held) and the
boards appear once played. With the event naming a sim on a real hub (PostgreSQL, two workers) that has not
released it, nothing of a sim board is public even with the whole session played and published; the director's
page shows the link; once the hub releases the sim, the boards are public.

A deal is looked for as the public diagram writes it ("North ♠ AKJ5 ♥ … ♣ …") and as PBN writes it; a
traveller or score-card row by its `data-board`. Each marker is first found on the scorer's own page, or in an
export after the release, so that the absence means something."""
import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from html import unescape
from pathlib import Path

import httpx2 as httpx
import pytest
from collector_proc import BIDWIRE, Collector, keyring, rows

sys.path.insert(0, str(Path(__file__).parents[1] / "host"))
from collector_kit import SECRETS, played, sync  # noqa: E402
from waiting import wait_until

DIRECTOR_PW = "director's own, long enough"
SCORER_PW = "scorer's own, long enough too"
UNITS = {1: "T01", 2: "T02", 3: "T03"}
BOARDS = range(1, 7)
SIM = "withheld-sim"


def make_event(tmp_path, sim=None):
    event = tmp_path / "event.json"
    done = subprocess.run([str(BIDWIRE), "event", "create", str(event), "--name", "Club pairs", "--movement",
                           "mitchell", "--tables", "3", "--boards-per-round", "2", "--deal", "--seed", "7"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    if sim:
        data = json.loads(event.read_text())
        data["sim"] = sim
        event.write_text(json.dumps(data))
    return event


def deals(tmp_path):
    """{board: the PBN deal "N:hand hand hand hand"} of the hand records `--deal` wrote beside the event."""
    text = (tmp_path / "event-hands.pbn").read_text()
    out, board = {}, None
    for tag, value in re.findall(r'\[(\w+) "([^"]*)"\]', text):
        if tag == "Board":
            board = int(value)
        elif tag == "Deal":
            out[board] = value
    assert sorted(out) == list(BOARDS), out
    return out


def diagram_text(deal):
    """North's hand as the public diagram shows it, tags stripped: 'North ♠ AKJ5 ♥ ... ♦ ... ♣ ...'."""
    first, _, hands = deal.partition(":")
    seats = "NESW"[("NESW".index(first)):] + "NESW"[:"NESW".index(first)]
    north = hands.split()[seats.index("N")].split(".")
    return "North " + " ".join(f"{sym} {h or '–'}" for sym, h in zip("♠♥♦♣", north, strict=True))


def text_of(html):
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def start(tmp_path, event):
    data = tmp_path / "data"
    data.mkdir()
    return Collector(data, keyring(data / "keyring.json", SECRETS), 0,
                     extra=("--event", str(event), "--tables", "T01=1,T02=2,T03=3"))


class Tables:
    """The three tables' units, as signed syncs: each plays its round's boards (1NT by the dealer, 7 tricks)."""

    def __init__(self, c):
        self.c, self.seq = c, dict.fromkeys(UNITS.values(), 1)

    def assign(self, unit, round_no):
        got = [x["command"] for x in self.c.api.get(f"/api/v1/units/{unit}/commands").json()["commands"]
               if x["command"]["type"] == "assign" and x["command"]["round"] == round_no]
        return got[0] if got else None

    def play_round(self, round_no):
        with httpx.Client(base_url=self.c.url, timeout=10) as client:
            for unit in UNITS.values():
                a = self.assign(unit, round_no)
                assert a is not None, f"round {round_no} was never sent to {unit}"
                for board in a["boards"]:
                    d = "NESW"[(board - 1) % 4]
                    seats = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
                    inputs = [f"{seats[0]}:1N"] + [f"{x}:P" for x in seats[1:]]
                    events = played(self.seq[unit], board, inputs, "1NT", d, 7, 90 if d in "NS" else -90,
                                    section=a["section"], table=a["table"], round=round_no, ns=a["ns"], ew=a["ew"],
                                    event=a["event"])
                    r = sync(client, events, unit=unit)
                    assert r.status_code == 200, r.text
                    self.seq[unit] += len(events)


def logged_in(url, password):
    client = httpx.Client(base_url=url, timeout=10)
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
    assert client.post("/login", data={"password": password, "csrf": token}).status_code == 303
    return client


def public_views(c):
    """Every public page and every export of the club: {name: text}."""
    out = {}
    with httpx.Client(base_url=c.url, timeout=10) as anyone:
        out["/results"] = anyone.get("/results").text
        for b in BOARDS:
            out[f"/results/boards/{b}"] = anyone.get(f"/results/boards/{b}").text
        for line in ("NS", "EW"):
            for pair in (1, 2, 3):
                out[f"/results/pairs/{line}/{pair}"] = anyone.get(f"/results/pairs/{line}/{pair}").text
    for fmt in ("pbn", "usebio"):
        out[f"export {fmt}"] = c.api.get(f"/api/v1/export/{fmt}").text
    for table in ("travellers", "scorecards"):
        out[f"export csv {table}"] = c.api.get(f"/api/v1/export/csv?table={table}").text
    cli = subprocess.run([str(BIDWIRE), "export", "--data", str(c.data), "--format", "pbn"], capture_output=True,
                         text=True)
    out["bidwire export"] = cli.stdout
    return out


def shown(views, board, deal):
    """Where anything of `board` shows: its deal (diagram or PBN), a traveller or score-card row, a board tag."""
    marks = (diagram_text(deal), deal, f'data-board="{board}"', f'[Board "{board}"]',
             f"<BOARD_NUMBER>{board}</BOARD_NUMBER>")
    found = [name for name, text in views.items() if any(m in text or m in text_of(text) for m in marks)]
    found += [name for name, text in views.items() if name.startswith("export csv")
              and any(line.split(",")[0].strip('"\ufeff') == str(board) for line in text.splitlines()[1:])
              and "travellers" in name]
    return found


@pytest.fixture
def passwords(monkeypatch):
    monkeypatch.setenv("BIDWIRE_DIRECTOR_PASSWORD", DIRECTOR_PW)
    monkeypatch.setenv("BIDWIRE_SCORER_PASSWORD", SCORER_PW)


def test_an_early_publication_needs_the_override_and_shows_no_board_still_in_play(tmp_path, passwords):
    event = make_event(tmp_path)
    hands = deals(tmp_path)
    with start(tmp_path, event) as c:
        tables = Tables(c)
        tables.play_round(1)
        # the scorer's publication after round 1 of 3, as it was made: refused, naming what is still to play
        scorer = logged_in(c.url, SCORER_PW)
        page = scorer.get("/scorer").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        for b in BOARDS:  # the markers are real: the scorer's page shows every deal
            assert diagram_text(hands[b]) in text_of(page), b
        r = scorer.post("/scorer/publish", data={"csrf": csrf, "minutes": "30", "override": "on"})
        assert r.status_code == 403 and "ask the director, who alone can publish early" in r.text, r.text
        scorer.close()
        r = c.api.post("/api/v1/publish", json={"minutes": 30})
        assert r.status_code == 409 and "12 results are still to be played" in r.json()["error"], r.text
        assert rows(c.data, "SELECT * FROM director_actions") == []
        r = c.api.post("/api/v1/publish", json={"minutes": 30, "override": True, "by": "Chief TD"})
        assert r.status_code == 201, r.text
        [action] = rows(c.data, "SELECT kind, by_whom, body FROM director_actions")
        body = json.loads(action["body"])
        assert (action["kind"], action["by_whom"], body["override"], len(body["early"])) == \
            ("publish", "Chief TD", True, 12)

        views = public_views(c)
        assert "Club pairs" in views["/results"] and "Ranking" in views["/results"]  # published: the page is there
        for b in BOARDS:
            assert shown(views, b, hands[b]) == [], (b, shown(views, b, hands[b]))

        # the rounds go on: nothing after the publication is held, and each board shows once every table has it
        tables.play_round(2)
        assert c.api.get("/api/v1/held").json()["held"] == []
        assert tables.assign("T01", 3) is not None  # round 3 was sent
        tables.play_round(3)
        assert c.api.get("/api/v1/held").json()["held"] == []
        views = public_views(c)
        for b in BOARDS:
            assert diagram_text(hands[b]) in text_of(views[f"/results/boards/{b}"]), b
            assert f'[Board "{b}"]' in views["export pbn"] and f'[Board "{b}"]' in views["bidwire export"]


def test_a_sims_boards_stay_off_every_public_page_and_export_until_the_hub_releases_them(tmp_path, hub,
                                                                                        passwords):
    with hub.organiser() as org:
        r = org.post("/api/v1/sims", json={"id": SIM, "name": "Withheld sim", "boards": list(BOARDS),
                                           "release_at": (datetime.now(UTC) + timedelta(days=1)).isoformat()})
        assert r.status_code == 201, r.text
        secret = org.post(f"/api/v1/sims/{SIM}/clubs", json={"id": "A", "name": "Club A"}).json()["secret"]
    data = tmp_path / "data"
    data.mkdir()
    for folder in (tmp_path, data):  # beside the event file and in the data directory
        (folder / "hub-secret").write_text(secret + "\n")
    event = make_event(tmp_path, {"hub": hub.url, "id": SIM, "club": "A", "secret_file": "hub-secret"})
    hands = deals(tmp_path)
    with Collector(data, keyring(data / "keyring.json", SECRETS), 0,
                   extra=("--event", str(event), "--tables", "T01=1,T02=2,T03=3")) as c:
        tables = Tables(c)
        for round_no in (1, 2, 3):
            tables.play_round(round_no)
        assert c.api.post("/api/v1/publish", json={"minutes": 30}).status_code == 201  # every table has played
        wait_until(lambda: c.api.get("/api/v1/hub").json()["backlog"] == 0, 60, 0.3, "every result at the hub")
        link = c.api.get("/api/v1/hub").json()
        assert (link["sim"], link["released"], link["backlog"]) == (SIM, False, 0), link
        director = logged_in(c.url, DIRECTOR_PW)
        page = director.get("/director").text
        assert "Hub link" in page and "not released" in page and 'id="hub-backlog">0<' in page, page[:2000]
        director.close()

        views = public_views(c)
        assert "Club pairs" in views["/results"]
        for b in BOARDS:
            assert shown(views, b, hands[b]) == [], (b, shown(views, b, hands[b]))

        with hub.organiser() as org:  # the organiser releases the sim
            org.patch(f"/api/v1/sims/{SIM}", json={"release_at": datetime.now(UTC).isoformat()}).raise_for_status()
        wait_until(lambda: c.api.get("/api/v1/hub").json()["released"], 60, 0.3, "the club to hear of the release")
        for b in BOARDS:
            r = httpx.get(f"{c.url}/results/boards/{b}", timeout=10)
            assert r.status_code == 200 and diagram_text(hands[b]) in text_of(r.text), b
        assert all(f'[Board "{b}"]' in c.api.get("/api/v1/export/pbn").text for b in BOARDS)
