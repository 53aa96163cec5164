"""Exports of the collector's scored session: PBN 2.1, USEBIO 1.2, CSV (`bidwire export`, GET /api/v1/export/...).

The figures are the live standings' own (each section's scoring.Session, the director's adjustments and
penalties applied), wrapped in a publish.Publication for the existing writers: boards in order with their
travellers, the auction of each played row from its `auction_end` event with the seat of each call (alerts as PBN
notes; an accepted call out of rotation or insufficient bid as PBN §3.9 writes it, see pbn_export), hand records
from the event's hand-record file when it has one, the players of each pair and at each table (collector/roster.py:
the event's, with the director's fixes: `names`, `players`, each row's seats), and the ranking after penalties
(the TotalScoreTable's totals are the boards' own; a penalty shows in the rank, and in the collector's ranking).

One section per export: a multi-section event is exported with `section`. CSV is one table per file
(results_csv): `table` names one (ranking, travellers, scorecards); without it the three come in one zip.
"""
import json
from dataclasses import asdict

from bidwire_host.collector import roster, validator
from bidwire_host.event import files as event_files
from bidwire_host.event import model as event_mod
from bidwire_host.formats import pbn_export, results_csv, usebio
from bidwire_host.formats.publish import AuctionCall, BoardRecord, EventInfo, Publication

FORMATS = {"pbn": "application/x-pbn; charset=utf-8", "usebio": "application/xml; charset=utf-8",
           "csv": "text/csv; charset=utf-8"}
ZIP = "application/zip"


class ExportError(ValueError):
    """Nothing to export, or a section to choose: the message says which."""


def _auctions(conn, sources):
    """{(unit, seq): the calls of the auction_end event behind that results row, dealer's first} for the rows
    `sources`, read in a few queries (not one a row); a row whose auction is not found is left out."""
    keys = sorted({(r["unit"], r["seq"]) for r in sources if r and r.get("unit") is not None})
    out = {}
    for at in range(0, len(keys), CHUNK):
        part = keys[at:at + CHUNK]
        rows = conn.execute(
            "SELECT r.unit, r.seq, (SELECT e.body FROM events e WHERE e.unit = r.unit AND e.type = 'auction_end' "
            "AND e.board = r.board AND e.seq > b.start_seq AND e.seq < r.seq ORDER BY e.seq DESC LIMIT 1) AS body "
            f"FROM (VALUES {', '.join(['(?, ?)'] * len(part))}) k JOIN results r ON r.unit = k.column1 "
            "AND r.seq = k.column2 JOIN boards b ON b.id = r.board_id", [x for k in part for x in k])
        for row in rows:
            calls = _calls(row["body"]) if row["body"] is not None else None
            if calls:
                out[row["unit"], row["seq"]] = calls
    return out


CHUNK = 400  # results rows a query: 800 parameters, well inside SQLite's limit


def _calls(body):
    calls = []
    for text in json.loads(body).get("auction") or []:
        seat, colon, call = str(text).partition(":")
        if not colon:
            seat, call = None, seat
        alert = call.endswith("!")
        calls.append(AuctionCall(call.rstrip("!"), alert=alert, seat=seat if seat in ("N", "E", "S", "W") else None))
    return calls


def publication(conn, standings, section=None, withhold=()):
    """The Publication of one section of the collector's standings, without the boards in `withhold` (their deals
    and results: withheld.py); the ranking stays whole."""
    s = standings.setup
    if s is None or not standings.sessions:
        raise ExportError("nothing scored yet: load an event and let the tables report results")
    if section is None:
        if len(standings.sessions) != 1:
            raise ExportError(f"section: export one section at a time ({', '.join(sorted(standings.sessions))})")
        section = next(iter(standings.sessions))
    if section not in standings.sessions:
        raise ExportError(f"section: nothing scored in section {section!r}")
    sess, ranks, sources = standings.publication_parts(section)
    ses = s.event.session(s.session)
    info = EventInfo(event=s.event.name + (f", {ses.name}" if ses.name else ""),
                     date=(ses.date or "").replace("-", ".") or None, method=standings.method)
    _usebio_identity(info, s.event, ses, section)
    found = roster.players(conn, s, section)
    auctions = _auctions(conn, sources.values())
    seated = {}  # (ns, ew) -> the four seats' names, worked out once per pairing
    boards = []
    for number in sorted(sess.travellers):
        if number in withhold:
            continue
        rows = sess.travellers[number].rows
        try:
            hand = event_files.hand_record(s.event, number, s.session)
        except event_mod.EventError:
            hand = None
        record = BoardRecord(number, rows, getattr(hand, "deal", None), getattr(hand, "dealer", None),
                             getattr(hand, "vulnerable", None),
                             analysis=validator.stored_analysis(conn, number) if hand is not None else None)
        for i, row in enumerate(rows):
            r = row.result
            if (r.ns, r.ew) not in seated:
                seated[r.ns, r.ew] = roster.seats(s, section, found, r.ns, r.ew)
            if seated[r.ns, r.ew]:
                record.players[i] = seated[r.ns, r.ew]
            if r.adjusted is None and r.table is not None:
                source = sources.get((section, int(r.table), number)) or {}
                calls = auctions.get((source.get("unit"), source.get("seq")))
                if calls:
                    record.auctions[i] = calls
                lead = source.get("lead")
                if lead:
                    record.leads[i] = lead
        boards.append(record)
    return Publication(info, boards, sess.totals, ranks, sess.two_fields, roster.names(conn, s, section, found),
                       found)


def _usebio_identity(info, event, session, section):
    """What USEBIO names besides the results: the club, the session's number and the section, the EBU fields."""
    if event.club is not None:
        info.club = event.club.name
        info.club_id = "" if event.club.id is None else str(event.club.id)
    info.session, info.section = str(event.sessions.index(session) + 1), section
    if event.ebu is not None:
        info.ebu = {k: v for k, v in asdict(event.ebu).items() if v}


def render(conn, standings, fmt, section=None, table=None, withhold=()):
    """The export: text for pbn, usebio and a csv `table`; the bytes of a zip of every CSV table without one. The
    boards in `withhold` are left out (withheld.py: every export leaves out what the public pages do)."""
    if fmt not in FORMATS:
        raise ExportError(f"format: one of {', '.join(FORMATS)}, not {fmt!r}")
    if table is not None and (fmt != "csv" or table not in results_csv.TABLES):
        raise ExportError(f"table: only CSV has tables, one of {', '.join(results_csv.TABLES)}, not {table!r}"
                          if fmt == "csv" else f"table: only CSV has tables ({fmt} is one file)")
    pub = publication(conn, standings, section, withhold)
    if fmt == "pbn":
        return pbn_export.dumps(pub)
    if fmt == "usebio":
        return usebio.dumps(pub)
    if table is not None:
        return results_csv.table(pub, table)
    return results_csv.archive(pub)


def media_type(fmt, table=None):
    """The Content-Type and file name extension of an export."""
    if fmt == "csv" and table is None:
        return ZIP, "zip"
    return FORMATS[fmt], {"pbn": "pbn", "usebio": "xml", "csv": "csv"}[fmt]
