"""Flow 3 of the hub: a club that does not use bidwire uploads its heat as a USEBIO file, by the API (signed as an
upload is) or by the page form (club id and secret). Both layouts are read: PARTICIPANTS and BOARD under EVENT
(the ABF's importer reads that; the EBU's writer writes it), and under EVENT/SESSION/SECTION (bidwire's own
export, written here by bidwire's own writer). A re-upload replaces, never duplicates.

The files are written by hand in the forms other programs use (a doubled contract as "4S*", a declarer as
"North", tricks against the contract), and the figures are worked by hand, as in test_hub_flows.py.
"""
from datetime import UTC, datetime, timedelta

import httpx2 as httpx
import pytest
from hubkit import PASSWORD, played, post_upload, upload_body
from waiting import wait_until

from bidwire_host import signing
from bidwire_host.formats import usebio
from bidwire_host.formats.publish import EventInfo, publication
from bidwire_host.scoring import Result

SOON = (datetime.now(UTC) + timedelta(days=1)).isoformat()

# Club A (bidwire, JSON uploads): the same heat as test_hub_flows.py's CLUB_A.
CLUB_A = [played("A", 1, "1", "1", "4S", "N", 10, 420), played("A", 1, "2", "2", "4S", "N", 9, -50),
          played("A", 2, "1", "1", "2H", "S", 8, 110), played("A", 2, "2", "2", "2H", "S", 9, 140)]

# Club B's heat as another program writes it, PARTICIPANTS and BOARD under EVENT: test_hub_flows.py's CLUB_B
# (board 1: 4S by N making 10, 3NT by S making 9; board 2: 2H by S making 8), with its tricks written three ways.
EVENT_LAYOUT = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE USEBIO SYSTEM "http://www.usebio.org/files/usebio_v1_2.dtd">
<USEBIO Version="1.2">
  <CLUB><CLUB_NAME>Club B</CLUB_NAME></CLUB>
  <EVENT EVENT_TYPE="PAIRS">
    <EVENT_DESCRIPTION>Sim heat</EVENT_DESCRIPTION>
    <DATE>02/12/2026</DATE>
    <WINNER_TYPE>2</WINNER_TYPE>
    <PARTICIPANTS>
      <PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>NS</DIRECTION>
        <PLAYER><PLAYER_NAME>Ann Smith</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Bob Jones</PLAYER_NAME></PLAYER>
      </PAIR>
      <PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>EW</DIRECTION>
        <PLAYER><PLAYER_NAME>Cat Lee</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Dan Roe</PLAYER_NAME></PLAYER>
      </PAIR>
    </PARTICIPANTS>
    <BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER>
        <CONTRACT>4S</CONTRACT><PLAYED_BY>North</PLAYED_BY><TRICKS>=</TRICKS><SCORE>420</SCORE></TRAVELLER_LINE>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>
        <CONTRACT>3 NT</CONTRACT><PLAYED_BY>S</PLAYED_BY><TRICKS>9</TRICKS><SCORE>400</SCORE></TRAVELLER_LINE>
    </BOARD>
    <BOARD><BOARD_NUMBER>2</BOARD_NUMBER>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER>
        <CONTRACT>2H</CONTRACT><PLAYED_BY>S</PLAYED_BY><TRICKS>8</TRICKS>{score}</TRAVELLER_LINE>
    </BOARD>
  </EVENT>
