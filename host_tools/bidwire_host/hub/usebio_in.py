"""A club's heat as a USEBIO XML file (flow 3 of docs/hub.md): parsed into the same bounded results as a bidwire
club's upload (inputs.ResultIn), so the Law 77 check and every bound apply alike.

Two layouts are read (docs/hub.md "USEBIO uploads" says which writers each comes from):

    USEBIO / EVENT / PARTICIPANTS, BOARD                        the ABF's importer and the EBU's writer
    USEBIO / EVENT / SESSION / SECTION SECTION_ID / PARTICIPANTS, BOARD   bidwire before issue 27, and others

A BOARD holds BOARD_NUMBER and a TRAVELLER_LINE per result: NS_PAIR_NUMBER, EW_PAIR_NUMBER, CONTRACT, PLAYED_BY,
TRICKS and SCORE (NS's points, or "A6040": artificial, NS's and EW's percentages). What other writers put
differently and is clear is taken too: a doubled contract written "4S*" or "4S x", a declarer written "North",
tricks written against the contract ("=", "+1", "-2"), NS_SCORE or EW_SCORE for SCORE, a missing SCORE worked
from the contract (the Law 77 check then has nothing to disagree with). Names come from PARTICIPANTS (PAIR_NUMBER,
DIRECTION, PLAYER_NAME). The XML is read by defusedxml: no entity expands and nothing outside the file is fetched.
"""
import re

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeET
from pydantic import ValidationError

from bidwire_host.hub.inputs import MAX_RESULTS, ResultIn
from bidwire_host.hub.storage import Refused
from bidwire_host.scoring.model import ScoringError, law77_score
from bidwire_host.sim_ids import players_text

MAX_BYTES = 5_000_000  # a heat of 60 tables x 32 boards with LIN_DATA on every line is well under 2 MB
DEFAULT_SECTION = "A"
_PASSED = {"PASS", "P", "AP", "ALLPASS", "PASSED", "PASSEDOUT", "PO", "0"}
_CONTRACT = re.compile(r"^([1-7])(C|D|H|S|NT|N)(X|XX|\*|\*\*|D|R)?$")
_DOUBLED = {None: "", "X": "X", "*": "X", "D": "X", "XX": "XX", "**": "XX", "R": "XX"}
_SEATS = {"N": "N", "E": "E", "S": "S", "W": "W", "NORTH": "N", "EAST": "E", "SOUTH": "S", "WEST": "W"}
_DIRECTIONS = {"NS": "NS", "N-S": "NS", "N": "NS", "NORTHSOUTH": "NS", "EW": "EW", "E-W": "EW", "E": "EW",
               "EASTWEST": "EW"}
_ARTIFICIAL = re.compile(r"^A(\d{2,3})[/-]?(\d{2,3})$")


def _text(el, name):
    child = el.find(name)
    return None if child is None or child.text is None else child.text.strip()


def _where(board, line):
    return f"BOARD {board}, TRAVELLER_LINE {line}"


def _contract(raw, where):
    c = re.sub(r"\s+", "", (raw or "").upper())
    if c in _PASSED or c == "":
        return "Pass"
    m = _CONTRACT.match(c)
    if m is None:
        raise Refused(422, f"{where}: CONTRACT {raw[:20]!r} is not a contract", "CONTRACT")
    strain = "NT" if m.group(2) in ("N", "NT") else m.group(2)
    return f"{m.group(1)}{strain}{_DOUBLED[m.group(3)]}"


def _tricks(raw, contract, where):
    t = (raw or "").strip()
    if not t:
        return None
    level = int(contract[0]) if contract[0].isdigit() else 0
    try:
        if t == "=":
            return 6 + level
        if t[0] in "+-":
            return 6 + level + int(t)
        return int(t)
    except ValueError:
        raise Refused(422, f"{where}: TRICKS {t[:10]!r} is not a number of tricks", "TRICKS") from None


def _score(line, where):
    """(score_ns, adjusted): NS's points, or an artificial adjustment."""
    raw = _text(line, "SCORE")
    sign = 1
    if raw is None and _text(line, "NS_SCORE") is not None:
        raw = _text(line, "NS_SCORE")
    elif raw is None and _text(line, "EW_SCORE") is not None:
        raw, sign = _text(line, "EW_SCORE"), -1
    if raw is None or raw == "":
        return None, None
    m = _ARTIFICIAL.match(raw.upper().replace(" ", ""))
    if m:
        return None, {"ns": int(m.group(1)), "ew": int(m.group(2))}
    if len(raw) > 6 or not re.fullmatch(r"[+-]?\d+", raw):
        raise Refused(422, f"{where}: SCORE {raw[:10]!r} is not a score", "SCORE")
    return sign * int(raw), None


def _bare(number, direction):
    """The pair's number without the direction a Mitchell's unique PAIR_NUMBER carries ("1NS" -> "1"), as bidwire
    and other scoring programs write it."""
    if direction and len(number) > 2 and number.upper().endswith(direction):
        return number[:-2]
    return number


