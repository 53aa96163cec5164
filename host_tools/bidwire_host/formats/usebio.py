"""USEBIO 1.2 XML export (the EBU's Universal Scoring Exchange for Bridge, www.usebio.org).

Laid out as the readers read it: the ABF's results importer (`EVENT/PARTICIPANTS/PAIR`, `EVENT/BOARD`,
`USEBIO/HANDSET/BOARD`, `EVENT/DATE` as dd/mm/yyyy, `EVENT/WINNER_TYPE`, `PAIR/MASTER_POINTS_AWARDED`) and the
EBU's pay-to-play writer (PARTICIPANTS and BOARD straight under EVENT). docs/scorer.md "USEBIO" says what each
part was checked against:

    USEBIO Version="1.2"
      CLUB: CLUB_NAME, CLUB_ID_NUMBER
      EVENT EVENT_TYPE="MP_PAIRS"|"CROSS_IMP"|"BUTLER_PAIRS"|"TEAMS": PROGRAM_NAME, PROGRAM_VERSION,
            EVENT_DESCRIPTION, DATE (DD/MM/YYYY), WINNER_TYPE, BOARD_SCORING_METHOD, BOARDS_PLAYED,
            SESSION_COUNT, SECTION_COUNT, and when the event sets them MPS_AWARDED_FLAG, MASTER_POINT_SCALE,
            P2P_CHARGE_RATE
        PARTICIPANTS: PAIR (PAIR_NUMBER: "1NS"/"1EW" in a Mitchell, DIRECTION, BOARDS_PLAYED,
                      PLAYER (PLAYER_NAME, NATIONAL_ID_NUMBER) x 2, PLACE, TOTAL_SCORE, PERCENTAGE,
                      MASTER_POINTS_AWARDED) or TEAM TEAM_ID TEAM_NAME
                      (BOARDS_PLAYED, PLAYER..., PLACE, TOTAL_SCORE, MASTER_POINTS_AWARDED)
        BOARD: BOARD_NUMBER, then a TRAVELLER_LINE per result: NS/EW_PAIR_NUMBER, CONTRACT, PLAYED_BY, LEAD,
               TRICKS, SCORE (NS's points), NS/EW_MATCH_POINTS or NS/EW_CROSS_IMP_POINTS, LIN_DATA
      HANDSET: a BOARD per hand record: BOARD_NUMBER, DEALER, VULNERABILITY (Love, North-South, East-West, All),
               HAND x 4 (DIRECTION North/East/South/West, SPADES, HEARTS, DIAMONDS, CLUBS)

One file holds one section of one session (SESSION_COUNT and SECTION_COUNT 1): a multi-section event is exported
a section at a time, and EVENT_DESCRIPTION names the section. PLACE is the rank as a whole number; contestants
that tie share it (1, 2, 2, 4). MASTER_POINTS_AWARDED is on every pair (0 for none) when the event names a scale
(scoring/masterpoints.py). The matchpoints of a board are written to 2 decimals that sum to its exact total
(publish.BoardRecord.written). An artificial score is SCORE "A6040" (A, then NS's and EW's percentages).
LIN_DATA is the auction as formats/lin_export.py writes it (BBO's LIN): an accepted insufficient bid is the bid
with its note, and the player a call out of rotation skipped gets a pass saying he did not call, so that each
call lands at the seat that made it.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from importlib import metadata

from bidwire.core.calls import SEATS
from bidwire_host.formats import lin_export
from bidwire_host.formats.publish import players_of
from bidwire_host.scoring import masterpoints
from bidwire_host.scoring.model import Artificial, Assigned, format_number

BOARD_SCORING = {"mp": "MATCH_POINTS", "neuberg": "MATCH_POINTS", "cross-imps": "CROSS_IMPS",
                 "butler": "BUTLER_IMPS", "teams": "IMPS"}
# EVENT_TYPE by scoring method: the pairs events' names are the ones the ABF's results importer takes (it refuses
# "PAIRS": "Event type 'PAIRS' is not currently supported") and USEBIO 1.2 lists
EVENT_TYPE = {"mp": "MP_PAIRS", "neuberg": "MP_PAIRS", "cross-imps": "CROSS_IMP", "butler": "BUTLER_PAIRS",
              "teams": "TEAMS"}
SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}  # a HAND's DIRECTION, as the readers write it
DOCTYPE = '<!DOCTYPE USEBIO SYSTEM "http://www.usebio.org/files/usebio_v1_2.dtd">'
VULNERABILITY = ("Love", "North-South", "East-West", "All")  # by vulnerability code 0-3 (docs/scorer.md "USEBIO")
SUITS = ("SPADES", "HEARTS", "DIAMONDS", "CLUBS")

# Characters XML 1.0 cannot hold even escaped (§2.2): a pair id or a name typed with one would make the whole
# file unreadable, so each becomes a space. ElementTree escapes <, & and quotes itself.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _text(value):
    return _NOT_XML.sub(" ", str(format_number(value)))


def _el(parent, name, value=None, **attributes):
    e = ET.SubElement(parent, name, {k: _text(v) for k, v in attributes.items()})
    if value is not None:
        e.text = _text(value)
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


def _player(parent, player):
    e = _el(parent, "PLAYER")
    _el(e, "PLAYER_NAME", player.name or "")
    if player.id is not None and str(player.id).strip():
        _el(e, "NATIONAL_ID_NUMBER", player.id)


def pair_number(pub, number, direction):
    """A PAIR_NUMBER unique in its event: in a Mitchell (two winners) NS pair 1 and EW pair 1 are "1NS" and "1EW",
    as other scoring programs write them, so that a reader that keys its pairs on the number alone (the ABF's
    importer) keeps them apart; in a Howell the number alone."""
    return f"{number}{direction}" if pub.two_fields and direction else number


def _team_participants(parent, pub):
    """A teams event's teams in the order of its standings: each TEAM with its name, players, PLACE and, as its
    TOTAL_SCORE, its victory points."""
    out = _el(parent, "PARTICIPANTS")
    for s in pub.team_standings:
        entry = _el(out, "TEAM", TEAM_ID=s.team, TEAM_NAME=s.name or s.team)
        _el(entry, "BOARDS_PLAYED", s.boards)
        for player in players_of(pub, s.team):
            _player(entry, player)
        _el(entry, "PLACE", s.rank)
        _el(entry, "TOTAL_SCORE", f"{s.vps // 100}.{s.vps % 100:02d}")


def _participants(parent, pub):
    if pub.team_standings is not None:
        return _team_participants(parent, pub)
    teams = pub.method == "teams"
    imp = pub.method not in ("mp", "neuberg")
    awarded = masterpoints.awards(pub.event.masterpoints, pub.standings, boards=len(pub.boards),
                                  two_fields=pub.two_fields)
    out = _el(parent, "PARTICIPANTS")
    for s in pub.standings:
        who = s.contestant
        direction, number = who if isinstance(who, tuple) else (None, who)
        t = pub.totals[who]
        if teams:
            entry = _el(out, "TEAM", TEAM_ID=number, TEAM_NAME=pub.names.get(who) or number)
        else:
            entry = _el(out, "PAIR")
            _el(entry, "PAIR_NUMBER", pair_number(pub, number, direction))
            if direction:
                _el(entry, "DIRECTION", direction)
        _el(entry, "BOARDS_PLAYED", t.boards)
        players = players_of(pub, who)
        for player in players:
            _player(entry, player)
        name = pub.names.get(who) or pub.names.get(number)
        if not players and name and not teams:  # names without numbers: the names alone
            for part in name.replace(" & ", " - ").split(" - "):
                _el(_el(entry, "PLAYER"), "PLAYER_NAME", part.strip())
        _el(entry, "PLACE", s.rank)
        _el(entry, "TOTAL_SCORE", t.imps if imp else t.mp)
        if not imp:
            _el(entry, "PERCENTAGE", t.pct)
        if awarded is not None:
            _el(entry, "MASTER_POINTS_AWARDED", awarded.get(who, 0))


def _lead(text):
    """LEAD as suit then rank ("SK"), or the suit alone when only the suit was recorded (a unit records the suit)."""
    t = str(text or "").strip().upper().replace("10", "T")
    if len(t) == 2 and t[1] in "SHDC" and t[0] not in "SHDC":
        t = t[1] + t[0]  # "KS" -> "SK"
    return t if t and t[0] in "SHDC" and len(t) <= 2 else None


def lin(pub, record, row_index):
    """LIN_DATA of the auction behind one traveller row ('' when the row has no auction): lin_export's, the
    tricks (`mc`) with it when the deal is known, so that a LIN reader takes the result from the line itself (one
    without it read every contract as made exactly: docs/scorer.md "The readers table")."""
    if not record.auctions.get(row_index):
        return ""
    return lin_export.game_line(pub, record, row_index)


def _traveller(parent, pub, record, imp):
    board = _el(parent, "BOARD")
    _el(board, "BOARD_NUMBER", record.board)
    names = ("imp_ns", "imp_ew") if imp else ("mp_ns", "mp_ew")
    written = dict(zip(names, (record.written(n) for n in names), strict=True))
    for i, row in enumerate(record.rows):
        r = row.result
        line = _el(board, "TRAVELLER_LINE")
        _el(line, "NS_PAIR_NUMBER", pair_number(pub, r.ns, "NS"))
        _el(line, "EW_PAIR_NUMBER", pair_number(pub, r.ew, "EW"))
        if r.adjusted is None:
            _el(line, "CONTRACT", "PASS" if (r.contract or "").upper() in ("PASS", "P", "") else r.contract)
            if r.declarer:
                _el(line, "PLAYED_BY", r.declarer)
            lead = _lead(record.leads.get(i))
            if lead:
                _el(line, "LEAD", lead)
            if r.tricks is not None:
                _el(line, "TRICKS", r.tricks)
        _el(line, "SCORE", _score(r))
        if imp:
            _el(line, "NS_CROSS_IMP_POINTS", written["imp_ns"][i])
            _el(line, "EW_CROSS_IMP_POINTS", written["imp_ew"][i])
        else:
            _el(line, "NS_MATCH_POINTS", written["mp_ns"][i])
            _el(line, "EW_MATCH_POINTS", written["mp_ew"][i])
        data = lin(pub, record, i) if r.adjusted is None else ""
        if data:
            _el(line, "LIN_DATA", data)


def _handset(parent, pub):
    """HANDSET: each board's hand record (the boards with a deal)."""
    records = [b for b in pub.boards if b.deal is not None]
    if not records:
        return
    handset = _el(parent, "HANDSET")
    for record in records:
        board = _el(handset, "BOARD")
        _el(board, "BOARD_NUMBER", record.board)
        _el(board, "DEALER", record.dealer_seat)
        _el(board, "VULNERABILITY", VULNERABILITY[record.vul])
        for seat in SEATS:
            cards = record.deal.hands.get(seat)
            if cards is None:
                continue
            hand = _el(board, "HAND")
            _el(hand, "DIRECTION", SEAT_NAMES[seat])
            for suit, held in zip(SUITS, cards, strict=True):
                _el(hand, suit, held)


