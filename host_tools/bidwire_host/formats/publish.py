"""What an export carries (PBN, USEBIO, CSV): the event, each board's hand record and scored traveller with
any auctions, and the totals and standings. Built from plain results by `publication()`.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from bidwire.core import board as core_board
from bidwire_host.scoring.model import written_figures
from bidwire_host.scoring.session import score_field

SCORING_TAGS = {"mp": "MP;MP1", "neuberg": "MP;MP1", "cross-imps": "IMP;Cross2", "butler": "IMP;Butler",
                "teams": "IMP"}  # PBN 2.1 §3.4.12 basic systems and modifiers


@dataclass
class EventInfo:
    event: str = ""
    site: str = ""
    date: dt.date | str | None = None
    method: str = "neuberg"
    club: str = ""
    club_id: str = ""
    session: str = "1"  # the session's number in the event
    # the section's name: the CSV's section column, and USEBIO's EVENT_DESCRIPTION when the session has several
    section: str = "A"
    sections: int = 1  # how many sections the session has (one export a section)
    ebu: dict = field(default_factory=dict)  # the event file's `ebu` (charge_code, master_point_scale), if set
    masterpoints: dict | None = None  # the event file's `masterpoints` ({"scale": ..., "awards": [...]}), if set

    def iso_date(self):
        """The date as spreadsheets read it, YYYY-MM-DD; '' when unknown."""
        if isinstance(self.date, dt.date):
            return self.date.isoformat()
        return (self.date or "").replace(".", "-")

    def pbn_date(self):
        """PBN's YYYY.MM.DD (§3.4.3); '?' digits when unknown."""
        if isinstance(self.date, dt.date):
            return self.date.strftime("%Y.%m.%d")
        return self.date or "????.??.??"


@dataclass
class AuctionCall:
    """A call as bidwire records it: 'Pass', 'X', 'XX', '1NT'...; an alert with its explanation if any; the seat
    that made it when known (a call out of rotation that was accepted is not the next seat's: PBN §3.9); its tempo,
    the thinking time the unit measured, in tenths of a second (None: not known)."""

    call: str
    alert: bool = False
    explanation: str | None = None
    seat: str | None = None
    tempo: int | None = None


@dataclass
class BoardRecord:
    board: int
    rows: list  # scoring.model.Row, the traveller in order
    deal: object | None = None  # pbn.Deal
    dealer: str | None = None
    vulnerable: int | None = None  # the vulnerability actually used (laws.md §2.2); default Law 2
    auctions: dict = field(default_factory=dict)  # row index -> [AuctionCall], dealer's call first
    players: dict = field(default_factory=dict)  # row index -> {"N": name, ...}
    leads: dict = field(default_factory=dict)  # row index -> the opening lead as recorded: a suit "S" or a card "SK"
    rounds: dict = field(default_factory=dict)  # row index -> the round the table played the board in, when known
    entered: dict = field(default_factory=dict)  # row index -> who entered it: a result no unit reported (director's)
    analysis: dict | None = None  # the deal's double-dummy analysis (bidwire_host/event/analysis.py), if made

    def written(self, name):
        """The traveller's column `name` (mp_ns, mp_ew, imp_ns, imp_ew) as every file writes it: 2 decimals that
        sum to the board's exact total (scoring.model.written_figures)."""
        return written_figures([getattr(row, name) for row in self.rows])

    @property
    def dealer_seat(self):
        return self.dealer or "NESW"[core_board.dealer(self.board)]

    @property
    def vul(self):
        return core_board.vulnerability(self.board) if self.vulnerable is None else self.vulnerable


@dataclass
class Publication:
    event: EventInfo
    boards: list[BoardRecord]
    totals: dict
    standings: list
    two_fields: bool = False
    names: dict = field(default_factory=dict)  # contestant id -> "Name - Name"
    players: dict = field(default_factory=dict)  # contestant id -> [event.Player] (name and number)
    # a teams event of N teams (a round robin, a Swiss): its standings in VPs, best first, in place of the totals'
    # IMPs: [TeamStanding]
    team_standings: list | None = None

    @property
    def method(self):
        return self.event.method


@dataclass
class TeamStanding:
    """A team's place in a teams event: its VPs (hundredths), the IMPs won and lost, the matches and boards."""
    rank: str
    team: str
    name: str
    vps: int
    imps_for: object
    imps_against: object
    matches: int
    boards: int


@dataclass
class OverallStanding:
    """A contestant's place in an event of several sessions: its pair id in the first session it played (a Mitchell's
    direction and number), its names and players, the score it is ranked on (a percentage, or the matchpoints
    summed), its percentage in each session (None: it missed it), the boards it played in all, and its
    matchpoints in all with their tops."""
    rank: str
    direction: str | None
    pair: str
    names: str
    score: object
    sessions: list
    boards: int
    players: list = field(default_factory=list)  # [event.Player]
    mp: object = 0
    top: object = 0


@dataclass
class EventOverall:
    """The whole event of several sessions as its files carry it: the event (its name, date, club), the carry-over
    (scoring/overall.py's method), the sessions' names in order and the overall standings, best first."""
    event: EventInfo
    carry_over: str
    sessions: list[str]
    standings: list[OverallStanding]


def players_of(pub, contestant):
    """The contestant's [event.Player]: by the standings' key (("NS", "3") in a Mitchell), else by its number."""
    found = pub.players.get(contestant)
    if found is None and isinstance(contestant, tuple):
        found = pub.players.get(contestant[1])
    return list(found or [])


def publication(results, event=None, *, hands=None, auctions=None, names=None, players=None, two_fields=None,
                **options):
    """Score `results` with event.method and wrap everything an export needs.

    `hands`: {board: HandRecord or Deal}; `auctions`: {(board, row index): [AuctionCall]}; `players`: {contestant
    id: [event.Player]}.
    """
    event = event or EventInfo()
    rows, totals, standings, two = score_field(results, event.method, two_fields=two_fields, **options)
    boards = []
    for number, board_rows in rows.items():
        hand = (hands or {}).get(number)
        deal = getattr(hand, "deal", hand)
        record = BoardRecord(number, board_rows, deal, getattr(hand, "dealer", None), getattr(hand, "vulnerable", None))
        for (b, i), calls in (auctions or {}).items():
            if b == number:
                record.auctions[i] = calls
        boards.append(record)
    return Publication(event, boards, totals, standings, two, dict(names or {}), dict(players or {}))
