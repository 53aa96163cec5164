"""The validator: the host re-checks what the units report, with the same core the units run (docs/architecture.md §5).

Each check returns alerts, dicts {"kind", "law", "detail", "data"}, for the director; nothing here changes or
discards what a unit sent. The auction is replayed from the unit's input tokens through `bidwire.core.record`
(no second implementation of the Laws on the host); contract and declarer are the host's, never the unit's.
"""
import json

from bidwire.core import board as boards
from bidwire.core import readback, record
from bidwire.core.auction import MAX_INPUTS, Auction
from bidwire.core.calls import STRAINS, seat_name, side
from bidwire.core.codes import ENFORCE, RECORD, RULE_NAMES, VERDICT_NAMES, rulings
from bidwire.core.readback import CallError, parse_seat
from bidwire.core.score import parse_contract, score_ns
from bidwire_host.collector import commands, event_setup
from bidwire_host.event import analysis, seating
from bidwire_host.event import files as event_files
from bidwire_host.event import model as event_mod


def alert(kind, detail, law=None, **data):
    return {"kind": kind, "law": law, "detail": detail, "data": data}


def _replayed(board, mode, inputs):
    """(auction, error): the auction of `board` rebuilt from its tokens in the core, or None and why not."""
    if not isinstance(inputs, list):
        return None, "the auction_end has no list of inputs"
    if len(inputs) > MAX_INPUTS:
        return None, f"{len(inputs)} inputs, more than a board's input log holds ({MAX_INPUTS})"
    try:
        a = Auction(boards.dealer(board), ENFORCE if mode == "enforce" else RECORD)
        for i, token in enumerate(inputs):
            try:
                readback.apply(a, token)
            except (CallError, ValueError, TypeError) as e:
                return None, f"input {i} ({token}): {e}"
    except ValueError as e:
        return None, str(e)
    return a, None


def replay(board, mode, inputs):
    """(contract, declarer, error): the auction of `board` rebuilt from its tokens in the core.

    contract is "Pass", text such as "4HX", or None while the replayed auction has not ended; error says why
    the tokens could not be replayed (then contract and declarer are None).
    """
    a, error = _replayed(board, mode, inputs)
    if error is not None:
        return None, None, error
    return _contract(a)


def _contract(a):
    contract = record.contract_text(a)
    d = a.declarer()
    declarer = "NESW"[d] if contract not in (None, "Pass") and d >= 0 else None
    return contract, declarer, None


def same_contract(a, b):
    """Contracts compared as the Laws read them: '3nt' and '3NT' agree, 'Pass' and 'P' agree."""
    try:
        return parse_contract(a) == parse_contract(b)
    except ValueError:
        return a == b


def check_auction_end(board, mode, event):
    """(contract, declarer, alerts) for an auction_end: the host's replay compared with the unit's claim. One with
    more inputs than a unit's log holds (the core's MAX_INPUTS) is not replayed: an alert, without the inputs."""
    inputs = event.get("inputs")
    claim_contract, claim_declarer = event.get("contract"), event.get("declarer")
    if isinstance(inputs, list) and len(inputs) > MAX_INPUTS:
        return None, None, [alert("auction_too_long", f"board {board}: the auction_end holds {len(inputs)} inputs, "
                                  f"more than any unit logs for a board ({MAX_INPUTS}); not replayed",
                                  count=len(inputs), limit=MAX_INPUTS, unit_contract=claim_contract,
                                  unit_declarer=claim_declarer)]
    a, error = _replayed(board, mode, inputs)
    contract, declarer, _ = _contract(a) if error is None else (None, None, error)
    facts = {"inputs": event.get("inputs"), "unit_contract": claim_contract, "unit_declarer": claim_declarer}
    if error is not None:
        return None, None, [alert("auction_unreadable", f"board {board}: the auction cannot be replayed: {error}",
                                  **facts)]
    if contract is None:
        return None, None, [alert("auction_not_ended", f"board {board}: the unit says the auction ended, but "
                                  f"replayed it is still open (unit: {claim_contract} by {claim_declarer})", **facts)]
    out = []
    if not same_contract(contract, claim_contract) or declarer != claim_declarer:
        out.append(alert("contract_mismatch", f"board {board}: the unit says {claim_contract} by {claim_declarer}, "
                         f"the auction replayed gives {contract} by {declarer}",
                         host_contract=contract, host_declarer=declarer, **facts))
    return contract, declarer, out + lead_restrictions(board, a)