def _head(ev, description, winner_type):
    """The USEBIO root with its CLUB, and the EVENT with what every file of ours starts it with: (root, event)."""
    root = ET.Element("USEBIO", Version="1.2")
    club = _el(root, "CLUB")
    _el(club, "CLUB_NAME", ev.club or "?")
    if ev.club_id:
        _el(club, "CLUB_ID_NUMBER", ev.club_id)
    event = _el(root, "EVENT", EVENT_TYPE=EVENT_TYPE[ev.method])
    _el(event, "PROGRAM_NAME", "bidwire")
    _el(event, "PROGRAM_VERSION", metadata.version("bidwire"))
    _el(event, "EVENT_DESCRIPTION", description)
    if ev.date:
        _el(event, "DATE", _date(ev))
    _el(event, "WINNER_TYPE", winner_type)
    _el(event, "BOARD_SCORING_METHOD", BOARD_SCORING[ev.method])
    return root, event


def tree(pub):
    """The publication as an ElementTree rooted at USEBIO."""
    ev = pub.event
    root, event = _head(ev, ev.event + (f", section {ev.section}" if ev.sections > 1 else ""),
                        2 if pub.two_fields else 1)
    _el(event, "BOARDS_PLAYED", len(pub.boards))
    _el(event, "SESSION_COUNT", 1)
    _el(event, "SECTION_COUNT", 1)
    ebu = ev.ebu or {}
    scale = ebu.get("master_point_scale") or (ev.masterpoints or {}).get("scale")
    if scale:
        _el(event, "MPS_AWARDED_FLAG", "Y")
        _el(event, "MASTER_POINT_SCALE", scale)
    if ebu.get("charge_code"):
        _el(event, "P2P_CHARGE_RATE", ebu["charge_code"])
    _participants(event, pub)
    imp = pub.method not in ("mp", "neuberg")
    for record in pub.boards:
        _traveller(event, pub, record, imp)
    _handset(root, pub)
    return ET.ElementTree(root)


