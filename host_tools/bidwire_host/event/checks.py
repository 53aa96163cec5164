"""The checks of an event file that its types cannot express: each returns problem texts naming the field.

Used by bidwire_host.event.model.from_dict after the structure (types, required and unknown fields) is checked.
"""
import re

from bidwire_host.event import movements, plans
from bidwire_host.event.movements import MovementError, PairId
from bidwire_host.scoring.masterpoints import EBU_CLUB
from bidwire_host.scoring.victory_points import SCALES as VP_SCALES
from bidwire_host.sim_ids import CLUB_ID, SESSION, SIM_ID

FORMAT = 1  # the "bidwire_event" value of the files bidwire writes
MAX_TEXT = 100  # the longest club name, club id, charge code or masterpoint scale an event file may give
SECTION_NAME_CHARS = 8  # an assign command's section is 1-8 characters (collector/commands.py)
MAX_SESSIONS = 16  # an event's sessions; with movements.MAX_TABLES etc., bounds a real event never reaches
MAX_SECTIONS = 500  # a session's sections: an ACBL national's pairs game runs A-Z, AA-ZZ and more, not 500
MAX_SESSION_TABLES = 10_000  # a session's tables, all sections together (the Common Game: up to 1,000)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_BUT_BREAKS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def control_char(text, breaks=False):
    """The first control character in `text` as "U+0000", or None: names carry none (a NUL in a player's name
    reached the CSV files: issue 24.10). With `breaks`, a tab and line breaks are let through: the event's and a
    session's name as typed may hold them (the exports escape them: issue 12 item 9), never a NUL or another."""
    pattern = _CONTROL_BUT_BREAKS if breaks else _CONTROL
    found = pattern.search(text) if isinstance(text, str) else None
    return None if found is None else f"U+{ord(found.group()):04X}"


def _is_zone(name):
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def check(event):
    """Problem texts for everything the types cannot say; none: the event can be used."""
    problems = []
    if len(event.sessions) > MAX_SESSIONS:
        return [f"sessions: at most {MAX_SESSIONS} sessions in an event, not {len(event.sessions)}"]
    too_many = [f"sessions[{i}].sections: at most {MAX_SECTIONS} sections in a session, not {len(s.sections)}"
                for i, s in enumerate(event.sessions) if len(s.sections) > MAX_SECTIONS]
    if too_many:
        return too_many
    for i, s in enumerate(event.sessions):  # each movement's size is bounded; so is a session's, before one is built
        # (a section over MAX_TABLES counts as just over it: its own check below says so)
        tables = sum(min(sec.movement.tables or 0, movements.MAX_TABLES + 1) for sec in s.sections)
        if tables > MAX_SESSION_TABLES:
            return [f"sessions[{i}]: at most {MAX_SESSION_TABLES:,} tables in a session, all sections together, "
                    f"not {tables:,}"]
    if event.bidwire_event != FORMAT:
        problems.append(f"bidwire_event: this bidwire reads event files of format {FORMAT}, not "
                        f"{event.bidwire_event}")
    if not event.name.strip():
        problems.append("name: the event needs a name")
    # (where, text, line breaks allowed): the event's and a session's name as typed may break lines, no other
    titled = [("name", event.name, True)]
    titled += [(f"sessions[{i}].name", s.name, True) for i, s in enumerate(event.sessions)]
    for i, s in enumerate(event.sessions):
        for j, sec in enumerate(s.sections):
            at = f"sessions[{i}].sections[{j}]"
            titled += [(f"{at}.pairs[{k}].name", p.name, False) for k, p in enumerate(sec.pairs)]
            titled += [(f"{at}.teams[{k}].name", t.name, False) for k, t in enumerate(sec.teams)]
    for where, text, breaks in titled:
        found = control_char(text, breaks)
        if found:
            problems.append(f"{where}: no control characters in a name (found {found})")
    if not event.sessions:
        problems.append("sessions: the event needs at least one session")
    _check_club(problems, event)
    _check_masterpoints(problems, event.masterpoints)
    _check_evening(problems, event.evening)
    if event.masterpoints is not None and event.masterpoints.scale == EBU_CLUB and any(
            sec.is_teams for s in event.sessions for sec in s.sections):
        problems.append(f"masterpoints.scale: the {EBU_CLUB} scale here is the pairs scale; a team match needs the "
                        'club\'s own awards ("awards": [...] under another name)')
    if event.long_call_s is not None and not 1 <= event.long_call_s <= 600:
        problems.append(f"long_call_s: a call's thinking time in whole seconds, 1 to 600, from which the director's "
                        f"page marks it as long; not {event.long_call_s}")
    if event.time_zone is not None and not _is_zone(event.time_zone):
        problems.append(f"time_zone: {event.time_zone!r} is not a time zone name; give the club's as the tz database "
                        "names it (e.g. Europe/London, America/New_York), or leave the field out for the host's")
    _check_sim(problems, event.sim)
    if event.overall is not None:
        if event.overall.method not in ("average", "sum", "carry"):  # scoring/overall.METHODS
            problems.append(f"overall.method: average, sum or carry, not {event.overall.method!r}")
        elif event.overall.method == "carry" and (event.overall.weights is None or
                                                  len(event.overall.weights) != len(event.sessions) or
                                                  sum(event.overall.weights) != 100 or
                                                  any(w < 0 for w in event.overall.weights)):
            problems.append(f"overall.weights: a carry-forward weighs each of the {len(event.sessions)} sessions, "
                            "in percent, adding up to 100 (e.g. [25, 75])")
    _unique(problems, "sessions", [s.name for s in event.sessions], "session")
    for i, s in enumerate(event.sessions):
        where = f"sessions[{i}]"
        if not s.sections:
            problems.append(f"{where}.sections: the session needs at least one section")
        _unique(problems, f"{where}.sections", [c.name for c in s.sections], "section")
        if s.hand_records is not None and not s.hand_records.strip():
            problems.append(f"{where}.hand_records: give a PBN file, or leave the field out")
        ids = {}
        for j, sec in enumerate(s.sections):
            _check_section(problems, f"{where}.sections[{j}]", sec, ids)
        if s.across_field and not problems:
            _check_across_field(problems, where, s)
    return problems


