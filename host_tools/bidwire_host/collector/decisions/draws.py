"""The director pushes a Swiss's next draw (issue 38, docs/teams.md): the draw the rule makes from the standings
(collector/team_events.next_draw), or his own pairing in its place, once every match of the round before is over.
Stored as the `draw` decision (who, when, the rule's draw beside the one pushed, why), added to the event's draws
(event_setup.add_draw), and the match round's first half is sent to the tables at once."""
from bidwire_host.collector import event_setup, team_events
from bidwire_host.collector.decisions.checks import pick_section
from bidwire_host.collector.decisions.journal import ActionError, insert
from bidwire_host.collector.standings import Standings


def draw(conn, s, body, at):
    """Check and push the next draw; the stored action (with what start_round queued as `started`)."""
    if s is None:
        raise ActionError("no event loaded", 409)
    sec = pick_section(s, body.get("section"))
    if sec.movement.type not in ("swiss-teams", "knockout", "swiss-pairs"):
        raise ActionError(f"section {sec.name} is neither a Swiss nor a knock-out: its matches are its movement's",
                          409)
    scored = Standings()
    scored.load(conn, sec.name)  # in the writer's transaction: every result and decision so far
    found = team_events.matches(sec, [r for _, r in scored.results()])
    nxt = team_events.next_draw(sec, found)
    if nxt is None:
        raise ActionError(f"section {sec.name}: every match round of the Swiss is drawn", 409)
    if body.get("round") not in (None, nxt["round"]):
        raise ActionError(f"round: the next match round to draw is {nxt['round']}, not {body['round']}", 409)
    knockout = sec.movement.type == "knockout"
    given = body.get("matches")
    tied = [w for w in nxt["waiting"] if w.get("tied")]
    if not nxt["ready"] and not (knockout and given is not None and len(tied) == len(nxt["waiting"])):
        held = "; ".join(f"{w['match']} at tables {w['tables'][0]}-{w['tables'][1]}: "
                         + ("level: extra boards decide it, then draw the next stage by hand" if w.get("tied")
                            else f"boards {', '.join(map(str, w['boards']))}") for w in nxt["waiting"])
        raise ActionError(f"the draw for match round {nxt['round']} waits for {held}", 409)
    proposed = [tuple(x) for x in nxt["proposed"] or []]
    matches = proposed if given is None else _matches(given)
    teams = [int(t) for t in team_events.entrants(sec)]
    seated = [t for m in matches for t in m]
    left = [t for t in teams if t not in seated]
    if not matches or sorted(seated) != sorted(set(seated)) or not set(seated) <= set(teams) or \
            not knockout and len(left) != len(teams) % 2:
        raise ActionError(f"matches: each of teams {teams[0]}-{teams[-1]} once"
                          + (", one of them out with the bye" if len(teams) % 2 else ""))
    met = {frozenset((int(m.home), int(m.away))) for m in found}
    repeats = [list(m) for m in matches if frozenset(m) in met]
    unavoidable = {frozenset(m) for m in nxt["repeats"]}  # the rule's own, when no draw avoids them
    if any(frozenset(m) not in unavoidable for m in repeats) and not body.get("repeats_ok"):
        raise ActionError(f"matches: {', '.join(f'{a} v {b}' for a, b in repeats)} met before; say repeats_ok to "
                          "draw them again", 409)
    out = {"section": sec.name, "round": nxt["round"], "matches": [list(m) for m in matches],
           "bye": left[0] if left else None, "proposed": nxt["proposed"], "repeats": repeats,
           "changed": given is not None and [tuple(x) for x in given] != proposed,
           "reason": str(body.get("reason") or "").strip()[:500]}
    item = insert(conn, "draw", out, body.get("by"), at, False)
    event_setup.add_draw(conn, sec.name, out["matches"])
    started = event_setup.start_round(conn, team_events.halves(sec) * (nxt["round"] - 1) + 1, sec.name)
    return dict(item, started=len(started["queued"]))


def _matches(given):
    if not isinstance(given, list) or not all(isinstance(m, list) and len(m) == 2 and
                                              all(isinstance(t, int) and not isinstance(t, bool) for t in m)
                                              for m in given):
        raise ActionError("matches: [[home, away], ...], team numbers")
    return [tuple(m) for m in given]