def _names(participants):
    """{(direction or None, pair number): ("Name & Name", "id & id")} from a PARTICIPANTS element (the national
    numbers "" when the file has none)."""
    named = {}
    if participants is None:
        return named
    for pair in participants.findall("PAIR"):
        number = _text(pair, "PAIR_NUMBER")
        if not number:
            continue
        direction = _DIRECTIONS.get(re.sub(r"\s+", "", (_text(pair, "DIRECTION") or "").upper()))
        number = _bare(number, direction)
        names, ids = players_text((_text(pl, "PLAYER_NAME"), _text(pl, "NATIONAL_ID_NUMBER"))
                                  for pl in pair.findall("PLAYER"))
        named[(direction, number)] = (names[:200], ids)
    return named


def _sections(root, section):
    """(section id, PARTICIPANTS, [BOARD]) per section, in either layout: under EVENT the section is the one
    the club names with the file (one file per section, as bidwire and the EBU's writer write them)."""
    out = []
    for event in root.findall("EVENT"):
        if event.find("BOARD") is not None or event.find("PARTICIPANTS") is not None:
            out.append((section or DEFAULT_SECTION, event.find("PARTICIPANTS"), event.findall("BOARD")))
        for session in event.findall("SESSION"):
            for section in session.findall("SECTION"):
                sid = section.get("SECTION_ID") or _text(section, "SECTION_ID") or DEFAULT_SECTION
                out.append((sid, section.find("PARTICIPANTS"), section.findall("BOARD")))
    return out


def _line(section, number, i, line, names):
    where = _where(number, i)
    ns, ew = _text(line, "NS_PAIR_NUMBER"), _text(line, "EW_PAIR_NUMBER")
    ns, ew = ns and _bare(ns, "NS"), ew and _bare(ew, "EW")
    if not ns or not ew:
        raise Refused(422, f"{where}: NS_PAIR_NUMBER and EW_PAIR_NUMBER are needed", "PAIR_NUMBER")
    score_ns, adjusted = _score(line, where)
    ns_named = names.get(("NS", ns), names.get((None, ns), ("", "")))
    ew_named = names.get(("EW", ew), names.get((None, ew), ("", "")))
    result = {"section": section, "board": number, "ns": ns, "ew": ew, "ns_names": ns_named[0],
              "ew_names": ew_named[0], "ns_ids": ns_named[1], "ew_ids": ew_named[1]}
    if adjusted is not None:
        result["adjusted"] = adjusted
        return result
    contract = _contract(_text(line, "CONTRACT"), where)
    declarer = _SEATS.get((_text(line, "PLAYED_BY") or "").upper())
    tricks = _tricks(_text(line, "TRICKS"), contract, where) if contract != "Pass" else None
    if score_ns is None:  # a writer that leaves the score to the reader: Law 77's, from the contract
        try:
            score_ns = law77_score(number, contract, declarer, tricks)
        except ScoringError as e:
            raise Refused(422, f"{where}: {e}", "CONTRACT") from None
    result.update(contract=contract, declarer=declarer, tricks=tricks, score_ns=score_ns)
    return result


def parse(data: bytes, section=None):
    """The results of a USEBIO file, each a validated ResultIn; Refused (422, naming the board and the line)
    when the file is not USEBIO or a line does not hold a result. `section`: the section a file in the EVENT
    layout holds (default A); a file in the SECTION layout names its own."""
    if section is not None and not re.fullmatch(r"[A-Za-z0-9]{1,8}", section):
        raise Refused(422, "section: 1 to 8 letters or digits", "section")
    if len(data) > MAX_BYTES:
        raise Refused(413, f"a USEBIO file is at most {MAX_BYTES} bytes", "file")
    try:
        root = SafeET.fromstring(data)
    except DefusedXmlException:
        raise Refused(422, "the file declares entities: a USEBIO file has none", "file") from None
    except SafeET.ParseError as e:
        raise Refused(422, f"the file is not XML ({e})", "file") from None
    if root.tag != "USEBIO":
        raise Refused(422, f"the file's root is <{root.tag[:40]}>, not <USEBIO>", "file")
    results = []
    for sid, participants, boards in _sections(root, section):
        names = _names(participants)
        for board in boards:
            raw = _text(board, "BOARD_NUMBER") or ""
            if not (raw.isascii() and raw.isdigit()) or len(raw) > 3:  # "²".isdigit() is True
                raise Refused(422, f"BOARD_NUMBER {raw[:10]!r} is not a board number", "BOARD_NUMBER")
            for i, line in enumerate(board.findall("TRAVELLER_LINE"), start=1):
                results.append((i, _line(sid, int(raw), i, line, names)))
                if len(results) > MAX_RESULTS:
                    raise Refused(413, f"a heat is at most {MAX_RESULTS} results", "file")
    if not results:
        raise Refused(422, "the file holds no TRAVELLER_LINE (EVENT/BOARD or EVENT/SESSION/SECTION/BOARD)",
                      "file")
    parsed = []
    for i, r in results:
        try:
            parsed.append(ResultIn.model_validate(r))
        except ValidationError as e:
            err = e.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "TRAVELLER_LINE"
            why = err["msg"].removeprefix("Value error, ")
            raise Refused(422, f"{_where(r['board'], i)} ({r['ns']} v {r['ew']}): {why}", field) from None
    return parsed