def _check_across_field(problems, where, session):
    """A session scored across the field: pairs' sections (no teams) playing the same boards."""
    boards = {}
    for sec in session.sections:
        if sec.is_teams:
            problems.append(f"{where}.across_field: section {sec.name} is a teams event; only pairs are scored across "
                            "the field")
            return
        boards[sec.name] = set(sec.movement_plan().boards())
    first = next(iter(boards.values()), set())
    odd = [name for name, b in boards.items() if b != first]
    if len(boards) < 2 or odd:
        problems.append(f"{where}.across_field: two sections or more playing the same boards"
                        + (f" (section {odd[0]} plays others)" if odd else ""))


def _check_sim(problems, sim):
    """The sim block: what the hub takes (sim_ids.py, as hub/inputs.py parses it) and a URL it can be reached at."""
    if sim is None:
        return
    if not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", sim.hub) or len(sim.hub) > 200:
        problems.append(f"sim.hub: the hub's URL, http:// or https:// (https://sim.example.org), not {sim.hub[:80]!r}")
    if not re.fullmatch(SIM_ID, sim.id):
        problems.append("sim.id: the sim's id at the hub, 1-40 lower-case letters, digits and -")
    if not re.fullmatch(CLUB_ID, sim.club):
        problems.append("sim.club: this club's id at the hub, 1-32 letters, digits and _")
    if sim.session is not None and not re.fullmatch(SESSION, sim.session):
        problems.append("sim.session: the sim's session this heat is, as the hub names it: 1-8 letters and digits")
    if not sim.secret_file.strip():
        problems.append("sim.secret_file: the file holding the club's secret from the hub")


