"""Exports of the collector's scored session: PBN 2.1, USEBIO 1.2, CSV (`bidwire export`, GET /api/v1/export/...).

The figures are the live standings' own (each section's scoring.Session, the director's adjustments and
penalties applied), wrapped in a publish.Publication for the existing writers: boards in order with their
travellers, the auction of each played row from its `auction_end` event with the seat of each call (alerts as PBN
notes; an accepted call out of rotation or insufficient bid in the form every reader tried replays, or as PBN
§3.9's marks with `irregular="marks"`: see pbn_export), hand records
from the event's hand-record file when it has one, the players of each pair and at each table (collector/roster.py:
the event's, with the director's fixes: `names`, `players`, each row's seats), and the ranking after penalties
(the TotalScoreTable's totals are the boards' own; a penalty shows in the rank, and in the collector's ranking).

One section per export: a multi-section event is exported with `section`. CSV is one table per file
(results_csv): `table` names one (ranking, travellers, scorecards); without it the three come in one zip. LIN
(lin_export, BBO's hand viewer format) is one file per board: `board` names one; without it they come in one zip.
"""
import io
import json
import zipfile
from dataclasses import asdict

from bidwire_host.collector import event_setup, roster, team_events, validator
from bidwire_host.event import files as event_files
from bidwire_host.event import model as event_mod
from bidwire_host.formats import lin_export, pbn_export, results_csv, usebio
from bidwire_host.formats.publish import AuctionCall, BoardRecord, EventInfo, Publication, TeamStanding

FORMATS = {"pbn": "application/x-pbn; charset=utf-8", "usebio": "application/xml; charset=utf-8",
           "csv": "text/csv; charset=utf-8", "lin": "text/plain; charset=utf-8"}
ZIP = "application/zip"


class ExportError(ValueError):
    """Nothing to export, or a section to choose: the message says which."""


def auctions(conn, sources, log=None):
    """{(unit, seq): the calls of the auction_end event behind that results row, dealer's first} for the rows
    `sources`, read in a few queries (not one a row); a row whose auction is not found is left out. `log`: a dict
    given to be filled with {(unit, seq): the auction's log}, the calls cancelled, accepted, deemed or substituted
    (bidwire.core.record.summary: what, seat, call, law), for the travellers' marks."""
    keys = sorted({(r["unit"], r["seq"]) for r in sources if r and r.get("unit") is not None})
    out = {}
    for at in range(0, len(keys), CHUNK):
        part = keys[at:at + CHUNK]
        rows = conn.execute(
            "SELECT unit, seq, board, start_seq, end_seq, (SELECT body FROM events WHERE unit = x.unit AND seq = "
            "x.end_seq) AS body FROM (SELECT r.unit, r.seq, r.board, b.start_seq, (SELECT e.seq FROM events e "
            "WHERE e.unit = r.unit AND e.type = 'auction_end' AND e.board = r.board AND e.seq > b.start_seq "
            "AND e.seq < r.seq ORDER BY e.seq DESC LIMIT 1) AS end_seq "
            f"FROM (VALUES {', '.join(['(?, ?)'] * len(part))}) k JOIN results r ON r.unit = k.column1 "
            "AND r.seq = k.column2 JOIN boards b ON b.id = r.board_id) x",
            [x for k in part for x in k]).fetchall()
        found = [r for r in rows if r["body"] is not None]
        pressed = {}  # (unit, result seq) -> the board's call events up to its auction_end, in order: the tempo
        if found:
            for e in conn.execute(
                    "SELECT k.column1 AS unit, k.column2 AS rseq, e.body FROM (VALUES "
                    f"{', '.join(['(?, ?, ?, ?, ?)'] * len(found))}) k JOIN events e ON e.unit = k.column1 AND "
                    "e.type = 'call' AND e.board = k.column3 AND e.seq > k.column4 AND e.seq < k.column5 "
                    "ORDER BY e.seq",
                    [x for r in found for x in (r["unit"], r["seq"], r["board"], r["start_seq"], r["end_seq"])]):
                pressed.setdefault((e["unit"], e["rseq"]), []).append(json.loads(e["body"]))
        for row in found:
            calls = _calls(row["body"], pressed.get((row["unit"], row["seq"]), []))
            if calls:
                out[row["unit"], row["seq"]] = calls
                if log is not None:
                    log[row["unit"], row["seq"]] = [x for x in json.loads(row["body"]).get("log") or []
                                                    if isinstance(x, dict)]
    return out