</USEBIO>
"""


def setup(hub, sim):
    with hub.organiser() as org:
        r = org.post("/api/v1/sims", json={"id": sim, "name": f"Sim {sim}", "release_at": SOON, "boards": [1, 2]})
        assert r.status_code == 201, r.text
        secrets = {}
        for club in ("A", "B"):
            r = org.post(f"/api/v1/sims/{sim}/clubs", json={"id": club, "name": f"Club {club}"})
            secrets[club] = r.json()["secret"]
    return secrets


NUMBERS = {}  # (sim, club) -> the last upload number sent


def send(hub, sim, club, secret, xml, section=None, number=None, signed_for=None, session=None,
         session_signed=None):
    """A signed heat, numbered after the club's last one of the session unless `number` says; `signed_for`,
    `session_signed`: the section and the session the signature was made for, if not those sent (a captured file
    sent again under another section or session)."""
    data = xml.encode() if isinstance(xml, str) else xml
    if number is None:
        number = NUMBERS.get((sim, club, session), 0) + 1
    NUMBERS[(sim, club, session)] = max(number, NUMBERS.get((sim, club, session), 0))
    message = signing.heat_message(sim, session_signed if session_signed is not None else session,
                                   signed_for if signed_for is not None else section, number, data)
    params = {k: v for k, v in (("section", section), ("session", session)) if v is not None}
    return httpx.post(f"{hub.url}/api/v1/sims/{sim}/usebio", content=data, timeout=30, params=params,
                      headers={signing.HEADER_CLUB: club, "Content-Type": "application/xml",
                               signing.HEADER_UPLOAD: str(number),
                               signing.HEADER_SIGNATURE: signing.sign(message, bytes.fromhex(secret))})


def field(hub, sim):
    with hub.organiser() as org:
        return org.get(f"/api/v1/sims/{sim}/results").json()


def pct(ranking, club, pair, direction):
    (e,) = [e for e in ranking if (e["club"], e["pair"], e["direction"]) == (club, pair, direction)]
    return e["rank"], e["pct"]


def club_rows(results, club):
    return sorted((b, r["ns"], r["ew"], r.get("contract"), r.get("score_ns")) for b, rows in results["boards"].items()
                  for r in rows if r["club"] == club)


def test_a_usebio_heat_in_the_event_layout_is_scored_with_the_field(hub):
    secrets = setup(hub, "usebio-event")
    assert post_upload(hub.url, "A", secrets["A"], upload_body("usebio-event", "A", 1, CLUB_A)).status_code == 200
    r = send(hub, "usebio-event", "B", secrets["B"], EVENT_LAYOUT.format(score="<SCORE>110</SCORE>"))
    assert r.status_code == 200, r.text
    assert r.json() == {"stored": 3, "withdrawn": 0, "held": 0, "again": False}
    results = field(hub, "usebio-event")
    # The same field as test_hub_flows.py's, so the same figures, worked there by hand: board 1 four times,
    # board 2 three times (Neuberg), ties on both.
    ranking = results["ranking"]
    assert pct(ranking, "A", "1", "NS") == ("1=", "55.56")
    assert pct(ranking, "B", "1", "NS") == ("1=", "55.56")
    assert pct(ranking, "B", "2", "NS") == ("4", "33.33")
    assert pct(ranking, "B", "2", "EW") == ("1", "66.67")
    assert pct(ranking, "B", "1", "EW") == ("3=", "44.44")
    (b1,) = [e for e in ranking if (e["club"], e["pair"], e["direction"]) == ("B", "1", "NS")]
    assert b1["names"] == "Ann Smith & Bob Jones"  # from PARTICIPANTS, by number and direction


def test_a_missing_score_is_worked_from_the_contract_and_a_wrong_one_refused(hub):
    secrets = setup(hub, "usebio-score")
    assert send(hub, "usebio-score", "B", secrets["B"], EVENT_LAYOUT.format(score="")).status_code == 200
    assert ("2", "1", "1", "2H", 110) in club_rows(field(hub, "usebio-score"), "B")  # 2H by S making 8, none vul
    r = send(hub, "usebio-score", "B", secrets["B"], EVENT_LAYOUT.format(score="<SCORE>140</SCORE>"))
    assert r.status_code == 422 and "BOARD 2, TRAVELLER_LINE 1" in r.json()["error"], r.text
    assert ("2", "1", "1", "2H", 110) in club_rows(field(hub, "usebio-score"), "B")  # nothing of it stored


def test_a_re_upload_replaces_the_heat_and_never_duplicates(hub):
    secrets = setup(hub, "usebio-again")
    first = EVENT_LAYOUT.format(score="<SCORE>110</SCORE>")
    assert send(hub, "usebio-again", "B", secrets["B"], first).json()["stored"] == 3
    again = send(hub, "usebio-again", "B", secrets["B"], first, number=1)  # a retry: the same number, the same file
    assert again.status_code == 200 and again.json() == {"stored": 0, "withdrawn": 0, "held": 0, "again": True}
    # The club fixes board 2 (2H doubled making 8 by S, NS vulnerable on board 2: 120 + 500 + 50 = 670) and
    # drops board 1's second table.
    fixed = first.replace("<CONTRACT>2H</CONTRACT>", "<CONTRACT>2H*</CONTRACT>").replace(
        "<SCORE>110</SCORE>", "<SCORE>670</SCORE>")
    start = fixed.index("<TRAVELLER_LINE><NS_PAIR_NUMBER>2")
    fixed = fixed[:start] + fixed[fixed.index("</TRAVELLER_LINE>", start) + len("</TRAVELLER_LINE>"):]
    r = send(hub, "usebio-again", "B", secrets["B"], fixed)
    assert r.json() == {"stored": 2, "withdrawn": 1, "held": 0, "again": False}, r.text
    assert club_rows(field(hub, "usebio-again"), "B") == [("1", "1", "1", "4S", 420), ("2", "1", "1", "2HX", 670)]
    with hub.organiser() as org:
        audit = org.get("/api/v1/sims/usebio-again/audit").json()
    whats = [(a["by"], a["what"]) for a in audit]
    assert ("club B (USEBIO)", "result withdrawn") in whats and ("club B (USEBIO)", "result corrected") in whats
    assert whats.count(("club B (USEBIO)", "heat uploaded")) == 2  # the repeat of the first file is not one


def test_the_section_layout_names_the_section(hub):
    """PARTICIPANTS and BOARD under EVENT/SESSION/SECTION SECTION_ID="C": the results are section C's."""
    secrets = setup(hub, "usebio-section")
    xml = EVENT_LAYOUT.format(score="<SCORE>110</SCORE>").replace(
        "<PARTICIPANTS>", '<SESSION SESSION_ID="1"><SECTION SECTION_ID="C"><PARTICIPANTS>', 1).replace(
        "</EVENT>", "</SECTION></SESSION></EVENT>", 1)
    assert xml.index("<SECTION ") < xml.index("<BOARD>")
    assert send(hub, "usebio-section", "B", secrets["B"], xml).status_code == 200
    sections = {r["section"] for rows in field(hub, "usebio-section")["boards"].values() for r in rows}
    assert sections == {"C"}
    (b1,) = [e for e in field(hub, "usebio-section")["ranking"] if (e["pair"], e["direction"]) == ("1", "NS")]
    assert b1["names"] == "Ann Smith & Bob Jones"


