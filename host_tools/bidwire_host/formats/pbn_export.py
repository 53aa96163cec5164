"""PBN 2.1 export format (§2.1, §3.4, §5): the event's boards with their travellers and standings.

Per board: one game per result played (its players, Contract, Declarer, Result, Score, and the Auction with alerts
as notes when it is known), or, when every result is adjusted, one game for the traveller alone; the board's first
game carries the ScoreTable and
the file's first game the TotalScoreTable. Tags: the 15 mandatory ones in order, then the others sorted;
sections: Auction, then tables sorted by name (§3.1). CRLF line ends (§2.3).

Alerts are notes `=n=` with [Note "n:explanation"] (§3.5.4: "a note is used for indicating alerts"); the
`!` suffix means "good call" in PBN (§3.5.3), so it is not used for alerts. Irregularities the table accepted
are written by default so that every reader tried replays the auction the table played (docs/scorer.md): an
insufficient bid as the bid with a note, and for each player a call out of rotation skipped a `Pass` with a note
saying he did not call (`1H Pass =1= 2H`: North opens, South bids out of rotation over East, and the auction goes
on from South). `irregular="marks"` writes §3.9's marks instead (`^I 1H`, `1H ^S 2H`), which few readers know.
A mandatory tag whose value is unknown is "?", one that does not apply to the game (the players and the
contract of a hand-record file, the contract of an adjusted score) is "" (§3.4); the Deal is "?" only when the
board has no hand record. Every value that comes from outside (event, names, pair ids, alert explanations) is
written as a PBN string (§3.2): quote and backslash escaped, and no line break or other control character,
which a string token cannot hold (each becomes a space).
Adjusted scores carry a caret (§5.2): ^A+ / ^A- in the score columns, a percentage as ^60 in the
percentage columns, an assigned score as ^140 / ^-620. A weighted score has no PBN notation: its row
gets only its matchpoints or IMPs.
"""
from __future__ import annotations

import re

from anyascii import anyascii

from bidwire.core.calls import SEATS, is_bid, lho
from bidwire.core.readback import CallError, parse_call
from bidwire_host.formats.publish import SCORING_TAGS, BoardRecord, EventInfo, Publication
from bidwire_host.scoring.model import Artificial, Assigned, format_number
from bidwire_host.scoring.ranking import contestants

MANDATORY = ("Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer", "Vulnerable", "Deal",
             "Scoring", "Declarer", "Contract", "Result")
VUL_TAGS = ("None", "NS", "EW", "All")  # export format: None and All (§3.4.10)


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


def pbn_text(value):
    """Text in PBN's character set, ISO 8859-1 (PBN 2.1 §2.2), written so that every reader decodes it alike: in
    ASCII, the part of it that UTF-8 shares, each other character in its nearest ASCII form as anyascii gives it
    ("Łukasz Żółć" -> "Lukasz Zolc", "Hélène" -> "Helene", "Дмитрий" -> "Dmitriy"). Latin-1's own é written as one
    byte is garbled by the readers that decode UTF-8 (endplay, bridgebots), and written in UTF-8 is two
    characters to the standard's verifier ("Bad character"): docs/scorer.md "What each reader reads". The exact
    text stays in the USEBIO and the CSV."""
    text = str(value)
    return text if text.isascii() else anyascii(text)


def quote(value):
    """A PBN string token (§3.2): Latin-1 (pbn_text), backslash and quote escaped, control characters (line breaks,
    tabs) as spaces."""
    text = _CONTROL.sub(" ", pbn_text(value))
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _cell(value):
    if value is None:
        return "-"
    text = pbn_text(format_number(value))
    return quote(text) if (not text or _CONTROL.search(text) or any(c in text for c in ' []{};"%\\')) else text