CHUNK = 400  # results rows a query: 800 parameters, well inside SQLite's limit


def _calls(body, pressed=()):
    """The auction_end's calls, each with the tempo of the press that made it (`pressed`: the board's call events
    in order). The auction's calls are a subsequence of the presses (a cancelled call is pressed and not in it); each
    is matched to the latest press of the same seat and call not matched to a later one, so that a call cancelled
    and made again takes the tempo of the press that stands."""
    calls = []
    for text in json.loads(body).get("auction") or []:
        seat, colon, call = str(text).partition(":")
        if not colon:
            seat, call = None, seat
        alert = call.endswith("!")
        calls.append(AuctionCall(call.rstrip("!"), alert=alert, seat=seat if seat in ("N", "E", "S", "W") else None))
    presses = []
    for e in pressed:
        token = str(e.get("input") or "")
        if e.get("verdict") == "alert" or len(token) < 3 or token[1] not in ":~":
            continue
        tempo = e.get("tempo")
        presses.append((token[0], _same(token[2:]), tempo if isinstance(tempo, int) and tempo >= 0 else None))
    j = len(presses) - 1
    for c in reversed(calls):
        k = j
        while k >= 0 and (presses[k][0] != c.seat or presses[k][1] != _same(c.call)):
            k -= 1
        if k >= 0:
            c.tempo, j = presses[k][2], k - 1
    return calls


def _same(call):
    """A call as the unit's tokens and its summary both may write it: P and Pass alike, 1N and 1NT."""
    call = call.upper()
    return "P" if call in ("P", "PASS") else call + "T" if call.endswith("N") else call


def check_section(conn, section):
    """ExportError when `section` is given and the loaded event has no such section (not "nothing scored")."""
    s = event_setup.load(conn)
    if section is None or s is None or s.section(section) is not None:
        return
    names = [sec.name for sec in s.event.session(s.session).sections]
    raise ExportError(f"section: the event has no section {section!r}; choose one of {', '.join(names)}")


def publication(conn, standings, section=None, withhold=()):
    """The Publication of one section of the collector's standings, without the boards in `withhold` (their deals
    and results: withheld.py); the ranking stays whole."""
    check_section(conn, section)
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
    played = auctions(conn, sources.values())
    seated = {}  # (ns, ew) -> the four seats' names, worked out once per pairing
    when = _rounds(ses, section)
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
            table = None if r.table is None else int(r.table)
            source = sources.get((section, table, number)) or {}
            if source.get("round") is not None or (table, number) in when:
                record.rounds[i] = source.get("round") or when[table, number]
            if (r.ns, r.ew) not in seated:
                seated[r.ns, r.ew] = roster.seats(s, section, found, r.ns, r.ew)
            if seated[r.ns, r.ew]:
                record.players[i] = seated[r.ns, r.ew]
            if source.get("entered") and r.adjusted is None:
                record.entered[i] = source["entered"]["by"]
            if r.adjusted is None and r.table is not None:
                source = sources.get((section, int(r.table), number)) or {}
                calls = played.get((source.get("unit"), source.get("seq")))
                if calls:
                    record.auctions[i] = calls
                lead = source.get("lead")
                if lead:
                    record.leads[i] = lead
        boards.append(record)
    return Publication(info, boards, sess.totals, ranks, sess.two_fields, roster.names(conn, s, section, found),
                       found, _team_standings(s.section(section), standings, section))


