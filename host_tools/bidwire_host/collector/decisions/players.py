"""The director's fix of who played (docs/collector.md).

* `players`: the director fixes a pair's players (the two who really played, names and numbers) for the
  session; the body keeps the players before the fix. Every output names the pair's players from
  roster.players, which applies the latest fix of each pair.
* `seated`: the pairs who really sat at a table in a round (a wrong pair at the table, Law 15): the results of that
  table and round count for them (decisions.journal.State.effective), in the ranking, the pages and the exports.
"""
from bidwire_host.collector import roster
from bidwire_host.collector.decisions.checks import contestants, pair_of, period_check, pick_section
from bidwire_host.collector.decisions.journal import ActionError, fold, insert
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
    if sec.is_teams:
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


def seated(conn, s, body, at):
    """Record which pairs sat at `body`'s section, table and round (ns, ew: pair numbers of the section); the stored
    action. 409 with no event; 404 for a table, round or pair the section does not have."""
    if s is None:
        raise ActionError("no event loaded: who sat where is recorded against the movement", 409)
    sec = pick_section(s, body.get("section"))
    table, round_no = body.get("table"), body.get("round")
    plan = s.plays().get((sec.name, table, round_no))
    if plan is None:
        raise ActionError(f"table and round: section {sec.name} table {table} plays no round {round_no}", 404)
    ns = pair_of(s, sec, "NS", body["ns"]) if body.get("ns") is not None else str(plan["ns"])
    ew = pair_of(s, sec, "EW", body["ew"]) if body.get("ew") is not None else str(plan["ew"])
    if ns == ew and s.two_fields(sec.name) is False:
        raise ActionError("ns and ew: two different pairs")
    out = {"section": sec.name, "table": table, "round": round_no, "ns": ns, "ew": ew,
           "expected": [str(plan["ns"]), str(plan["ew"])], "reason": (body.get("reason") or "").strip()}
    post = period_check(fold(conn), at, body)
    return insert(conn, "seated", out, (body.get("by") or "").strip() or body.get("role") or "director", at, post)
