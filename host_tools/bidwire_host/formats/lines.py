"""JSON Lines front ends to the core for scripting and independent checks: `bidwire referee` and `bidwire score`.

Each input line gives one output line, in order; a line that cannot be used gets {"error": reason}.
"""
import json

from bidwire.core import board, codes, record
from bidwire.core.auction import Auction
from bidwire.core.calls import seat_name
from bidwire.core.readback import CallError, parse_call, parse_seat, parse_vul
from bidwire.core.score import score_ns


class LineError(ValueError):
    """The line's content cannot be used; the message says what to fix."""


def _obj(obj):
    if not isinstance(obj, dict):
        raise LineError("each line must be a JSON object")
    return obj


def referee(obj):
    """Replay `calls` through the auction engine and report the state (stops at the first irregularity)."""
    obj = _obj(obj)
    if "dealer" not in obj:
        raise LineError('missing "dealer": the seat that deals, N, E, S or W')
    mode = obj.get("mode", "record")
    if mode not in ("record", "enforce"):
        raise LineError('"mode" must be "record" or "enforce"')
    calls = obj.get("calls", [])
    if not isinstance(calls, list):
        raise LineError('"calls" must be a list of [seat, call] pairs')
    presses = []
    for i, pair in enumerate(calls):
        if not isinstance(pair, list) or len(pair) != 2:
            raise LineError(f"calls[{i}] must be a [seat, call] pair such as [\"N\", \"1H\"]")
        try:
            presses.append((parse_seat(pair[0]), parse_call(pair[1])))
        except CallError as e:
            raise LineError(f"calls[{i}]: {e}") from None
    try:
        a = Auction(parse_seat(obj["dealer"]), codes.ENFORCE if mode == "enforce" else codes.RECORD)
    except CallError as e:
        raise LineError(f'"dealer": {e}') from None
    irregularity = None
    for i, (seat, call) in enumerate(presses):
        v = a.call(seat, call)
        if v != codes.LEGAL:
            kind = a.why if v == codes.REFUSED else v
            irregularity = {"at": i, "kind": codes.VERDICT_NAMES[kind], "law": a.law}
            break
    if irregularity:
        state = "irregular"
    else:
        state = {codes.AUCTION: "open", codes.PASSED_OUT: "passed_out"}.get(a.phase, "complete")
    d = a.declarer()
    return {
        "id": obj.get("id"),
        "state": state,
        "next": seat_name(a.in_turn()) if state == "open" else None,
        "contract": record.contract_text(a) if a.phase in (codes.ENDED, codes.PLAY) else None,
        "declarer": seat_name(d) if d >= 0 else None,
        "irregularity": irregularity,
    }


def score(obj):
    """Law 77 score of one result, from North-South's point of view."""
    obj = _obj(obj)
    contract = obj.get("contract")
    if not isinstance(contract, str):
        raise LineError('"contract" must be text such as "4SX" or "Pass"')
    try:
        if "board" in obj:
            if not isinstance(obj["board"], int) or isinstance(obj["board"], bool):
                raise LineError('"board" must be a board number')
            vul = board.vulnerability(obj["board"])
        else:
            vul = parse_vul(obj.get("vul", "None"))
        if contract.strip().upper() in ("P", "PASS"):
            return _with_id(obj, {"ns": 0})
        declarer = parse_seat(obj.get("declarer"))
        tricks = obj.get("tricks")
        if not isinstance(tricks, int) or isinstance(tricks, bool):
            raise LineError('"tricks" must be the number of tricks declarer took, 0-13')
        return _with_id(obj, {"ns": score_ns(contract, declarer, vul, tricks)})
    except (CallError, ValueError) as e:
        raise LineError(str(e)) from None


def _with_id(obj, out):
    return {"id": obj["id"], **out} if "id" in obj else out


def run(handler, lines, write):
    """Feed each input line to handler; write one JSON line per input line, errors included."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            out = {"error": f"line {n}: not valid JSON ({e})"}
        else:
            try:
                out = handler(obj)
            except LineError as e:
                out = {"error": f"line {n}: {e}"}
                if isinstance(obj, dict) and "id" in obj:
                    out["id"] = obj["id"]
        write(json.dumps(out, ensure_ascii=False) + "\n")