def table_lines(name, columns, rows):
    """A table section: [Name "Col\\wA;..."] then rows padded to each column's width (§5.2). A column's width is
    "a backslash followed by an integer" (PBN 2.1 §3.8), written as that one backslash, as every table in the
    published archives is and as the reference verifier reads it: the header is not an escaped string (its column
    names are ours, with no quote or backslash in them)."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(r[i]) for r in cells] + [1]) for i in range(len(columns))]
    specs = [f"{c}\\{w}{'L' if align == 'L' else 'R'}" for (c, align), w in zip(columns, widths, strict=True)]
    lines = [f'[{name} "{";".join(specs)}"]']
    for r in cells:
        lines.append(" ".join(v.ljust(w) if align == "L" else v.rjust(w)
                              for v, w, (_, align) in zip(r, widths, columns, strict=True)).rstrip())
    return lines


def _score_cells(result):
    a = result.adjusted
    if isinstance(a, Artificial):
        return [None if not isinstance(code, str) else "^" + code for code in (a.ns, a.ew)]
    if isinstance(a, Assigned):
        return [f"^{a.ns_score}", f"^{-a.ew_score}"]
    if a is not None:
        return [None, None]
    s = result.score_ns
    return [s if s >= 0 else None, -s if s < 0 else None]


def _pct_cells(row):
    a = row.result.adjusted
    if isinstance(a, Artificial):
        return [None if isinstance(code, str) else f"^{format_number(code)}" for code in (a.ns, a.ew)]
    return [row.pct_ns, row.pct_ew]


def score_table(record, method, names=None, two_fields=False):
    imp = method not in ("mp", "neuberg")
    rows = record.rows
    has_table = any(r.result.table for r in rows)
    has_pct = not imp or any(isinstance(r.result.adjusted, Artificial) and not isinstance(r.result.adjusted.ns, str)
                             for r in rows)
    columns = ([("Table", "R")] if has_table else []) + [
        ("PairId_NS", "R"), ("PairId_EW", "R"), ("Contract", "L"), ("Declarer", "L"), ("Result", "R"),
        ("Score_NS", "R"), ("Score_EW", "R")]
    columns += [("IMP_NS", "R"), ("IMP_EW", "R")] if imp else [("MP_NS", "R"), ("MP_EW", "R")]
    if has_pct:
        columns += [("Percentage_NS", "R"), ("Percentage_EW", "R")]
    if names:
        columns += [("Names_NS", "L"), ("Names_EW", "L")]
    written = [record.written(n) for n in (("imp_ns", "imp_ew") if imp else ("mp_ns", "mp_ew"))]  # sum exactly
    out = []
    for i, row in enumerate(rows):
        r = row.result
        played = r.adjusted is None
        cells = ([r.table] if has_table else []) + [
            r.ns, r.ew, r.contract if played else None, r.declarer if played else None,
            r.tricks if played else None] + _score_cells(r)
        figures = [written[0][i], written[1][i]]
        if isinstance(r.adjusted, Artificial) and not imp:
            figures = [f"^{format_number(x)}" for x in figures]
        cells += figures
        if has_pct:
            cells += _pct_cells(row)
        if names:
            cells += [names.get(who) for who in contestants(r, two_fields)]
        out.append(cells)
    return table_lines("ScoreTable", columns, out)


def total_score_table(pub):
    if pub.team_standings is not None:
        return _team_score_table(pub)
    imp = pub.method not in ("mp", "neuberg")
    columns = [("Rank", "R")] + ([("Direction", "L")] if pub.two_fields else []) + [("PairId", "R")]
    if pub.names:
        columns.append(("Names", "L"))
    columns += [("TotalIMP", "R")] if imp else [("TotalMP", "R"), ("TotalPercentage", "R")]
    columns.append(("NrBoards", "R"))
    rows = []
    for s in pub.standings:
        who = s.contestant
        direction, pair = who if isinstance(who, tuple) else (None, who)
        t = pub.totals[who]
        cells = [s.rank] + ([direction] if pub.two_fields else []) + [pair]
        if pub.names:
            cells.append(pub.names.get(who))
        cells += [t.imps] if imp else [t.mp, t.pct]
        rows.append(cells + [t.boards])
    return table_lines("TotalScoreTable", columns, rows)


def _team_score_table(pub):
    """A teams event's TotalScoreTable (PBN 2.1 §5.10): each team's place, its VPs and its IMPs (net), best
    first."""
    columns = [("Rank", "R"), ("TeamId", "R"), ("TeamName", "L"), ("TotalVP", "R"), ("TotalIMP", "R"),
               ("NrBoards", "R")]
    rows = [[s.rank, s.team, s.name, f"{s.vps // 100}.{s.vps % 100:02d}", s.imps_for - s.imps_against, s.boards]
            for s in pub.team_standings]
    return table_lines("TotalScoreTable", columns, rows)


def _code(name):
    try:
        return parse_call(name)
    except CallError:
        return None


IRREGULAR_FORMS = ("notes", "marks")
# The note each form-"notes" irregularity carries (§3.5.4: a note on the call). Law numbers as in laws.md.
INSUFFICIENT_NOTE = "insufficient bid, accepted (Law 27 A1)"
SKIPPED_NOTE = "{seat} did not call: the next call, made out of rotation, was accepted (Law 29 A)"
SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}


def replay(dealer, calls):
    """The auction's calls in order, each as (call, its PBN name, the seats it skipped, whether it is an
    insufficient bid): a call out of rotation that was accepted skips the players between the one whose turn it was
    and its maker (Law 29 A); an insufficient bid that was accepted stands (Law 27 A1). For the writers of PBN and
    LIN, which mark these each its own way."""
    turn = SEATS.index(dealer) if dealer and dealer in SEATS else None
    last_bid = -1
    for c in calls:
        name = "Pass" if c.call.upper() in ("P", "PASS") else c.call.upper()
        skipped = []
        if turn is not None and c.seat and c.seat in SEATS:
            skipped = [SEATS[(turn + k) % 4] for k in range((SEATS.index(c.seat) - turn) % 4)]
            turn = SEATS.index(c.seat)
        code = _code(name)
        insufficient = False
        if code is not None and is_bid(code):
            insufficient = code <= last_bid
            last_bid = code
        yield c, name, skipped, insufficient
        turn = lho(turn) if turn is not None else None


def auction_lines(dealer, calls, irregular="notes"):
    """The Auction section: four calls a line from the dealer, alerts as =n= notes, then the Note tags.

    Accepted irregularities (docs/scorer.md "Irregular auctions"), by `irregular`:
    - "notes" (the default, which endplay, bridge-utils and bridgebots all replay with the right seats): an
      insufficient bid is the bid with a note; each player a call out of rotation skipped gets a `Pass` with a
      note saying he did not call, so that every reader's rotation gives each call its seat;
    - "marks": as §3.9 writes them, `^I` before an insufficient bid and one `^S` for each player skipped."""
    if irregular not in IRREGULAR_FORMS:
        raise ValueError(f"irregular: one of {', '.join(IRREGULAR_FORMS)}, not {irregular!r}")
    lines = [f"[Auction {quote(dealer)}]"]
    notes = {}

    def note(text):
        return f"={notes.setdefault(text, len(notes) + 1)}="

    tokens = []  # one per seat in rotation: a call with its annotations, ^S, or a noted Pass
    plain = []
    for c, name, skipped, insufficient in replay(dealer, calls):
        for seat in skipped:
            tokens.append("^S" if irregular == "marks" else f"Pass {note(SKIPPED_NOTE.format(seat=SEAT_NAMES[seat]))}")
        token = name
        if insufficient:  # Law 27: not higher than the last bid; it stood, so the auction holds it
            token = "^I " + name if irregular == "marks" else f"{name} {note(INSUFFICIENT_NOTE)}"
        if c.alert or c.explanation:
            token += " " + note(c.explanation or "alert")
        tokens.append(token)
        plain.append(name)
    for i in range(0, len(tokens), 4):
        lines.append(" ".join(tokens[i:i + 4]))
    ended = plain == ["Pass"] * 4 or (len(plain) >= 4 and plain[-3:] == ["Pass"] * 3 and set(plain) != {"Pass"})
    if not ended:
        lines.append("*")
    lines += [f"[Note {quote(f'{i}:{text}')}]" for text, i in notes.items()]
    return lines


def _clock(seconds):
    """Whole seconds as §5.4 writes a time: SS, MM:SS or HH:MM:SS."""
    h, m, s = seconds // 3600, seconds // 60 % 60, seconds % 60
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}" if m else str(s)


def auction_time_table(dealer, calls):
    """The AuctionTimeTable (§5.4): each call's thinking time as the unit measured it, one row per call token of
    the Auction section in its order (a skipped player's noted Pass or ^S, which no one pressed, is "-"), in whole
    seconds (the standard's SS: tenths rounded half up), and TotalTime, the sum since the board's start ("?" from
    the first call without one); None when no call has a tempo (a unit before firmware 0.5)."""
    if not any(c.tempo is not None for c in calls):
        return None
    rows, total = [], 0
    for c, _name, skipped, _insufficient in replay(dealer, calls):
        rows += [[None, None] for _ in skipped]
        if c.tempo is None or total is None:
            total = None
        else:
            total += c.tempo
        rows.append(["?" if c.tempo is None else _clock((c.tempo + 5) // 10),
                     "?" if total is None else _clock((total + 5) // 10)])
    return table_lines("AuctionTimeTable", [("Time", "R"), ("TotalTime", "R")], rows)


def _game(pub, record, row_index, tables, unknown="?", supplemental=None, irregular="notes"):
    """One game's lines; `unknown` is what an unknown Event or Site is written as ("" in a hand-record file, whose
    games are deals, not games played: §3.4's 'dealing program'). Export-format order (§3.1, §3.4): the 15
    mandatory tags, the supplemental tags (`supplemental` and the game's own) sorted by name, the auction section
    with its notes, then the tables sorted by name. There is no play section: a unit records the opening lead's
    suit, not the cards played."""
    ev = pub.event
    tags = {"Event": ev.event or unknown, "Site": ev.site or unknown, "Date": ev.pbn_date(),
            "Board": str(record.board), "West": "", "North": "", "East": "", "South": "",
            "Dealer": record.dealer_seat, "Vulnerable": VUL_TAGS[record.vul],
            "Deal": record.deal.pbn(record.dealer_seat) if record.deal else "?",
            "Scoring": SCORING_TAGS.get(pub.method, ""), "Declarer": "", "Contract": "", "Result": ""}
    extra = dict(supplemental or {})
    calls = None
    if row_index is not None:
        r = record.rows[row_index].result
        seats = {"N": "North", "E": "East", "S": "South", "W": "West"}
        named = record.players.get(row_index, {})
        for seat, tag in seats.items():  # a game played at a table: its players, "?" when not known
            tags[tag] = named.get(seat) or "?"
        if r.adjusted is None:
            passed_out = (r.contract or "").upper() in ("PASS", "P")
            tags["Contract"] = r.contract or "?"
            tags["Declarer"] = "" if passed_out else r.declarer or "?"
            tags["Result"] = "" if passed_out else "?" if r.tricks is None else str(r.tricks)
            extra["Score"] = f"NS {r.score_ns}" if r.score_ns >= 0 else f"EW {-r.score_ns}"
        extra.update({k: v for k, v in (("PairNS", r.ns), ("PairEW", r.ew), ("Table", r.table)) if v})
        calls = record.auctions.get(row_index)
    lines = [f"[{k} {quote(tags[k])}]" for k in MANDATORY]
    lines += [f"[{k} {quote(extra[k])}]" for k in sorted(extra)]
    if calls:
        lines += auction_lines(record.dealer_seat, calls, irregular)
        timed = auction_time_table(record.dealer_seat, calls)
        if timed:
            tables = dict(tables, AuctionTimeTable=timed)
    for name in sorted(tables):
        lines += tables[name]
    return lines


DENOMS = ("NT", "S", "H", "D", "C")


def analysis_tags(analysis):
    """The deal's par as PBN 2.1 tags: OptimumScore (par, the side that scores it first) and ParContract. They are
    identification-section tags (§3.4), so in export format they sort among the supplemental tags, before the
    auction section (§3.1)."""
    if not analysis:
        return {}
    score = analysis["par"]["score"]
    tags = {"OptimumScore": ("NS " if score >= 0 else "EW ") + str(abs(score))}
    sides = {}
    for text in analysis["par"]["contracts"]:  # endplay's "4♠N=", "5♦Wx-2": level, denomination, declarer, result
        t = text.translate(str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C"}))
        level, rest = t[0], t[1:]
        denom = "NT" if rest.startswith("NT") else rest[0]
        seat = rest[len(denom)]
        doubled = "X" if "x" in rest[len(denom) + 1:].lower() else ""
        sides.setdefault(f"{level}{denom}{doubled}", set()).add("NS" if seat in "NS" else "EW")
    if sides:
        tags["ParContract"] = ", ".join(f"{side} {c}" for c, ss in sides.items() for side in sorted(ss))
    return tags


def optimum_result_table(analysis):
    """The OptimumResultTable (§5.7): the tricks each seat takes as declarer in each denomination, double dummy
    (columns Declarer, Denomination, Result, as results programs write them)."""
    rows = [[seat, d, analysis["dd"][seat][d]] for seat in "NSEW" for d in DENOMS]
    return table_lines("OptimumResultTable", [("Declarer", "L"), ("Denomination", "L"), ("Result", "R")], rows)


def dumps(pub, *, crlf=True, irregular="notes"):
    """The publication as PBN 2.1 export-format text; `irregular`: how accepted irregularities are written
    (auction_lines)."""
    if irregular not in IRREGULAR_FORMS:
        raise ValueError(f"irregular: one of {', '.join(IRREGULAR_FORMS)}, not {irregular!r}")
    return _join(_games(pub, total_score_table(pub) if pub.standings else None, irregular), crlf)


def event_dumps(overall, sessions, *, crlf=True, irregular="notes"):
    """A whole event of several sessions (publish.EventOverall, and [(session name, [Publication])] in order) as
    one PBN 2.1 file: every session's games, each with its session as the Stage (§4.4.6: "the stage of a
    multistage event"), and the file's first game carrying the event's TotalScoreTable: each contestant's place
    overall, its total and its percentage in each session (§5.10: the totals of "(a part of) a tournament")."""
    if irregular not in IRREGULAR_FORMS:
        raise ValueError(f"irregular: one of {', '.join(IRREGULAR_FORMS)}, not {irregular!r}")
    games, totals = [], overall_score_table(overall)
    for name, pubs in sessions:
        for pub in pubs:
            made = _games(pub, totals, irregular, stage=name)
            totals = None if made else totals
            games += made
    return _join(games, crlf)


def overall_score_table(overall):
    """The TotalScoreTable of an event of several sessions: Rank, the pair (its direction and number in the first
    session it played), Names, the total it is ranked on (TotalPercentage; TotalMP when the matchpoints are
    summed), Percentage_1 to Percentage_n (each session's; "-" where it did not play) and NrBoards."""
    two = any(s.direction for s in overall.standings)
    columns = [("Rank", "R")] + ([("Direction", "L")] if two else []) + [("PairId", "R"), ("Names", "L")]
    columns.append(("TotalMP", "R") if overall.carry_over == "sum" else ("TotalPercentage", "R"))
    columns += [(f"Percentage_{k}", "R") for k in range(1, len(overall.sessions) + 1)] + [("NrBoards", "R")]
    rows = []
    for s in overall.standings:
        rows.append([s.rank] + ([s.direction or "-"] if two else []) + [s.pair, s.names, format_number(s.score)] +
                    ["-" if p is None else format_number(p) for p in s.sessions] + [s.boards])
    return table_lines("TotalScoreTable", columns, rows)


def _games(pub, totals, irregular, stage=None):
    """Each board's games (their lines), the first carrying the TotalScoreTable `totals` (its lines, or None)."""
    games = []
    each = {"Stage": stage} if stage else {}
    for k, record in enumerate(pub.boards):
        tables = {"ScoreTable": score_table(record, pub.method, pub.names, pub.two_fields)}
        par = analysis_tags(record.analysis) | each
        if record.analysis:
            tables["OptimumResultTable"] = optimum_result_table(record.analysis)
        if k == 0 and totals:
            tables["TotalScoreTable"] = totals
        # a game per result played (its contract, declarer and result, its players), with its auction where there is
        # one; a board with none (all adjusted) is one game for its traveller alone
        played = {i for i, row in enumerate(record.rows) if row.result.adjusted is None}
        indexes = sorted(played | set(record.auctions)) or [None]
        first = len(games)
        for i in indexes:
            games.append(_game(pub, record, i, tables, supplemental=par, irregular=irregular))
            tables, par = {}, each
        for i, by in sorted(record.entered.items()):  # a commentary: no tag says who entered a result
            table = record.rows[i].result.table
            games[first] = games[first] + [f"{{Table {table}: result entered by the director ({_comment(by)})}}"]
    return games


def _comment(text):
    """Text safe inside a PBN commentary: no brace, no line break, Latin-1 (pbn_text)."""
    return " ".join(pbn_text(text).replace("{", "(").replace("}", ")").split())[:80]


def hand_records(hands, event=None, *, crlf=True):
    """A hand-record file: one game per board with Dealer, Vulnerable and Deal ({board: HandRecord})."""
    pub = Publication(event or EventInfo(), [], {}, [])
    games = [_game(pub, BoardRecord(n, [], h.deal, h.dealer, h.vulnerable), None, {}, unknown="")
             for n, h in sorted(hands.items())]
    return _join(games, crlf)


def _join(games, crlf):
    text = ["% PBN 2.1", "% EXPORT"]
    for n, game in enumerate(games):
        if n:
            text.append("")
        text += game
    eol = "\r\n" if crlf else "\n"
    # An empty line after the last game too, as after every other: bridgebots 0.0.12 (_split_pbn) ends a game only
    # at an empty line, and reads a last game without one as its characters.
    return eol.join(text) + eol + (eol if games else "")