def test_bidwires_own_usebio_export_section_by_section(hub):
    """bidwire's writer (formats/usebio.py) on a club's two sections, one file each (as it writes them), each
    uploaded naming its section: the second file leaves the first section's results as they were."""
    secrets = setup(hub, "usebio-own")
    for section, down in (("A", 9), ("B", 8)):
        results = [Result.played(1, "1", "1", "4S", "N", 10, table="1"),
                   Result.played(1, "2", "2", "4S", "N", down, table="2"),
                   Result.played(2, "1", "1", "2H", "S", 8, table="1"),
                   Result.played(2, "2", "2", "2H", "S", 9, table="2")]
        info = EventInfo("Heat", "Club A", "2026.12.02", "mp", club="Club A", section=section)
        xml = usebio.dumps(publication(results, info, two_fields=True))
        r = send(hub, "usebio-own", "A", secrets["A"], xml, section=section)
        assert r.status_code == 200 and r.json() == {"stored": 4, "withdrawn": 0, "held": 0, "again": False}, r.text
    rows = [(b, r["section"], r["ns"], r["contract"], r["score_ns"]) for b, rs in field(hub, "usebio-own")
            ["boards"].items() for r in rs]
    # Board 1 (none vul): 4S making 10 is 420, one down -50, two down -100. Board 2: 2H making 8 is 110, 9 140.
    assert sorted(rows) == [("1", "A", "1", "4S", 420), ("1", "A", "2", "4S", -50), ("1", "B", "1", "4S", 420),
                            ("1", "B", "2", "4S", -100), ("2", "A", "1", "2H", 110), ("2", "A", "2", "2H", 140),
                            ("2", "B", "1", "2H", 110), ("2", "B", "2", "2H", 140)]


