"""The decisions on scores: adjusted and assigned scores, and penalties (docs/collector.md).

* `adjust` (Laws 12 C, 86): an artificial adjusted score for each side (A+, A, A- = 60/50/40 % of the top
  in matchpoints, +3/0/-3 IMPs in IMP methods, or a percentage), or an assigned score (total points, NS's
  view; `score_ew` for a non-balancing one), for one board at one table of a section. It replaces the table's
  result on the traveller (or stands for the one that was never played); a later `adjust` for the same table
  and board replaces it, `clear` removes it (the table's own result counts again).
  `not_played`: the board was not played at that table (slow play); without a score, the event's
  `evening.not_played` (Law 12 C; A/A by default).
* `penalty` (Law 90; 91 disciplinary): a ledger entry against one pair or team, in the ranking's unit;
  it never changes a board's score, it is deducted from the total before ranking (state.deduction).
"""
from fractions import Fraction

from bidwire_host.collector.decisions.checks import contestants, period_check, pick_section, sat, where
from bidwire_host.collector.decisions.journal import MP_METHODS, ActionError, fold, insert
from bidwire_host.scoring.ledger import KINDS
from bidwire_host.scoring.model import Artificial, Assigned, ScoringError, artificial_code

PENALTY_UNITS = {"mp": ("pct", "mp", "top"), "imp": ("imps",)}


def _code_text(value):
    code = artificial_code(Fraction(str(value)) if isinstance(value, float) else value)
    return code if isinstance(code, str) else str(code)


def adjust(conn, s, body, at):
    """Check and store an `adjust` (in the writer's transaction); the stored action."""
    a = where(s, body.get("section"), body["table"], body["board"])
    not_played = bool(body.get("not_played"))
    if not_played and all(body.get(k) is None for k in ("ns", "ew", "score_ns", "score_ew")) and not body.get("clear"):
        body = dict(body, ns=s.event.night().not_played[0], ew=s.event.night().not_played[1])  # the club's default
    artificial = body.get("ns") is not None or body.get("ew") is not None
    assigned = body.get("score_ns") is not None or body.get("score_ew") is not None
    clear = bool(body.get("clear"))
    if artificial + assigned + clear != 1:
        raise ActionError("give one of: ns and ew (artificial: A+, A, A- or a percentage), score_ns (assigned "
                          "score, NS's view; score_ew if non-balancing), or clear")
    ns, ew = sat(fold(conn), a)
    out = {"section": a["section"], "table": a["table"], "board": body["board"], "round": a["round"],
           "ns": ns, "ew": ew,
           "reason": body.get("reason") or ("not played (Law 12 C)" if not_played else "")}
    if not_played:
        out["not_played"] = True
    try:
        if artificial:
            if body.get("ns") is None or body.get("ew") is None:
                raise ActionError("an artificial adjusted score needs both ns and ew (e.g. A+ and A-: Law 12 C)")
            out["artificial"] = [_code_text(body["ns"]), _code_text(body["ew"])]
            Artificial(*out["artificial"])
        elif assigned:
            if body.get("score_ns") is None:
                raise ActionError("score_ns: an assigned score needs NS's score (score_ew only if it differs)")
            ew = body["score_ew"] if body.get("score_ew") is not None else body["score_ns"]
            Assigned(body["score_ns"], ew)
            out["assigned"] = [body["score_ns"], ew]
        else:
            out["clear"] = True
    except ScoringError as e:
        raise ActionError(str(e)) from None
    state = fold(conn)
    post = period_check(state, at, body)
    return insert(conn, "adjust", out, body.get("by"), at, post)


def penalty(conn, s, body, at):
    """Check and store a `penalty` (Law 90 procedural, 91 disciplinary); the stored action."""
    if s is None:
        raise ActionError("no event loaded: a penalty needs the pairs (POST /api/v1/event)", 409)
    sec = pick_section(s, body.get("section"))
    pairs, two = contestants(s, sec)
    pair = str(body["pair"])
    direction = body.get("direction")
    if two and direction not in ("NS", "EW"):
        raise ActionError(f"direction: NS or EW (section {sec.name} ranks NS and EW apart)")
    who = (direction, pair) if two else pair
    if who not in pairs:
        raise ActionError(f"pair: no {' '.join(who) if two else 'pair ' + pair} in section {sec.name}", 404)
    family = "mp" if s.method in MP_METHODS else "imp"
    unit = body.get("unit") or ("pct" if family == "mp" else "imps")
    if unit not in PENALTY_UNITS[family]:
        raise ActionError(f"unit: a {s.method} ranking takes penalties in {', '.join(PENALTY_UNITS[family])}, "
                          f"not {unit!r}")
    kind = body.get("kind") or "procedural"
    if kind not in KINDS:
        raise ActionError(f"kind: procedural (Law 90) or disciplinary (Law 91), not {kind!r}")
    try:
        amount = Fraction(str(body["amount"]))
    except (ValueError, ZeroDivisionError):
        raise ActionError(f"amount: a number, not {body['amount']!r}") from None
    if amount <= 0:
        raise ActionError(f"amount: the points taken off, more than 0, not {body['amount']}")
    if not (body.get("reason") or "").strip():
        raise ActionError("reason: a penalty needs a reason (e.g. 'Law 90 B2: unduly slow play')")
    board = body.get("board")
    out = {"section": sec.name, "direction": direction if two else None, "pair": pair, "amount": str(amount),
           "unit": unit, "kind": kind, "law": KINDS[kind], "reason": body["reason"].strip(), "board": board}
    state = fold(conn)
    post = period_check(state, at, body)
    return insert(conn, "penalty", out, body.get("by"), at, post)