def lead_restrictions(board, a):
    """Law 26, for the director: each lead-restriction candidate of the replayed auction (the core's `leads`) that
    binds, i.e. whose offender defends, says what declarer may do at the offender's partner's first lead (26 A:
    the withdrawn call named a suit, bar or require it; 26 B: bar any one suit)."""
    d = a.declarer()
    if record.contract_text(a) in (None, "Pass") or d < 0:
        return []
    out = []
    for offender, seat, suit, law, at in a.leads:
        if side(offender) == side(d):  # the offender is declarer or dummy: nothing to restrict
            continue
        what = f"bar or require a {STRAINS[suit]} lead" if suit >= 0 else "bar the lead of any one suit"
        section = "A" if suit >= 0 else "B"
        out.append(alert("lead_restriction", f"board {board}: declarer {seat_name(d)} may {what} at "
                         f"{seat_name(seat)}'s first lead (Law 26 {section}: {seat_name(offender)}'s call withdrawn "
                         f"under Law {law})", law=26, declarer=seat_name(d), seat=seat_name(seat),
                         offender=seat_name(offender), suit=STRAINS[suit] if suit >= 0 else None, withdrawn_law=law,
                         at=at))
    return out


def check_irregularity(board, event):
    """The rulings a unit offers on an irregularity (`options`) against the core's for its kind (laws.md §4.19):
    an alert when they differ. One settled by the law at once offers none."""
    kind, options = event.get("kind"), event.get("options") or []
    if kind not in VERDICT_NAMES:
        return [alert("options_mismatch", f"board {board}: an irregularity of unknown kind {kind}; the unit offers "
                      f"{', '.join(map(str, options)) or 'no ruling'}", law=event.get("law"), irregularity=kind,
                      options=options)]
    expected = [] if event.get("settled") == "law" else [RULE_NAMES[r] for r in rulings(VERDICT_NAMES.index(kind))]
    if options == expected:
        return []
    offered = ", ".join(map(str, options)) or "no ruling"
    return [alert("options_mismatch", f"board {board}: for {kind} the unit offers {offered}, the Laws allow "
                  f"{', '.join(expected) or 'none'}", law=event.get("law"), irregularity=kind, options=options,
                  expected=expected)]


def check_result(board, contract, declarer, event):
    """(contract, declarer, score_ns, alerts) for a result: Law 77 on the host for its contract and the tricks.

    contract/declarer are the host's from the board's auction_end (None when there was none or it was
    unreadable: then the unit's claim is scored, and an alert says so).
    """
    tricks = event.get("tricks")
    claim_contract, claim_declarer, claim_score = event.get("contract"), event.get("declarer"), event.get("score_ns")
    out = []
    if contract is None:
        out.append(alert("result_without_auction", f"board {board}: a result ({claim_contract} by {claim_declarer})"
                         " without an auction the host could replay; the unit's contract is used",
                         unit_contract=claim_contract, unit_declarer=claim_declarer))
        contract, declarer = claim_contract, claim_declarer
    elif not same_contract(contract, claim_contract) or declarer != claim_declarer:
        out.append(alert("result_contract_mismatch", f"board {board}: the result is for {claim_contract} by "
                         f"{claim_declarer}, the auction gives {contract} by {declarer}",
                         host_contract=contract, host_declarer=declarer, unit_contract=claim_contract,
                         unit_declarer=claim_declarer))
    try:
        passed_out = parse_contract(contract) is None
    except ValueError:
        out.append(alert("result_unreadable", f"board {board}: cannot read the contract {contract}", contract=contract))
        return contract, declarer, None, out
    if passed_out:
        if tricks is not None:
            out.append(alert("impossible_tricks", f"board {board}: {tricks} tricks reported on a passed-out board",
                             law=22, tricks=tricks))
        score = 0
    elif not isinstance(tricks, int) or isinstance(tricks, bool) or not 0 <= tricks <= 13:
        out.append(alert("impossible_tricks", f"board {board}: {tricks} tricks is not a result (0-13)",
                         tricks=tricks, contract=contract))
        return contract, declarer, None, out
    else:
        try:
            score = score_ns(contract, parse_seat(declarer or ""), boards.vulnerability(board), tricks)
        except (CallError, ValueError) as e:
            out.append(alert("result_unreadable", f"board {board}: cannot score {contract} by {declarer}: {e}",
                             contract=contract, declarer=declarer))
            return contract, declarer, None, out
    if claim_score != score:
        out.append(alert("score_mismatch", f"board {board}: the unit scored {claim_score} for North-South, "
                         f"Law 77 gives {score}", law=77, unit_score_ns=claim_score, host_score_ns=score))
    return contract, declarer, score, out