def _check_section(problems, where, sec, ids):
    if not 1 <= len(sec.name) <= SECTION_NAME_CHARS or sec.name != sec.name.strip():
        problems.append(f"{where}.name: a section name is 1-{SECTION_NAME_CHARS} characters (such as A), "
                        f"not {sec.name!r}")
    try:
        plan = plans.build(sec.movement, 1, teams=sec.entrants(), draws=sec.draws)
    except MovementError as e:
        problems.append(f"{where}.{'draws' if str(e).startswith(('draws', 'match round')) else 'movement'}: {e}")
        return
    sets = plan.sets
    if (sec.boards_per_round is None) == (sec.boards is None):
        problems.append(f"{where}: give boards_per_round, or boards (the boards in play), not "
                        f"{'both' if sec.boards is not None else 'neither'}")
    elif sec.boards is not None:
        if sec.boards < sets or sec.boards % sets:
            fits = [sets * k for k in range(max(1, sec.boards // sets), sec.boards // sets + 2)]
            problems.append(f"{where}.boards: {sec.boards} boards do not divide into the {sets} board sets of "
                            f"a {plan.title}; use {' or '.join(str(b) for b in fits)}, or give boards_per_round")
        elif sec.boards // sets > movements.MAX_BOARDS_PER_ROUND:
            problems.append(f"{where}.boards: {sec.boards // sets} boards a round is more than "
                            f"{movements.MAX_BOARDS_PER_ROUND}")
    else:
        try:
            plans.build(sec.movement, sec.boards_per_round, teams=sec.entrants(), draws=sec.draws)
        except MovementError as e:
            problems.append(f"{where}.boards_per_round: {e}")
    if sec.first_board < 1:
        problems.append(f"{where}.first_board: board numbers start from 1, not {sec.first_board}")
    else:
        per_round = sec.boards_per_round if sec.boards is None else sec.boards // sets
        last = sec.first_board + sets * (per_round if isinstance(per_round, int) else 1) - 1
        if last > movements.MAX_BOARD:
            problems.append(f"{where}.first_board: the last board would be {last}, more than "
                            f"{movements.MAX_BOARD}")
    if sec.is_teams:
        _check_teams(problems, where, sec, ids)
    elif sec.movement.type == "individual":
        if sec.pairs or sec.teams:
            problems.append(f"{where}: an individual's players are its card's numbers (1-16 at 4 tables): list no "
                            "pairs or teams")
    else:
        _check_pairs(problems, where, sec, plan, ids)
    if (sec.vp_scale is not None or sec.bye_vps is not None) and sec.movement.type not in ("round-robin",
                                                                                             "swiss-teams",
                                                                                             "swiss-pairs"):
        problems.append(f"{where}: vp_scale and bye_vps are a round robin's or a Swiss's")
    if sec.carry_over and sec.movement.type != "knockout":
        problems.append(f"{where}.carry_over: a knock-out's")
    for k, c in enumerate(sec.carry_over):
        if not 1 <= c.stage <= plan.full_rounds // 2 or not 1 <= c.team <= len(sec.teams) or not 0 <= c.imps <= 500:
            problems.append(f"{where}.carry_over[{k}]: a stage 1-{plan.full_rounds // 2}, a team 1-{len(sec.teams)} "
                            f"and 0-500 IMPs, not {c.stage}, {c.team}, {c.imps}")
    if sec.vp_scale is not None and sec.vp_scale not in VP_SCALES:
        problems.append(f"{where}.vp_scale: one of {', '.join(VP_SCALES)}, not {sec.vp_scale!r}")
    top = 30 if sec.vp_scale == "acbl30" else 20
    if sec.bye_vps is not None and not 0 <= sec.bye_vps <= top:
        problems.append(f"{where}.bye_vps: a bye's victory points, 0 to {top}, not {sec.bye_vps}")


def _check_pairs(problems, where, sec, plan, ids):
    if sec.teams:
        problems.append(f"{where}.teams: a {plan.title} is played by pairs; list them in pairs")
    mitchell = sec.keeps_lines
    swiss = sec.movement.type == "swiss-pairs"  # its pairs 1 to N, every one drawn or given the bye in turn
    seen = {}
    for k, p in enumerate(sec.pairs):
        at = f"{where}.pairs[{k}]"
        if mitchell and p.line not in ("NS", "EW"):
            problems.append(f'{at}.line: a Mitchell pair keeps its line: "NS" or "EW", not {p.line!r}')
            continue
        if not mitchell and p.line is not None:
            problems.append(f"{at}.line: pairs change direction in a {plan.title}; leave line out")
            continue
        pid = PairId(p.number, p.line or "")
        top = plan.tables if mitchell else len(sec.pairs) if swiss else 2 * plan.tables
        if not 1 <= p.number <= top:
            problems.append(f"{at}.number: a {plan.title} has pairs {'NS 1-' if mitchell else '1-'}{top}"
                            f"{f' and EW 1-{top}' if mitchell else ''}; not {p.number}")
        elif pid in seen:
            problems.append(f"{at}: {pid} is listed twice (also {where}.pairs[{seen[pid]}])")
        seen.setdefault(pid, k)
        _players(problems, f"{at}.players", p.players, ids)
    missing = [] if swiss else [p for p in plan.pairs() if p not in seen]
    if len(sec.pairs) and len(missing) > 1 and len(seen) == len(sec.pairs):
        problems.append(f"{where}.pairs: {', '.join(str(p) for p in missing)} are missing; a {plan.title} plays "
                        f"with at most one pair missing (the phantom: its opponents sit out)")
    elif not sec.pairs:
        problems.append(f"{where}.pairs: list the pairs ({plan.title}: {', '.join(str(p) for p in plan.pairs())})")


def _check_teams(problems, where, sec, ids):
    if sec.pairs:
        problems.append(f"{where}.pairs: a team match is played by teams; list the teams in teams")
    if sec.movement.type == "teams" and len(sec.teams) != 2:
        problems.append(f"{where}.teams: a two-table team match has two teams (home first), not {len(sec.teams)}")
    if sec.movement.type != "teams" and [t.number for t in sec.teams] != list(range(1, len(sec.teams) + 1)):
        problems.append(f"{where}.teams: a {sec.movement.type} event's teams are numbered 1, 2, 3, ... in order")
    _unique(problems, f"{where}.teams", [t.number for t in sec.teams], "team number")
    for k, t in enumerate(sec.teams):
        if t.number < 1:
            problems.append(f"{where}.teams[{k}].number: team numbers start from 1, not {t.number}")
        for part in ("ns", "ew", "reserves"):
            _players(problems, f"{where}.teams[{k}].{part}", getattr(t, part), ids, pair=part != "reserves")


def _players(problems, at, players, ids, pair=True):
    if pair and len(players) not in (0, 2):
        problems.append(f"{at}: a pair is two players (or none while the names are not known), not {len(players)}")
    for k, pl in enumerate(players):
        if pl.name is None:
            problems.append(f"{at}[{k}]: the player needs a name" + (" (a number alone needs the event's "
                                                                      "register: bidwire players import)"
                                                                      if pl.id is not None else ""))
        elif not pl.name.strip():
            problems.append(f"{at}[{k}].name: the player needs a name")
        elif control_char(pl.name):
            problems.append(f"{at}[{k}].name: no control characters in a name (found {control_char(pl.name)})")
        if pl.id is not None and control_char(str(pl.id)):
            problems.append(f"{at}[{k}].id: no control characters in a number (found {control_char(str(pl.id))})")
        if pl.id is not None:
            key = str(pl.id)
            if key in ids:
                problems.append(f"{at}[{k}].id: player {key} also plays as {ids[key]}; a player plays in one "
                                f"pair a session")
            ids.setdefault(key, f"{at}[{k}]")


def _check_club(problems, event):
    """club {name, id} and ebu {charge_code, master_point_scale}: text a results file can carry; an EBU upload
    names its club by the EBU's number."""
    club, ebu = event.club, event.ebu
    fields = [("club.name", club.name), ("club.id", club.id)] if club else []
    fields += [("ebu.charge_code", ebu.charge_code), ("ebu.master_point_scale", ebu.master_point_scale)] if ebu else []
    for where, value in fields:
        if value is None:
            continue
        text = str(value)
        if not text.strip():
            problems.append(f"{where}: is empty: give it, or leave the field out")
        elif text != text.strip():
            problems.append(f"{where}: give it without spaces around it, not {text!r}")
        elif any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
            problems.append(f"{where}: a control character (a line break, a tab) cannot go in a results file")
        elif len(text) > MAX_TEXT:
            problems.append(f"{where}: at most {MAX_TEXT} characters, not {len(text)}")
    if ebu and ebu.charge_code and ebu.charge_code.strip() and not ebu.charge_code.isdecimal():
        problems.append(f"ebu.charge_code: the EBU's charge code is a number such as 10 (a club session), not "
                        f"{ebu.charge_code!r}")
    if ebu and (ebu.charge_code or ebu.master_point_scale) and (club is None or club.id is None):
        problems.append("ebu: an EBU upload names the club by its EBU number: give club with its id "
                        '(\"club\": {\"name\": ..., \"id\": ...})')


UNIT_RESULTS = ("percent", "scores", "off")


def _check_evening(problems, evening):
    """evening {not_played: [NS, EW] as A+, A or A- (Law 12 C), unit_results, provisional}."""
    if evening is None:
        return
    if len(evening.not_played) != 2 or any(x not in ("A+", "A", "A-") for x in evening.not_played):
        problems.append("evening.not_played: the artificial adjusted score to NS and to EW of a board not played, "
                        f'two of A+, A, A- (Law 12 C), e.g. ["A", "A"]; not {evening.not_played}')
    if evening.unit_results not in UNIT_RESULTS:
        problems.append(f"evening.unit_results: one of {', '.join(UNIT_RESULTS)}, not {evening.unit_results!r}")


def _check_masterpoints(problems, scale):
    """masterpoints {scale, awards}: the built-in EBU club scale by name, or a club's own with its awards."""
    if scale is None:
        return
    name = scale.scale
    if not name.strip() or name != name.strip() or len(name) > MAX_TEXT or any(ord(c) < 32 for c in name):
        problems.append(f"masterpoints.scale: a name of 1-{MAX_TEXT} characters without spaces around it or "
                        f"control characters, not {name!r}")
    elif name == EBU_CLUB and scale.awards is not None:
        problems.append(f"masterpoints.awards: the {EBU_CLUB} scale's awards come from the EBU's table: leave "
                        "awards out, or give your own scale another name")
    elif name != EBU_CLUB and not scale.awards:
        problems.append(f"masterpoints.awards: scale {name!r} is not built in ({EBU_CLUB!r} is): give its awards "
                        'by place, best first, such as "awards": [12, 8, 5]')
    if scale.awards and any(a < 0 for a in scale.awards):
        problems.append("masterpoints.awards: an award is a whole number of points, 0 or more")


def _unique(problems, where, names, what):
    seen = set()
    for k, name in enumerate(names):
        if name in seen:
            problems.append(f"{where}[{k}]: {what} {name!r} is used twice")
        seen.add(name)