def _team_standings(sec, standings, section):
    """A teams event's standings as the files write them (publish.TeamStanding), or None for any other section."""
    if not team_events.is_event(sec):
        return None
    found = team_events.matches(sec, [r for name, r in standings.results() if name == section])
    names = {str(t.number): t.name for t in sec.teams}
    boards = {}
    for m in found:
        if m.over:
            for team in (m.home, m.away):
                boards[team] = boards.get(team, 0) + len(m.boards)
    return [TeamStanding(s.rank, s.team, names.get(s.team, s.team), s.vps, s.imps_for, s.imps_against, s.played,
                         boards.get(s.team, 0)) for s in team_events.standings(sec, found)]


def _rounds(session, section):
    """{(table, board): round} of the section's movement: the round of a row without a unit's report (an
    adjusted score)."""
    out = {}
    for sec in session.sections:
        if sec.name == section:
            plan = sec.movement_plan()
            for rnd in range(1, plan.rounds + 1):
                for p in plan.in_round(rnd):
                    for board in p.boards:
                        out.setdefault((p.table, board), rnd)
    return out


def _usebio_identity(info, event, session, section):
    """What USEBIO names besides the results: the club, the session's number and the section, the EBU fields."""
    if event.club is not None:
        info.club = event.club.name
        info.club_id = "" if event.club.id is None else str(event.club.id)
    info.session, info.section = str(event.sessions.index(session) + 1), section
    if event.ebu is not None:
        info.ebu = {k: v for k, v in asdict(event.ebu).items() if v}
    if event.masterpoints is not None:
        info.masterpoints = {k: v for k, v in asdict(event.masterpoints).items() if v is not None}
    info.sections = len(session.sections)


def render(conn, standings, fmt, section=None, table=None, irregular="notes", board=None, withhold=()):
    """The export: text for pbn, usebio, a csv `table` and a lin `board`; the bytes of a zip of every CSV table
    without one, or of every board's LIN file. `irregular`: how the PBN writes accepted irregularities (notes,
    the default, or marks: pbn_export.auction_lines). The boards in `withhold` are left out (withheld.py: every
    export leaves out what the public pages do)."""
    if fmt not in FORMATS:
        raise ExportError(f"format: one of {', '.join(FORMATS)}, not {fmt!r}")
    if irregular not in pbn_export.IRREGULAR_FORMS:
        raise ExportError(f"irregular: one of {', '.join(pbn_export.IRREGULAR_FORMS)}, not {irregular!r}")
    if board is not None and fmt != "lin":
        raise ExportError(f"board: only LIN has a file per board ({fmt} is one file)")
    if table is not None and (fmt != "csv" or table not in results_csv.TABLES):
        raise ExportError(f"table: only CSV has tables, one of {', '.join(results_csv.TABLES)}, not {table!r}"
                          if fmt == "csv" else f"table: only CSV has tables ({fmt} is one file)")
    pub = publication(conn, standings, section, withhold)
    if fmt == "pbn":
        return pbn_export.dumps(pub, irregular=irregular)
    if fmt == "lin":
        return _lin(pub, board)
    if fmt == "usebio":
        return usebio.dumps(pub)
    if table is not None:
        return results_csv.table(pub, table)
    return results_csv.archive(pub)


def _lin(pub, board):
    files = lin_export.boards(pub)
    if board is None:
        if not files:
            raise ExportError("lin: no board has an auction to show (a LIN file is one table's auction and deal)")
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in files.items():  # a fixed date: the same session gives the same bytes
                z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), text.encode("utf-8"),
                           zipfile.ZIP_DEFLATED)
        return out.getvalue()
    text = files.get(f"board-{board}.lin")
    if text is None:
        played = ", ".join(str(r.board) for r in pub.boards if r.auctions) or "none"
        raise ExportError(f"board: no auction of board {board} is known (boards with one: {played})")
    return text


def media_type(fmt, table=None, board=None):
    """The Content-Type and file name extension of an export."""
    if (fmt == "csv" and table is None) or (fmt == "lin" and board is None):
        return ZIP, "zip"
    return FORMATS[fmt], {"pbn": "pbn", "usebio": "xml", "csv": "csv", "lin": "lin"}[fmt]