@pytest.mark.parametrize("case", ["entities", "not usebio", "not xml", "bad contract", "board not in sim",
                                  "unsigned", "other club's secret"])
def test_a_bad_file_is_refused_naming_what_and_stores_nothing(hub, case):
    sim = "usebio-bad-" + case.replace(" ", "-").replace("'", "")
    secrets = setup(hub, sim)
    good = EVENT_LAYOUT.format(score="<SCORE>110</SCORE>")
    club, secret, xml = "B", secrets["B"], good
    if case == "entities":  # a billion laughs' first step: refused before anything expands
        xml = ('<?xml version="1.0"?><!DOCTYPE USEBIO [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
               "<USEBIO><EVENT><BOARD><BOARD_NUMBER>&b;</BOARD_NUMBER></BOARD></EVENT></USEBIO>")
    elif case == "not usebio":
        xml = "<PBN><EVENT/></PBN>"
    elif case == "not xml":
        xml = "[Event \"sim\"]\n[Board \"1\"]\n"
    elif case == "bad contract":
        xml = good.replace("<CONTRACT>4S</CONTRACT>", "<CONTRACT>8S</CONTRACT>")
    elif case == "board not in sim":
        xml = good.replace("<BOARD_NUMBER>2</BOARD_NUMBER>", "<BOARD_NUMBER>9</BOARD_NUMBER>")
    elif case == "unsigned":
        secret = "00" * 32
    else:
        secret = secrets["A"]
    r = send(hub, sim, club, secret, xml)
    want = {"entities": (422, "entities"), "not usebio": (422, "<PBN>"), "not xml": (422, "not XML"),
            "bad contract": (422, "BOARD 1, TRAVELLER_LINE 1: CONTRACT '8S'"), "board not in sim": (422, "board 9"),
            "unsigned": (401, "not signed"), "other club's secret": (401, "not signed")}[case]
    assert r.status_code == want[0] and want[1] in r.json()["error"], r.text
    assert field(hub, sim)["boards"] == {}


def test_the_page_form_takes_a_heat_with_the_club_secret(hub):
    secrets = setup(hub, "usebio-form")
    xml = EVENT_LAYOUT.format(score="<SCORE>110</SCORE>").encode()
    with httpx.Client(base_url=hub.url, timeout=30) as c:
        page = c.get("/sims/usebio-form/upload")
        assert page.status_code == 200 and 'type="file"' in page.text
        wrong = c.post("/sims/usebio-form/upload", data={"club": "B", "secret": secrets["A"]},
                       files={"file": ("heat.xml", xml, "application/xml")})
        assert wrong.status_code == 401 and "do not match" in wrong.text
        assert PASSWORD not in wrong.text and secrets["A"] not in wrong.text
        ok = c.post("/sims/usebio-form/upload", data={"club": "B", "secret": secrets["B"]},
                    files={"file": ("heat.xml", xml, "application/xml")})
        assert ok.status_code == 200 and "3 results taken" in ok.text, ok.text
    assert len(club_rows(field(hub, "usebio-form"), "B")) == 3