def check_board_start(conn, board_id, start):
    """For a new board row: the assignment it names, the event's movement (Law 15: this board, these pairs, at
    this table this round), Law 15 (a pair plays a board it has played before), and two units at one table.

    With an event loaded whose section is a Mitchell (or a team match), a pair is its line and number: NS 1
    and EW 1 are different pairs. Otherwise (a Howell, no event) a pair number is one pair whichever line."""
    out = []
    section, table, board = start["section"], start["table_no"], start["board"]
    if section is not None:
        boards = commands.assignment(conn, start["unit"], section, table, start["round"])
        late = commands.late_boards(conn, start["unit"], section, table, start["round"])
        where = f"section {section} table {table} round {start['round']}"
        if board in late:
            pass  # a board sent to this unit for late play (late_play.py)
        elif boards is None:
            out.append(alert("unknown_assignment", f"board {board}: unit {start['unit']} plays {where}, an "
                             "assignment the collector never sent it", section=section, table=table,
                             round=start["round"]))
        elif board not in boards:
            out.append(alert("board_not_assigned", f"board {board}: not among the boards of {where} "
                             f"({', '.join(map(str, boards))})", law=15, boards=boards))
    setup = event_setup.load(conn)
    if setup is not None and section is not None and table is not None and start["round"] is not None \
            and setup.section(section) is not None:
        try:
            why = seating.check_board_start(setup.event, table, start["round"], board, start["ns"], start["ew"],
                                              section=section, session=setup.session)
        except event_mod.EventError as e:
            why = f"Law 15: {e}"
        if why is not None:
            out.append(alert("movement", f"board {board}: {why}", law=15, section=section, table=table,
                             round=start["round"]))
    if setup is not None and setup.two_fields(section):
        # A Mitchell (or a team match): NS k and EW k are different pairs, so a pair is its line and number.
        pairs = [(line, p) for line, p in (("NS", start["ns"]), ("EW", start["ew"])) if p is not None]
    else:
        pairs = [(None, p) for p in (start["ns"], start["ew"]) if p is not None]
    if pairs:
        terms, args = [], []
        for line, p in pairs:
            columns = {"NS": ("ns",), "EW": ("ew",), None: ("ns", "ew")}[line]
            for c in columns:
                terms.append(f"{c} = ?")
                args.append(p)
        rows = conn.execute(
            f"SELECT unit, table_no, round, ns, ew FROM boards WHERE id != ? AND board = ? AND section IS ? "
            f"AND ({' OR '.join(terms)}) ORDER BY id", (board_id, board, section, *args))
        for r in rows:
            again = [(f"{line} {p}" if line else p) for line, p in pairs
                     if p in ({"NS": (r["ns"],), "EW": (r["ew"],), None: (r["ns"], r["ew"])}[line])]
            out.append(alert("board_played_twice", f"board {board}: pair {' and '.join(again)} (section {section}) "
                             f"played it before at table {r['table_no']} round {r['round']} (unit {r['unit']})",
                             law=15, pairs=again, before={k: r[k] for k in r.keys()}))
    if table is not None:
        rows = conn.execute("SELECT DISTINCT unit FROM boards WHERE id != ? AND board = ? AND section IS ? "
                            "AND table_no = ? AND unit != ?", (board_id, board, section, table, start["unit"]))
        others = [r["unit"] for r in rows]
        if others:
            out.append(alert("two_units_one_table", f"board {board}: section {section} table {table} is also "
                             f"reported by unit {', '.join(others)}", others=others))
    return out


