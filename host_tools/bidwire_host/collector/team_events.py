"""A teams event of N teams as the collector scores it (issue 38, docs/teams.md): its matches (each board IMPed
between the match's two tables as the second result comes in), each match's running score and, once over, its
VPs; the standings; and a Swiss's next draw, made from the standings once every match of the round is over. A
Swiss pairs is scored the same way, its matches a pair against a pair at one table (event/swiss_pairs.py).

Worked from the section's results on the travellers (Standings.results: decisions applied) whenever asked: a
club's event is a few dozen matches, so nothing is kept.
"""
from __future__ import annotations

from bidwire_host.event import knockout, swiss_draw, swiss_pairs, team_schedule
from bidwire_host.event.movements import MovementError
from bidwire_host.scoring import team_matches, team_standings, victory_points
from bidwire_host.scoring.model import format_number

BYE_SHARE = 3 / 5  # a bye's VPs unless the event gives them: 12 of 20, 18 of 30


def is_event(sec):
    """Whether the section is a teams event of N teams (a round robin, a Swiss or a knock-out), or a Swiss pairs."""
    return sec is not None and (sec.movement.type in team_schedule.KINDS or sec.movement.type == swiss_pairs.KIND)


def _pairs(sec):
    return sec.movement.type == swiss_pairs.KIND


def halves(sec):
    """The movement's rounds a match round takes: a teams match's two halves, a Swiss pairs's one."""
    return 1 if _pairs(sec) else 2


def entrants(sec):
    """{number (text): name} of the section's teams, or a Swiss pairs's pairs (their players' names)."""
    if _pairs(sec):
        return {str(p.number): p.name or " & ".join(pl.name for pl in p.players if pl.name) or f"pair {p.number}"
                for p in sec.pairs}
    return {str(t.number): t.name for t in sec.teams}


def matches(sec, results):
    """[team_matches.Match] of the section's drawn match rounds, from its results (scoring Results)."""
    plan = sec.movement_plan()
    if _pairs(sec):  # each board scored across the field, the two pairs' scores on it compared
        return team_matches.pair_matches(results, swiss_pairs.schedule(plan), sec.vp_scale or victory_points.WBF)
    if sec.movement.type == "knockout":  # won on IMPs, with the carry-over
        carry = {(c.stage, str(c.team)): c.imps for c in sec.carry_over}
        return team_matches.matches(results, team_schedule.schedule(plan), None, carry)
    return team_matches.matches(results, team_schedule.schedule(plan), sec.vp_scale or victory_points.WBF)


def byes(sec, done_rounds):
    """The teams that had a bye in the match rounds `done_rounds` (a team not drawn in a round)."""
    plan = sec.movement_plan()
    out = []
    for m in done_rounds:
        seated = {q.number for p in plan.in_round(halves(sec) * (m - 1) + 1) for q in p.pairs()}
        out += [int(t) for t in entrants(sec) if int(t) not in seated]
    return out


def places(sec, found):
    """A knock-out's places so far: [(rank, team, how far it went)], the teams still in first (the winner, once
    the final is over), then those out, the later out the higher; teams out at one stage share the place."""
    total = knockout.stages(len(sec.teams))
    out_at = {}
    for m in found:
        if m.winner is not None:
            out_at[m.away if m.winner == m.home else m.home] = m.round
    groups = {}
    for t in sec.teams:
        groups.setdefault(out_at.get(str(t.number), total + 1), []).append(str(t.number))
    rows, place = [], 1
    for stage in sorted(groups, reverse=True):
        team_list = groups[stage]
        for team in team_list:
            won_final = total in {m.round for m in found if m.winner == team}
            how = ("winner" if won_final else "in play" if stage > total else "lost the final" if stage == total
                   else f"lost in stage {stage}")
            rows.append((f"{place}=" if len(team_list) > 1 else str(place), team, how))
        place += len(team_list)
    return rows


def standings(sec, found):
    """team_standings.standings of the section: the matches over, the byes of the match rounds over."""
    over = {m.round for m in found if m.over} - {m.round for m in found if not m.over}
    scale = sec.vp_scale or victory_points.WBF
    bye_vps = 100 * sec.bye_vps if sec.bye_vps is not None else round(victory_points.full(scale) * BYE_SHARE)
    return team_standings.standings([int(t) for t in entrants(sec)], found, byes=byes(sec, sorted(over)),
                                    bye_vps=bye_vps, swiss=sec.movement.type != "round-robin")


def next_draw(sec, found):
    """A Swiss's next draw: {"round", "ready", "waiting", "proposed", "bye", "repeats"}: `waiting` lists what
    holds it (each unfinished match's tables and the boards still missing there), `proposed` the draw the rule
    makes from the standings (swiss_draw.draw), once nothing is waiting. None: not a Swiss, or every round drawn."""
    if sec.movement.type not in ("swiss-teams", "knockout", swiss_pairs.KIND):
        return None
    plan = sec.movement_plan()
    drawn = plan.rounds // halves(sec)
    if drawn >= plan.full_rounds // halves(sec):
        return None
    last = [m for m in found if m.round == drawn]
    waiting = []
    for m in last:
        tables = tables_of(sec, plan, drawn, int(m.home))
        if not m.over:
            waiting.append({"match": f"{m.home} v {m.away}", "tables": tables,
                            "boards": [b for b in m.boards if b not in m.imps]})
        elif sec.movement.type == "knockout" and m.winner is None:  # level: the director has extra boards played
            waiting.append({"match": f"{m.home} v {m.away}", "tables": tables, "boards": [], "tied": True})
    out = {"round": drawn + 1, "ready": not waiting, "waiting": waiting, "proposed": None, "bye": None,
           "repeats": []}
    if not waiting:
        d = proposal(sec, found)
        out.update(proposed=[list(x) for x in d.matches], bye=d.bye, repeats=[list(x) for x in d.repeats])
    return out