def test_a_signed_heat_cannot_be_sent_again_later_nor_as_another_section(hub):
    """Issue 39, finding 2: the signature covered the file's bytes only, so an old heat sent again undid a
    correction, and the same file sent under another ?section= was stored a second time. The sim, the section and
    an increasing upload number are now signed with the file."""
    secrets = setup(hub, "usebio-replay")
    first = EVENT_LAYOUT.format(score="<SCORE>110</SCORE>")
    assert send(hub, "usebio-replay", "B", secrets["B"], first, number=1).status_code == 200
    fixed = first.replace("<CONTRACT>2H</CONTRACT>", "<CONTRACT>2H*</CONTRACT>").replace(
        "<SCORE>110</SCORE>", "<SCORE>670</SCORE>")
    assert send(hub, "usebio-replay", "B", secrets["B"], fixed, number=2).json()["stored"] == 3
    held = club_rows(field(hub, "usebio-replay"), "B")
    replay = send(hub, "usebio-replay", "B", secrets["B"], first, number=1)  # the first file, as captured
    assert replay.status_code == 409 and replay.json()["field"] == "upload", replay.text
    moved = send(hub, "usebio-replay", "B", secrets["B"], fixed, number=2, section="Z", signed_for="")
    assert moved.status_code == 401 and moved.json()["field"] == "signature", moved.text  # not signed for Z
    elsewhere = send(hub, "usebio-replay", "B", secrets["B"], fixed, number=3, section="Z", signed_for="")
    assert elsewhere.status_code == 401
    unnumbered = httpx.post(f"{hub.url}/api/v1/sims/usebio-replay/usebio", content=fixed.encode(), timeout=30,
                            headers={"X-Bidwire-Club": "B", "X-Bidwire-Signature": "0" * 64})
    assert unnumbered.status_code == 422 and unnumbered.json()["field"] == "upload"
    assert club_rows(field(hub, "usebio-replay"), "B") == held  # nothing of any of them stored
    with hub.organiser() as org:
        whats = [a["what"] for a in org.get("/api/v1/sims/usebio-replay/audit").json()]
    assert whats.count("heat uploaded") == 2


def test_a_heat_first_sent_after_the_release_is_held_for_the_organiser(hub):
    """Issue 39, finding 1, for a club that scores with another program: its whole heat sent only after the
    release is held (the reply says so, the field is unchanged, each result audited), until the organiser
    admits it."""
    secrets = setup(hub, "usebio-late")
    assert post_upload(hub.url, "A", secrets["A"], upload_body("usebio-late", "A", 1, CLUB_A)).status_code == 200
    with hub.organiser() as org:
        assert org.patch("/api/v1/sims/usebio-late", json={"release_at": datetime.now(UTC).isoformat()}).status_code \
            == 200
    r = send(hub, "usebio-late", "B", secrets["B"], EVENT_LAYOUT.format(score="<SCORE>110</SCORE>"))
    assert r.json() == {"stored": 3, "withdrawn": 0, "held": 3, "again": False}, r.text
    assert club_rows(field(hub, "usebio-late"), "B") == []
    with hub.organiser() as org:
        audit = org.get("/api/v1/sims/usebio-late/audit").json()
        held = [a for a in audit if a["what"] == "result held: first seen after the release"]
        assert sorted((a["by"], a["detail"]["board"]) for a in held) == [("club B (USEBIO)", b) for b in (1, 1, 2)]
        assert org.post("/api/v1/sims/usebio-late/held", json={"club": "B", "admit": True, "reason": "checked"}
                        ).json() == {"admitted": 3}
    assert sorted(r[3] for r in wait_until(lambda: club_rows(field(hub, "usebio-late"), "B"), 10, 0.1,
                                           "the admitted heat in the field")) == ["2H", "3NT", "4S"]
