"""USEBIO 1.2 XML export (the EBU's Universal Scoring Exchange for Bridge, www.usebio.org).

Layout, following published USEBIO 1.2 files: USEBIO(Version) > CLUB, EVENT(EVENT_TYPE) > header elements,
PARTICIPANTS > PAIR (or TEAM) with its total, PERCENTAGE and PLACE, then one BOARD per board with a
TRAVELLER_LINE per result: NS/EW_PAIR_NUMBER, CONTRACT, PLAYED_BY, TRICKS, SCORE (NS's points) and
NS/EW_MATCH_POINTS or NS/EW_CROSS_IMP_POINTS. An artificial score is written SCORE "A6040" (A, then NS's
and EW's percentages). The DTD itself was not at hand: element names were checked against public files.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from bidwire_host.scoring.model import Artificial, Assigned, format_number

BOARD_SCORING = {"mp": "MATCH_POINTS", "neuberg": "MATCH_POINTS", "cross-imps": "CROSS_IMPS",
                 "butler": "BUTLER_IMPS", "teams": "IMPS"}
DOCTYPE = '<!DOCTYPE USEBIO SYSTEM "http://www.usebio.org/files/usebio_v1_2.dtd">'


# Characters XML 1.0 cannot hold even escaped (§2.2): a pair id or a name typed with one would make the whole
# file unreadable, so each becomes a space. ElementTree escapes <, & and quotes itself.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _el(parent, name, value=None):
    e = ET.SubElement(parent, name)
    if value is not None:
        e.text = _NOT_XML.sub(" ", str(format_number(value)))
    return e


def _score(result):
    a = result.adjusted
    if isinstance(a, Artificial):
        return "A" + "".join(str(format_number(a.pct(d))) for d in ("NS", "EW"))
    if isinstance(a, Assigned):
        return a.ns_score
    return result.score_ns


def _date(event):
    """USEBIO's DD/MM/YYYY, from a date or PBN's YYYY.MM.DD."""
    d = event.date
    if hasattr(d, "strftime"):
        return d.strftime("%d/%m/%Y")
    parts = str(d).split(".")
    return "/".join(reversed(parts)) if len(parts) == 3 and len(parts[0]) == 4 else d


def tree(pub):
    """The publication as an ElementTree rooted at USEBIO."""
    root = ET.Element("USEBIO", Version="1.2")
    club = _el(root, "CLUB")
    _el(club, "CLUB_NAME", pub.event.club)
    if pub.event.club_id:
        _el(club, "CLUB_ID_NUMBER", pub.event.club_id)
    teams = pub.method == "teams"
    event = _el(root, "EVENT")
    event.set("EVENT_TYPE", "TEAMS" if teams else "PAIRS")
    _el(event, "PROGRAM_NAME", "bidwire")
    _el(event, "EVENT_DESCRIPTION", pub.event.event)
    if pub.event.date:
        _el(event, "DATE", _date(pub.event))
    _el(event, "WINNER_TYPE", 2 if pub.two_fields else 1)
    _el(event, "BOARD_SCORING_METHOD", BOARD_SCORING[pub.method])
    _el(event, "BOARDS_PLAYED", len(pub.boards))
    imp = pub.method not in ("mp", "neuberg")
    participants = _el(event, "PARTICIPANTS")
    for s in pub.standings:
        who = s.contestant
        direction, number = who if isinstance(who, tuple) else (None, who)
        t = pub.totals[who]
        entry = _el(participants, "TEAM" if teams else "PAIR")
        _el(entry, "TEAM_NUMBER" if teams else "PAIR_NUMBER", number)
        if direction:
            _el(entry, "DIRECTION", direction)
        _el(entry, "BOARDS_PLAYED", t.boards)
        name = pub.names.get(number)
        if name:
            for player in name.replace(" & ", " - ").split(" - "):
                _el(_el(entry, "PLAYER"), "PLAYER_NAME", player.strip())
        _el(entry, "TOTAL_SCORE", t.imps if imp else t.mp)
        if not imp:
            _el(entry, "PERCENTAGE", t.pct)
        _el(entry, "PLACE", s.display)
    for record in pub.boards:
        board = _el(event, "BOARD")
        _el(board, "BOARD_NUMBER", record.board)
        for row in record.rows:
            r = row.result
            line = _el(board, "TRAVELLER_LINE")
            _el(line, "NS_PAIR_NUMBER", r.ns)
            _el(line, "EW_PAIR_NUMBER", r.ew)
            if r.adjusted is None:
                _el(line, "CONTRACT", "PASS" if r.contract in (None, "Pass") else r.contract)
                if r.declarer:
                    _el(line, "PLAYED_BY", r.declarer)
                if r.tricks is not None:
                    _el(line, "TRICKS", r.tricks)
            _el(line, "SCORE", _score(r))
            if imp:
                _el(line, "NS_CROSS_IMP_POINTS", row.imp_ns)
                _el(line, "EW_CROSS_IMP_POINTS", row.imp_ew)
            else:
                _el(line, "NS_MATCH_POINTS", row.mp_ns)
                _el(line, "EW_MATCH_POINTS", row.mp_ew)
    return ET.ElementTree(root)


def dumps(pub):
    """USEBIO XML text with its declaration and DOCTYPE."""
    t = tree(pub)
    ET.indent(t)
    body = ET.tostring(t.getroot(), encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{DOCTYPE}\n{body}\n'