def overall_tree(overall):
    """A whole event of several sessions (publish.EventOverall) as an ElementTree rooted at USEBIO: the EVENT
    laid out as a session's (the readers' EVENT/PARTICIPANTS/PAIR), with SESSION_COUNT the sessions played and,
    for each pair, its place overall, its boards in all sessions, its players, its matchpoints in all sessions
    (TOTAL_SCORE, as a session's file has them) and its PERCENTAGE overall: the one it is ranked on (averaged
    over the boards played, or carried forward), or its matchpoints over their tops when they are summed. The
    boards stay in each session's own file."""
    root, event = _head(overall.event, f"{overall.event.event}: overall ({', '.join(overall.sessions)})", 1)
    _el(event, "SESSION_COUNT", len(overall.sessions))
    _el(event, "SECTION_COUNT", 1)
    out = _el(event, "PARTICIPANTS")
    for s in overall.standings:
        entry = _el(out, "PAIR")
        _el(entry, "PAIR_NUMBER", f"{s.pair}{s.direction or ''}")
        if s.direction:
            _el(entry, "DIRECTION", s.direction)
        _el(entry, "BOARDS_PLAYED", s.boards)
        for player in s.players:
            _player(entry, player)
        if not s.players and s.names:
            for part in s.names.replace(" & ", " - ").split(" - "):
                _el(_el(entry, "PLAYER"), "PLAYER_NAME", part.strip())
        _el(entry, "PLACE", s.rank.rstrip("="))
        _el(entry, "TOTAL_SCORE", s.mp)
        _el(entry, "PERCENTAGE", s.score if overall.carry_over != "sum" else s.mp * 100 / s.top if s.top else 50)
    return ET.ElementTree(root)


def dumps(pub):
    """USEBIO XML text with its declaration and DOCTYPE."""
    return _serialised(tree(pub))


def overall_dumps(overall):
    """The whole event's USEBIO XML text (overall_tree)."""
    return _serialised(overall_tree(overall))


def _serialised(t):
    ET.indent(t)
    body = ET.tostring(t.getroot(), encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{DOCTYPE}\n{body}\n'
