"""The bounded types every request to the hub is parsed into before anything stores or renders it.

A value out of bounds is a 422 naming the field (FastAPI's validation reply); nothing of a refused request is
stored. A club's upload is a claim: each played result's score is worked again from the contract (Law 77) and a
result whose score disagrees is refused with the board named.
"""
from datetime import datetime
from typing import Annotated, Literal

from fastapi import Path, Query
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from bidwire_host.scoring.masterpoints import EBU_CLUB
from bidwire_host.scoring.model import ScoringError, law77_score
from bidwire_host.sim_ids import CLUB_ID, PLAYER_IDS, SESSION, SIM_ID

# ASCII only, no NUL or other control character: an id is checked here before any SQL sees it (a NUL reached
# PostgreSQL as a 500, issue 39 item 9); the sim's and the club's are the ones a club's event file is checked with
SECTION = r"^[A-Za-z0-9]{1,8}$"
# a club's pair number, or a pair of the combined field as the hub's own files name it (club-section-number,
# "C1-A-12"), so that sim.xml reads back through the hub's reader
PAIR_ID = r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,23})$"
SimId = Annotated[str, Field(pattern=SIM_ID)]
ClubId = Annotated[str, Field(pattern=CLUB_ID)]
Section = Annotated[str, Field(pattern=SECTION)]
Session = Annotated[str, Field(pattern=SESSION)]
PairId = Annotated[str, Field(pattern=PAIR_ID)]
Board = Annotated[int, Field(ge=1, le=999)]
# the same, as a path's or a query's parts: a bad one is a 422 naming it, before the route runs
SimInPath = Annotated[str, Path(pattern=SIM_ID)]
ClubInPath = Annotated[str, Path(pattern=CLUB_ID)]
SectionInPath = Annotated[str, Path(pattern=SECTION)]
PairInPath = Annotated[str, Path(pattern=PAIR_ID)]
DirectionInPath = Annotated[Literal["NS", "EW"], Path()]
BoardInPath = Annotated[int, Path(ge=1, le=999)]
SessionInQuery = Annotated[str | None, Query(pattern=SESSION)]
ClubInQuery = Annotated[str | None, Query(pattern=f"^({CLUB_ID[1:-1]})?$")]  # "": all clubs
SECTION_IN_FORM = f"^\\s*({SECTION[1:-1]})?\\s*$"  # the page form's section: blank for the file's own
SESSION_IN_FORM = f"^\\s*({SESSION[1:-1]})?\\s*$"  # and session: blank in a sim of one
Names = Annotated[str, Field(max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$")]
Ids = Annotated[str, Field(pattern=PLAYER_IDS)]
Text = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f\x7f]*$")]
MAX_RESULTS = 2000  # per upload: a club's whole heat of 60 tables x 32 boards fits in one


def _aware(value: datetime):
    if value.tzinfo is None:
        raise ValueError("give a time zone (e.g. 2026-12-02T21:30:00+00:00)")
    return value


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


class MasterpointScale(Strict):
    """The masterpoints the sim awards on its combined ranking (scoring/masterpoints.py): the EBU's club scale by
    its name, or a scale of the organiser's own with its awards by place, in hundredths of a master point."""

    scale: Text
    awards: Annotated[list[Annotated[int, Field(ge=0, le=100_000)]], Field(min_length=1, max_length=1000)] | None = None

    @model_validator(mode="after")
    def _named(self):
        if self.awards is None and self.scale != EBU_CLUB:
            raise ValueError(f"masterpoints: a scale other than {EBU_CLUB!r} needs its awards by place")
        return self


class SimSetup(Strict):
    """What the organiser sets up: the sim's boards, hand set, release time and scoring."""

    id: SimId
    name: Text
    release_at: Annotated[datetime, AfterValidator(_aware)]
    scoring: Literal["mp", "neuberg"] = "neuberg"  # Neuberg factors boards played unequally often
    winners: Literal["one", "two"] = "two"  # one: every pair in one ranking (ECats); two: NS and EW apart
    boards: Annotated[list[Board], Field(min_length=1, max_length=99)]
    hands_pbn: Annotated[str, Field(max_length=1_000_000)] | None = None
    deal: bool = False  # the hub deals the boards (endplay's dealer) instead of a hand set
    deal_seed: Annotated[int, Field(ge=0, lt=2**32)] | None = None  # the same seed deals the same boards
    correction_minutes: Annotated[int, Field(ge=0, le=10080)] = 60  # after the release; then the organiser's
    masterpoints: MasterpointScale | None = None  # awarded on the combined ranking, carried in the USEBIO
    # the sessions the hand set is played in, each upload naming its own ([]: one session, named by none)
    sessions: Annotated[list[Session], Field(max_length=20)] = []

    @model_validator(mode="after")
    def _distinct(self):
        if len(set(self.boards)) != len(self.boards):
            raise ValueError("boards: each board once")
        if len(set(self.sessions)) != len(self.sessions):
            raise ValueError("sessions: each session once")
        if self.deal and self.hands_pbn is not None:
            raise ValueError("deal: give a hand set (hands_pbn) or ask the hub to deal, not both")
        if self.deal_seed is not None and not self.deal:
            raise ValueError("deal_seed: only with deal: true")
        return self


class SimChange(Strict):
    """A change to the setup before play starts (recorded in the audit log)."""

    name: Text | None = None
    release_at: Annotated[datetime, AfterValidator(_aware)] | None = None
    scoring: Literal["mp", "neuberg"] | None = None
    winners: Literal["one", "two"] | None = None
    correction_minutes: Annotated[int, Field(ge=0, le=10080)] | None = None


class ClubRegistration(Strict):
    id: ClubId
    name: Text


class Adjusted(Strict):
    """Law 12 C as the club gave it: artificial percentages (ns, ew) or assigned scores (ns_score, ew_score)."""

    ns: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None
    ew: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None
    ns_score: Annotated[int, Field(ge=-7600, le=7600)] | None = None
    ew_score: Annotated[int, Field(ge=-7600, le=7600)] | None = None

    @model_validator(mode="after")
    def _one_kind(self):
        pct = self.ns is not None and self.ew is not None
        scores = self.ns_score is not None and self.ew_score is not None
        if pct == scores or (pct and (self.ns_score, self.ew_score) != (None, None)) or (
                scores and (self.ns, self.ew) != (None, None)):
            raise ValueError("adjusted: give ns and ew (artificial %), or ns_score and ew_score (assigned)")
        return self


class ResultIn(Strict):
    section: Section
    board: Board
    ns: PairId
    ew: PairId
    ns_names: Names = ""
    ew_names: Names = ""
    ns_ids: Ids = ""
    ew_ids: Ids = ""
    contract: Annotated[str, Field(pattern=r"^(Pass|[1-7](C|D|H|S|NT)(X|XX)?)$")] | None = None
    declarer: Literal["N", "E", "S", "W"] | None = None
    tricks: Annotated[int, Field(ge=0, le=13)] | None = None
    score_ns: Annotated[int, Field(ge=-7600, le=7600)] | None = None
    adjusted: Adjusted | None = None

    @model_validator(mode="after")
    def _scored(self):
        if self.adjusted is not None:
            if self.contract is not None or self.score_ns is not None:
                raise ValueError(f"board {self.board}: an adjusted result has no contract or score")
            return self
        if self.contract is None or self.score_ns is None:
            raise ValueError(f"board {self.board}: give the contract and score_ns, or adjusted")
        if self.contract != "Pass" and (self.declarer is None or self.tricks is None):
            raise ValueError(f"board {self.board}: a played contract needs declarer and tricks")
        try:
            score = law77_score(self.board, self.contract, self.declarer, self.tricks)
        except ScoringError as e:
            raise ValueError(str(e)) from None
        if score != self.score_ns:
            raise ValueError(f"board {self.board}: score_ns {self.score_ns} is not the Law 77 score {score} of "
                             f"{self.contract} by {self.declarer} making {self.tricks}")
        return self


class Upload(Strict):
    """One upload from a club: its number (1, 2, ... in the club's order, in each session apart), the session
    its heat is (in a sim of several sessions; none in a sim of one) and the results it sets or corrects."""

    sim: SimId
    club: ClubId
    session: Session | None = None
    upload: Annotated[int, Field(ge=1, le=2**53)]
    results: Annotated[list[ResultIn], Field(min_length=1, max_length=MAX_RESULTS)]


class Login(Strict):
    password: Annotated[str, Field(min_length=1, max_length=200)]


class ResultKey(Strict):
    """One result of a club by what keys it: its session (in a sim of several), section, board and pairs."""

    session: Session | None = None
    section: Section
    board: Board
    ns: PairId
    ew: PairId


Reason = Annotated[str, Field(min_length=1, max_length=500, pattern=r"^[^\x00-\x08\x0b-\x1f\x7f]*$")]


class HeldDecision(Strict):
    """The organiser's decision on a club's results held after the release: admit them into the field, or
    reject them; all the club's held results, or those named; with why (it goes into the audit log)."""

    club: ClubId
    admit: bool
    reason: Reason
    results: Annotated[list[ResultKey], Field(max_length=MAX_RESULTS)] = []


class OrganiserCorrection(Strict):
    """The organiser's change of one club's result (after the correction period only the organiser's), with why.
    A played result may leave out `score_ns`: the hub works it out by Law 77 (the organiser's desk form)."""

    club: ClubId
    session: Session | None = None  # in a sim of several sessions, the session of the club's heat
    result: ResultIn
    reason: Reason

    @model_validator(mode="before")
    @classmethod
    def _scored(cls, data):
        r = data.get("result") if isinstance(data, dict) else None
        if isinstance(r, dict) and r.get("score_ns") is None and r.get("adjusted") is None and r.get("contract"):
            try:
                data = {**data, "result": {**r, "score_ns": law77_score(r.get("board"), r["contract"],
                                                                         r.get("declarer"), r.get("tricks"))}}
            except (ScoringError, TypeError, ValueError, KeyError):
                pass  # the result's own checks name what is wrong
        return data