def check_result_unique(conn, unit, seq, row):
    """A second result for one table and board (from this unit or another): both are kept, the director decides."""
    section, table, board = row["section"], row["table_no"], row["board"]
    if table is not None:
        rows = conn.execute("SELECT unit, seq, contract, declarer, tricks FROM results WHERE board = ? "
                            "AND section IS ? AND table_no = ? AND NOT (unit = ? AND seq = ?) ORDER BY rowid",
                            (board, section, table, unit, seq)).fetchall()
        where = f"section {section} table {table}"
    else:
        rows = conn.execute("SELECT unit, seq, contract, declarer, tricks FROM results WHERE board = ? "
                            "AND unit = ? AND table_no IS NULL AND seq != ? ORDER BY rowid",
                            (board, unit, seq)).fetchall()
        where = f"unit {unit}"
    if not rows:
        return []
    before = [{k: r[k] for k in r.keys()} for r in rows]
    others = sorted({r["unit"] for r in rows if r["unit"] != unit})
    if others:
        return [alert("two_units_one_table", f"board {board}: {where} has results from unit {unit} and from "
                      f"{', '.join(others)}", before=before)]
    return [alert("result_repeated", f"board {board}: {where} reported a result again (earlier: "
                  f"{', '.join(str(r['seq']) for r in rows)})", before=before)]


def check_lead(conn, s, board, event):
    """A lead of a suit the leader does not hold in the hand record: the board is fouled (Law 87 A: the cards are
    not where the hand record has them), or the lead was entered wrongly."""
    seat, suit = event.get("seat"), event.get("suit")
    if s is None or seat not in ("N", "E", "S", "W") or suit not in ("C", "D", "H", "S"):
        return []
    try:
        hand = event_files.hand_record(s.event, board, s.session)
    except event_mod.EventError:
        return []
    if analysis.holds_suit(hand, seat, suit) is False:
        name = ("club", "diamond", "heart", "spade")["CDHS".index(suit)]
        return [alert("fouled_board", f"board {board}: {seat} led a {name}, and the hand record gives {seat} "
                      "none: a fouled board (Law 87), or the lead entered wrongly",
                      law=87, seat=seat, suit=suit)]
    return []


def stored_analysis(conn, board):
    row = conn.execute("SELECT body FROM analysis WHERE board = ? ORDER BY at DESC LIMIT 1", (board,)).fetchone()
    return json.loads(row[0]) if row is not None else None


def check_double_dummy(conn, board, contract, declarer, tricks, stored=None):
    """A result more than analysis.SUSPICIOUS_TRICKS tricks away from double dummy: flagged for the scorer (a wrong
    entry is likelier than a great play), as Bridgemate's suspicious contracts. `stored`: the board's stored
    analysis when the caller has read it already (derive.check_stored_results, for every result of a board)."""
    if not isinstance(tricks, int) or isinstance(tricks, bool):
        return []
    dd = analysis.tricks_for(stored if stored is not None else stored_analysis(conn, board), contract, declarer)
    if dd is None or abs(tricks - dd) <= analysis.SUSPICIOUS_TRICKS:
        return []
    return [alert("suspicious_result", f"board {board}: {contract} by {declarer} took {tricks} tricks; double dummy "
                  f"gives {dd}: check the entry", tricks=tricks, double_dummy=dd, contract=contract,
                  declarer=declarer)]
