"""The director's fix of who played in a pair (docs/collector.md).

* `players`: the director fixes a pair's players (the two who really played, names and numbers) for the
  session; the body keeps the players before the fix. Every output names the pair's players from
  roster.players, which applies the latest fix of each pair.
"""
from bidwire_host.collector import roster
from bidwire_host.collector.decisions.checks import contestants, period_check, pick_section
from bidwire_host.collector.decisions.state import ActionError, fold, insert
from bidwire_host.event.checks import control_char


def _player(value, where):
    if not isinstance(value, dict):
        raise ActionError(f"{where}: a player: {{\"name\": ..., \"id\": ...}}")
    name = " ".join(str(value.get("name") or "").split())
    number = value.get("id")
    number = " ".join(str(number).split()) if number is not None else ""
    if not name:
        raise ActionError(f"{where}.name: the player needs a name")
    if len(name) > 100 or len(number) > 40:
        raise ActionError(f"{where}: a name of at most 100 characters and a number of at most 40")
    if control_char(name) or control_char(number):
        raise ActionError(f"{where}.{'name' if control_char(name) else 'id'}: no control characters "
                          f"(found {control_char(name) or control_char(number)})")
    return {"name": name, "id": number or None}


def players(conn, s, body, at):
    """The director fixes a pair's players (the two who played, for the whole session); the stored action."""
    if s is None:
        raise ActionError("no event loaded: a pair's players are fixed in the event's pairs", 409)
    sec = pick_section(s, body.get("section"))
    if sec.movement.type == "teams":
        raise ActionError("a team's players are in the event file (ns, ew, reserves); the director fixes a "
                          "pair's players")
    pairs, two = contestants(s, sec)
    pair = str(body.get("pair") or "").strip()
    direction = body.get("direction") or None
    if two and direction not in ("NS", "EW"):
        raise ActionError(f"direction: NS or EW (section {sec.name} has NS and EW pairs)")
    who = (direction, pair) if two else pair
    if who not in pairs:
        raise ActionError(f"pair: no {' '.join(who) if two else 'pair ' + pair} in section {sec.name}", 404)
    given = body.get("players")
    if not isinstance(given, list) or len(given) != 2:
        raise ActionError("players: a pair is two players")
    after = [_player(p, f"players[{k}]") for k, p in enumerate(given)]
    before = roster.as_json(roster.players(conn, s, sec.name).get(who, []))
    if [(p["name"], "" if p["id"] is None else str(p["id"])) for p in before] == \
            [(p["name"], p["id"] or "") for p in after]:
        raise ActionError(f"{' '.join(who) if two else 'pair ' + pair} already has these players", 409)
    state = fold(conn)
    post = period_check(state, at, body)
    out = {"section": sec.name, "direction": direction if two else None, "pair": pair, "players": after,
           "before": before, "reason": str(body.get("reason") or "").strip()[:500]}
    return insert(conn, "players", out, body.get("by"), at, post)
