"""The event: sessions, sections, pairs or teams, movements and hand records, kept in a JSON file (issue 4, part 4).

`from_dict`/`to_dict` turn the event file's JSON object (format in docs/movements.md) into a checked Event and back,
every error naming the field, the players completed from the event's register; `new_event` makes one
for `bidwire event create`. Reading and writing the file and the session's hand records are
bidwire_host.event.files; what a round means at the tables (assignments, sit-outs, the Law 15 check) is
bidwire_host.event.seating; the movements are bidwire_host.event.movements.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import ConfigDict, StrictBool, StrictFloat, StrictInt, StrictStr, TypeAdapter, ValidationError

from bidwire_host.event import individual, plans, team_schedule
from bidwire_host.event import players as players_mod
from bidwire_host.event.checks import FORMAT, check
from bidwire_host.event.movements import MovementError, PairId

__all__ = ["Evening", "Event", "EventError", "MovementChoice", "Pair", "Player", "Section", "Session", "Team",
           "from_dict", "new_event", "players_of", "register_path", "to_dict"]

_FORBID = ConfigDict(extra="forbid")
LONG_CALL_S = 10  # a call thought over this long is marked (the skip-bid warning's 10 s, and most hesitations)
MAX_LONG_CALL_S = 600


class EventError(ValueError):
    """An event file or event that cannot be used: the message names the field and says what to fix."""


@dataclass
class Player:
    """A player: by name, by membership number (the name from the event's register), or both."""
    __pydantic_config__ = _FORBID
    name: StrictStr | None = None
    id: StrictStr | StrictInt | None = None  # a national or club membership number


@dataclass
class Pair:
    """A partnership. Its number is its place in the movement: with its line (NS/EW) in a Mitchell."""
    __pydantic_config__ = _FORBID
    number: StrictInt
    line: StrictStr | None = None
    players: list[Player] = field(default_factory=list)  # two, or none while the names are not known
    name: StrictStr | None = None


@dataclass
class Team:
    """A team of a two-table match (its NS pair plays at table 1 if it is the home team, else at table 2), or of a
    teams event of N teams (numbered 1 to N, in that order)."""
    __pydantic_config__ = _FORBID
    number: StrictInt
    name: StrictStr
    ns: list[Player] = field(default_factory=list)
    ew: list[Player] = field(default_factory=list)
    reserves: list[Player] = field(default_factory=list)


@dataclass
class CarryOver:
    """IMPs a team starts a knock-out's match with (from a qualifying stage, or as the event's rules give them)."""
    __pydantic_config__ = _FORBID
    stage: StrictInt
    team: StrictInt
    imps: StrictInt | StrictFloat


@dataclass
class MovementChoice:
    __pydantic_config__ = _FORBID
    type: StrictStr  # mitchell, howell, teams (a two-table match), round-robin or swiss-teams (N teams)
    tables: StrictInt | None = None
    # fewer than the complete movement: a curtailed movement; a teams event's: its match rounds (a Swiss's all)
    rounds: StrictInt | None = None
    even: StrictStr | None = None  # skip or relay, for a Mitchell with an even number of tables
    seating: StrictStr | None = None  # a barometer's: its pairs move as a "howell"'s (the default) or "mitchell"'s
    arrow_switch: list[StrictInt] | None = None  # a Mitchell's rounds played arrow-switched: one field, one winner
    players: StrictInt | None = None  # an individual's, when its card seats other than 4 a table (13, 14 at 3)


@dataclass
class Partnership:
    """An individual's two players of one round, as the assign and the results name them: "16+1"."""
    number: str


@dataclass
class Section:
    __pydantic_config__ = _FORBID
    name: StrictStr
    movement: MovementChoice
    boards_per_round: StrictInt | None = None
    boards: StrictInt | None = None  # the boards in play instead: divided among the movement's board sets
    first_board: StrictInt = 1
    pairs: list[Pair] = field(default_factory=list)
    teams: list[Team] = field(default_factory=list)  # a team match: home team first; a teams event: 1 to N
    # a Swiss's match rounds drawn so far, each [[home, away], ...] (the collector adds each as it is pushed)
    draws: list[list[list[StrictInt]]] = field(default_factory=list)
    vp_scale: StrictStr | None = None  # a teams event's IMPs to VPs: "wbf" (the default), "acbl20" or "acbl30"
    bye_vps: StrictInt | None = None  # a teams event's VPs for a bye (whole VPs; 12 of 20, 18 of 30, unless given)
    carry_over: list[CarryOver] = field(default_factory=list)  # a knock-out's

    @property
    def keeps_lines(self):
        """Pairs keep their line all session (NS 3 and EW 3 are two pairs): a Mitchell, a barometer seated as one."""
        return self.movement.type == "mitchell" or (self.movement.type == "barometer" and
                                                   self.movement.seating == "mitchell")

    @property
    def one_winner(self):
        """An arrow-switched Mitchell: NS and EW pairs keep their lines (NS 3 and EW 3 are two pairs) and are ranked
        in one field."""
        return self.movement.type == "mitchell" and bool(self.movement.arrow_switch)

    @property
    def is_teams(self):
        """Played by teams: a two-table match, or a teams event of N teams."""
        return self.movement.type == "teams" or self.movement.type in team_schedule.KINDS

    def movement_plan(self):
        """The section's movement, with the missing pair (if any) as the phantom."""
        m = self.movement
        missing = _missing(self)
        return _plan(m.type, m.tables, m.rounds, m.even, self.round_boards(), self.first_board,
                     missing[0] if missing else None, self.entrants(), _frozen(self.draws), m.seating,
                     tuple(m.arrow_switch or ()))

    def entrants(self):
        """How many teams (or, a Swiss pairs's, pairs; an individual's, players) the movement seats, where it needs
        to be told."""
        if self.movement.type == individual.KIND:
            return self.movement.players or 0
        return len(self.pairs) if self.movement.type == "swiss-pairs" else len(self.teams)

    def round_boards(self):
        if self.boards_per_round is not None:
            return self.boards_per_round
        return self.boards // _sets(self)

    def entrant(self, pair_id):
        """The Pair or Team sitting as `pair_id` of the movement, or None (the phantom); an individual's
        partnership of the round ("16+1")."""
        if self.movement.type == individual.KIND:
            return Partnership(individual.partnership(pair_id))
        if self.is_teams:
            return self.teams[pair_id.number - 1] if pair_id.number <= len(self.teams) else None
        return next((p for p in self.pairs if p.number == pair_id.number and (p.line or "") == pair_id.line), None)


@dataclass
class Session:
    __pydantic_config__ = _FORBID
    name: StrictStr
    sections: list[Section]
    date: StrictStr | None = None
    hand_records: StrictStr | None = None  # a PBN file; a relative path is from the event file's directory
    across_field: StrictBool = False  # its sections play the same boards and are matchpointed as one field


@dataclass
class Club:
    """The club that runs the event, as its national body knows it (USEBIO CLUB)."""
    __pydantic_config__ = _FORBID
    name: StrictStr
    id: StrictStr | StrictInt | None = None  # the club's number with its national body (the EBU's club id)


@dataclass
class Ebu:
    """What an EBU pay-to-play upload needs (USEBIO P2P_CHARGE_RATE, MASTER_POINT_SCALE), when the event sets it."""
    __pydantic_config__ = _FORBID
    charge_code: StrictStr | None = None
    master_point_scale: StrictStr | None = None


@dataclass
class Masterpoints:
    """The masterpoint scale the event awards on (scoring/masterpoints.py): "EBU club", the EBU's local points
    for a club session, or a club's own scale by name with its awards by place."""
    __pydantic_config__ = _FORBID
    scale: StrictStr
    awards: list[StrictInt] | None = None


@dataclass
class Evening:
    """How the club runs the evening at its tables (docs/director.md): `not_played`, the artificial adjusted score
    (Law 12 C: A+, A or A-) to NS and to EW of a board the director marks not played; `unit_results`, what a unit
    shows after a board's result is confirmed ("percent": the board's results so far with each one's percentage,
    "scores": without, "off": nothing); `provisional`, whether the public page shows the standings after each
    round, marked provisional; `confirm_pairs`, whether a unit asks each side at a round's start to confirm it is
    the pair the movement seats there (names shown), a wrong pair calling the director; `member_numbers`, with it,
    whether a player of each side answers with his membership number (the register's), the unit showing his name
    back for a yes; `match_scores`, in a round robin or a Swiss, whether a match's two tables are shown its score
    (IMPs and VPs) once both have finished it."""
    __pydantic_config__ = _FORBID
    not_played: list[StrictStr] = field(default_factory=lambda: ["A", "A"])
    unit_results: StrictStr = "scores"
    provisional: StrictBool = False
    confirm_pairs: StrictBool = False
    member_numbers: StrictBool = False
    match_scores: StrictBool = False


@dataclass
class Sim:
    """The simultaneous event this club's heat is part of (docs/hub.md): the hub's URL, the sim's id there, this
    club's id and the file holding its secret (hex; relative: beside the event file), and in a sim played in
    several sessions the one this heat is. The collector uploads each result to the hub and hides the sim's hands
    and frequencies until the hub says they are released."""
    __pydantic_config__ = _FORBID
    hub: StrictStr
    id: StrictStr
    club: StrictStr
    secret_file: StrictStr
    session: StrictStr | None = None


@dataclass
class OverallRanking:
    """How an event of several sessions is ranked as a whole (scoring/overall.py): "average" (percentages over the
    boards played), "sum" (matchpoints summed) or "carry" (a fixed carry-forward: `weights`, one per session, in
    percent)."""
    __pydantic_config__ = _FORBID
    method: StrictStr = "average"
    weights: list[StrictInt] | None = None


@dataclass
class Event:
    __pydantic_config__ = _FORBID
    name: StrictStr
    sessions: list[Session]
    bidwire_event: StrictInt = FORMAT
    club: Club | None = None
    ebu: Ebu | None = None
    masterpoints: Masterpoints | None = None  # the scale of the awards the results files carry, if any
    register: StrictStr | None = None  # the player register, a CSV file (players.py); relative: beside the event
    sim: Sim | None = None  # the heat of a simultaneous event: results go to its hub too
    time_zone: StrictStr | None = None  # the club's, an IANA name (Europe/London); none: the collector host's
    # a call's thinking time, in seconds, from which the director's page marks it as long (None: LONG_CALL_S)
    long_call_s: StrictInt | None = None
    evening: Evening | None = None  # how the club runs the evening (None: Evening's defaults)
    overall: OverallRanking | None = None  # an event of several sessions: how they are ranked together
    directory: Path | None = field(default=None, init=False, repr=False)  # where the file is (not saved)

    def night(self):
        """The evening's settings (Evening), its defaults when the file names none."""
        return self.evening if self.evening is not None else Evening()

    def session(self, name=None):
        """The session called `name`; without a name, the only session."""
        if name is None:
            if len(self.sessions) != 1:
                raise EventError(f"the event has {len(self.sessions)} sessions: say which one "
                                 f"({', '.join(s.name for s in self.sessions)})")
            return self.sessions[0]
        for s in self.sessions:
            if s.name == name:
                return s
        raise EventError(f"no session {name!r} (sessions: {', '.join(s.name for s in self.sessions)})")


_adapter = TypeAdapter(Event)
_WORDS = {"missing": "is missing", "unexpected_keyword_argument": "is not a field here (check the spelling)",
          "int_type": "must be a whole number", "string_type": "must be text", "list_type": "must be a list",
          "dataclass_type": "must be an object", "dataclass_exact_type": "must be an object"}


def from_dict(data, directory=None, register=None):
    """The Event in `data` (a parsed event file), checked; EventError names the first fields that are wrong. The
    players are completed from the register the event names, or from `register` (a register's CSV text, as a
    request sends it: collector/event_upload.py)."""
    if not isinstance(data, dict):
        raise EventError("an event file holds one JSON object: {\"name\": ..., \"sessions\": [...]}")
    try:
        event = _adapter.validate_python(data)
    except ValidationError as e:
        raise EventError(_explain(e.errors())) from None
    event.directory = Path(directory) if directory is not None else None
    if event.register is not None:
        _resolve_players(event, _file_register(event))
    elif register is not None:
        try:
            _resolve_players(event, players_mod.parse(register, "register"))
        except players_mod.RegisterError as e:
            raise EventError(str(e)) from None
    problems = check(event)
    if problems:
        raise EventError("; ".join(problems))
    return event


def to_dict(event):
    """The event file's JSON object: fields at their default left out."""
    return _prune({k: v for k, v in asdict(event).items() if k != "directory"})


def new_event(name, movement, *, boards_per_round=None, boards=None, pairs=None, section="A",
              session="Session 1", date=None, hand_records=None, first_board=1, teams=None, vp_scale=None):
    """An event of one section with numbered pairs (or teams) and no names yet.

    `movement` is a movement object such as {"type": "mitchell", "tables": 7}; `pairs` the number of pairs
    playing, one fewer than the movement holds for a phantom (NS at the last table of a Mitchell, the
    stationary pair 2n of a Howell); `teams` the number of teams of a round robin or a Swiss.
    """
    if not isinstance(movement, dict):
        raise EventError('movement: a movement object such as {"type": "mitchell", "tables": 7}')
    try:
        plan = plans.build(movement, 1, teams=(teams or pairs or 0) if movement.get("type") in plans.DRAWN or
                           movement.get("type") in team_schedule.KINDS else 0)
    except MovementError as e:
        raise EventError(f"movement: {e}") from None
    sec = {"name": section, "movement": dict(movement), "boards_per_round": boards_per_round, "boards": boards,
           "first_board": first_board}
    if plan.kind in team_schedule.KINDS:
        sec["teams"] = [{"number": t, "name": f"Team {t}"} for t in range(1, teams + 1)]
        sec["vp_scale"] = vp_scale
    elif plan.kind == "teams":
        sec["teams"] = [{"number": 1, "name": "Home"}, {"number": 2, "name": "Away"}]
    elif plan.kind == individual.KIND:
        pass  # its players are the card's numbers
    elif plan.kind == "swiss-pairs":  # every pair, the bye's too (the first round seats all but one of an odd number)
        sec["pairs"] = [{"number": p} for p in range(1, pairs + 1)]
        sec["vp_scale"] = vp_scale
    else:
        slots = plan.pairs()
        count = len(slots) if pairs is None else pairs
        if count not in (len(slots), len(slots) - 1):
            raise EventError(f"pairs: a {plan.title} is for {len(slots)} pairs, or {len(slots) - 1} with a "
                             f"phantom; not {count}")
        if count < len(slots):
            phantom = PairId(plan.tables, "NS") if plan.kind.endswith("mitchell") else PairId(len(slots))  # (a
            # barometer seated as a Mitchell: "barometer mitchell")
            slots = [p for p in slots if p != phantom]
        sec["pairs"] = [{"number": p.number, "line": p.line or None} for p in slots]
    data = {"name": name, "sessions": [{"name": session, "date": date, "hand_records": hand_records,
                                        "sections": [sec]}]}
    return from_dict(_prune(data))


def register_path(event):
    """The event's register file as a Path (relative: from the event file's directory), or None."""
    if event.register is None:
        return None
    path = Path(event.register)
    return path if path.is_absolute() else (event.directory or Path.cwd()) / path


def _file_register(event):
    """The Register of the file the event names (relative: beside the event file)."""
    if not event.register.strip():
        raise EventError("register: give the player register's CSV file, or leave the field out")
    path = register_path(event)
    try:
        return _register(str(path), path.stat().st_mtime_ns)
    except OSError:
        raise EventError(f"register: the player register {path} does not exist") from None
    except players_mod.RegisterError as e:
        raise EventError(f"register: {e}") from None


def _resolve_players(event, register):
    """Every player the event names by number or by name completed from the register (players.py)."""
    problems = []
    for where, pl in players_of(event):
        try:
            pl.name, pl.id = register.resolve(pl.name, pl.id, where)
        except players_mod.RegisterError as e:
            problems.append(str(e))
    if problems:
        raise EventError("; ".join(problems[:5]))


@lru_cache(maxsize=4)
def _register(path, stamp):
    return players_mod.read(path)


def players_of(event):
    """(field, Player) of every player in the event file, in file order."""
    for i, s in enumerate(event.sessions):
        for j, sec in enumerate(s.sections):
            at = f"sessions[{i}].sections[{j}]"
            for k, p in enumerate(sec.pairs):
                for n, pl in enumerate(p.players):
                    yield f"{at}.pairs[{k}].players[{n}]", pl
            for k, t in enumerate(sec.teams):
                for part in ("ns", "ew", "reserves"):
                    for n, pl in enumerate(getattr(t, part)):
                        yield f"{at}.teams[{k}].{part}[{n}]", pl


def _explain(errors):
    """Pydantic's errors as "field: what is wrong"; a field that may be text or a number gets one line."""
    said = {}
    for err in errors:
        loc = err["loc"][:-1] if err["loc"][-1:] in (("str",), ("int",)) else err["loc"]
        said.setdefault(_where(loc), []).append(_WORDS.get(err["type"], err["msg"]))
    lines = []
    for where, words in said.items():
        first, *more = dict.fromkeys(words)
        lines.append(f"{where}: {' or '.join([first, *(w.removeprefix('must be ') for w in more)])}")
    return "; ".join(lines[:5])


def _where(loc):
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the event"


_DEFAULTS = {"first_board": 1, "pairs": [], "teams": [], "reserves": [], "players": [], "ns": [], "ew": [],
             "draws": [], "carry_over": [], "across_field": False}
_FIRST = ("bidwire_event", "name", "register", "date", "hand_records")  # then the fields in their dataclass order


def _prune(value):
    """Fields at their default left out; the format and the names first, so the file reads from the top."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: _FIRST.index(k) if k in _FIRST else len(_FIRST))
        return {k: _prune(value[k]) for k in keys
                if value[k] is not None and not (k in _DEFAULTS and value[k] == _DEFAULTS[k])}
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value


def _sets(section):
    """The board sets of the section's whole movement (a Swiss's undrawn match rounds counted too)."""
    c = section.movement
    return _plan(c.type, c.tables, c.rounds, c.even, 1, 1, None, section.entrants(), _frozen(section.draws),
                 c.seating).sets


def _frozen(draws):
    return tuple(tuple(tuple(match) for match in row) for row in draws)


@lru_cache(maxsize=64)
def _plan(kind, tables, rounds, even, boards_per_round, first_board, phantom, teams=0, draws=(), seating=None,
          arrow_switch=()):
    spec = {"type": kind, "tables": tables, "rounds": rounds, "even": even, "seating": seating,
            "arrow_switch": list(arrow_switch)}
    plan = plans.build(spec, boards_per_round, first_board, teams, draws)
    return plan.with_phantom(phantom) if phantom is not None else plan


def _missing(section):
    """The movement's pairs that the section does not list (the phantom, if one)."""
    if section.is_teams or section.movement.type in ("swiss-pairs", individual.KIND):  # (a Swiss pairs's bye is
        # drawn, not a phantom; an individual lists no pairs)
        return []
    got = {PairId(p.number, p.line or "") for p in section.pairs}
    m = section.movement
    return [p for p in _plan(m.type, m.tables, m.rounds, m.even, 1, 1, None, seating=m.seating).pairs()
            if p not in got]