def proposal(sec, found):
    """The draw the rule makes now: a Swiss's from the standings (swiss_draw.draw), a knock-out's the winners'
    of its bracket (knockout.next_stage); by team number."""
    if sec.movement.type == "knockout":
        won = {frozenset((int(m.home), int(m.away))): m.winner for m in found}
        drawn = [[tuple(x) for x in row] for row in sec.draws] or [list(knockout.first_stage(len(sec.teams)))]
        try:
            nxt = knockout.next_stage(len(sec.teams), drawn,
                                      lambda a, b: None if won.get(frozenset((a, b))) is None
                                      else int(won[frozenset((a, b))]))
        except MovementError:
            return swiss_draw.Draw(())  # the director drew a stage his own way: he draws the next
        return swiss_draw.Draw(tuple(nxt))
    order = [int(s.team) for s in standings(sec, found)]
    met = [(int(m.home), int(m.away)) for m in found]
    return swiss_draw.draw(order, met=met, byes=byes(sec, range(1, sec.movement_plan().rounds // halves(sec) + 1)))


def match_message(sec, assign):
    """What a unit shows as a teams event's match begins (its first half's assign): the match, and which team is
    home (48 characters at most, a unit's message); None for any other assign (a Swiss pairs's shows its pairs)."""
    if not is_event(sec) or _pairs(sec) or assign["round"] % 2 == 0:
        return None
    names = {t.number: t.name for t in sec.teams}
    home, away = (assign["ns"], assign["ew"]) if assign["table"] % 2 else (assign["ew"], assign["ns"])
    return f"Match {(assign['round'] + 1) // 2}: {names[home][:15]} (home) v {names[away][:15]}"[:48]


def tables_of(sec, plan, match_round, home):
    """The tables of the match whose home team (or NS pair) is `home`, in match round `match_round`."""
    if _pairs(sec):
        return [next(p.table for p in plan.in_round(match_round) if p.ns is not None and p.ns.number == home)]
    table = table_of(plan, match_round, home)
    return [table, table + 1]


def table_of(plan, match_round, home):
    """The first table of the teams match whose home team is `home`, in match round `match_round`."""
    return next(p.table for p in plan.in_round(2 * match_round - 1) if p.ns is not None and p.ns.number == home)


def view(sec, results, public=False):
    """The section as its pages show it: each match (board by board), the standings and a Swiss's next draw.
    `public`: while a match round is still played its boards are in play at other tables (every match of a round
    plays the same boards), so its matches show no figure and the standings count the rounds over; the draw the
    rule would make is the director's, not shown."""
    found = matches(sec, results)
    if public:
        playing = {m.round for m in found if not m.over}
        found = [m if m.round not in playing else
                 team_matches.Match(m.round, m.home, m.away, m.boards, {}, m.scale, m.carry) for m in found]
    names = entrants(sec)
    plan = sec.movement_plan()
    draw = next_draw(sec, found)
    if public and draw is not None:
        draw = {k: v for k, v in draw.items() if k in ("round", "ready")}
    if sec.movement.type == "knockout":
        table = [{"rank": rank, "team": team, "name": names.get(team, team), "vps": None, "how": how,
                  "played": sum(1 for m in found if m.over and team in (m.home, m.away)), "byes": 0,
                  "imps_for": None, "imps_against": None} for rank, team, how in places(sec, found)]
    else:
        table = [{"rank": s.rank, "team": s.team, "name": names.get(s.team, s.team), "vps": victory_points.text(s.vps),
                  "played": s.played, "byes": s.byes, "imps_for": format_number(s.imps_for),
                  "imps_against": format_number(s.imps_against)} for s in standings(sec, found)]
    return {
        "section": sec.name, "kind": sec.movement.type,
        "scale": None if sec.movement.type == "knockout" else sec.vp_scale or victory_points.WBF,
        "rounds": plan.full_rounds // halves(sec), "drawn": plan.rounds // halves(sec),
        "matches": [_match(sec, m, names, plan) for m in found], "standings": table, "draw": draw}


def _match(sec, m, names, plan):
    home, away = m.score
    vps = m.vps
    return {"round": m.round, "home": m.home, "away": m.away, "home_name": names.get(m.home, m.home),
            "away_name": names.get(m.away, m.away), "tables": tables_of(sec, plan, m.round, int(m.home)),
            "boards": [{"board": b, "home": format_number(m.imps[b][0]) if b in m.imps else None,
                        "away": format_number(m.imps[b][1]) if b in m.imps else None} for b in m.boards],
            "imps": [format_number(home), format_number(away)], "over": m.over,
            "carry": [format_number(c) for c in m.carry] if any(m.carry) else None, "winner": m.winner,
            "vps": None if vps is None else [victory_points.text(v) for v in vps]}
