"""Who played: each contestant's effective players, the event's own overridden by the director's fixes (issue 14).

`players(conn, setup, section)` is the one answer every output uses (the exports, the JSON API, the pages):
{contestant: [event.Player]}, keyed as the standings key contestants ((line, pair) when NS and EW are ranked
apart, else the pair or team number, as text). A pair's players are the event file's (names and numbers, the
register's where the file refers to it), or the latest `players` decision for that pair (decisions/players.py).
A team's are its NS, EW and reserve players. `names` gives the text the outputs print ("Ann Smith - Bob Jones"; a
pair with no players its name, if any; a team its name) and `seats` the four players of one table's result.
"""
import json

from bidwire_host.event import model as event_mod


def key(setup, section, line, pair):
    """The standings' key of the pair (or team) `pair` sitting `line` in `section` ("3NS" in an arrow-switched
    Mitchell: Setup.contestants)."""
    sec = setup.section(section)
    if sec is not None and sec.one_winner:
        return f"{pair}{line}"
    two = setup.two_fields(section) and setup.method != "teams"
    return (line, str(pair)) if two else str(pair)


def fixes(conn):
    """{(section, contestant): the director's latest `players` decision} (decisions.players.players, in id order)."""
    out = {}
    for row in conn.execute("SELECT id, body, by_whom, at FROM director_actions WHERE kind = 'players' ORDER BY id"):
        body = json.loads(row["body"])
        who = (body["direction"], body["pair"]) if body.get("direction") else body["pair"]
        out[body["section"], who] = dict(body, id=row["id"], by=row["by_whom"], at=row["at"])
    return out


def players(conn, setup, section, fixed=None):
    """{contestant: [Player]} of a section: the event's players with the director's fixes (`fixed`: fixes(conn),
    read from `conn` when not given)."""
    sec = setup.section(section) if setup is not None else None
    if sec is None:
        return {}
    out = {}
    if sec.is_teams:
        for t in sec.teams:
            out[str(t.number)] = list(t.ns) + list(t.ew) + list(t.reserves)
        return out
    for p in sec.pairs:
        out[key(setup, section, p.line or "NS", p.number)] = list(p.players)
    fixed = fixes(conn) if fixed is None else fixed
    for (sec_name, who), item in fixed.items():
        if sec_name == section and who in out:
            out[who] = [event_mod.Player(pl["name"], pl.get("id")) for pl in item["players"]]
    return out


def text(found):
    """The players as one line of text: "Ann Smith - Bob Jones"."""
    return " - ".join(p.name for p in found if p.name)


def names(conn, setup, section, found=None):
    """{contestant: text} of a section: the players' names, else the pair's or team's own name; none: left out."""
    found = players(conn, setup, section) if found is None else found
    sec = setup.section(section) if setup is not None else None
    own = {}
    if sec is not None and sec.is_teams:
        own = {str(t.number): t.name for t in sec.teams}
    elif sec is not None:
        own = {key(setup, section, p.line or "NS", p.number): p.name for p in sec.pairs if p.name}
    out = {}
    for who, pl in found.items():
        name = own.get(who) if sec is not None and sec.is_teams else text(pl) or own.get(who)
        if name:
            out[who] = name
    return out


def seats(setup, section, found, ns, ew):
    """{"N": name, "E": ..., "S": ..., "W": ...} of a table's result (`found`: players()), seats not known left
    out: a pair's first player sits North (East), the second South (West); a team's NS or EW players by line."""
    sec = setup.section(section) if setup is not None else None
    out = {}
    if sec is None:
        return out
    teams = sec.is_teams
    for line, pair, first, second in (("NS", ns, "N", "S"), ("EW", ew, "E", "W")):
        if pair is None:
            continue
        if teams:
            team = next((t for t in sec.teams if str(t.number) == str(pair)), None)
            pl = list(getattr(team, line.lower())) if team is not None else []
        else:
            pl = found.get(key(setup, section, line, pair), [])
        for seat, p in zip((first, second), pl[:2], strict=False):
            if p.name:
                out[seat] = p.name
    return out


def as_json(found):
    """Players as the JSON API writes them: [{"name", "id"}]."""
    return [{"name": p.name, "id": p.id} for p in found]


def by_line(conn, setup):
    """{(section, line, pair): (text, [Player])} of every section, for pages and the JSON API, which know a row's
    section, line and pair number; where NS and EW are one field, a pair is under both lines."""
    out = {}
    if setup is None:
        return out
    fixed = fixes(conn)
    for sec in setup.event.session(setup.session).sections:
        found = players(conn, setup, sec.name, fixed)
        said = names(conn, setup, sec.name, found)
        for who, pl in found.items():
            lines, pair = ((who[0],), who[1]) if isinstance(who, tuple) else (("NS", "EW"), who)
            for line in lines:
                out[sec.name, line, pair] = (said.get(who, ""), pl)
    return out
