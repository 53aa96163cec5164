"""The director's JSON API of a teams event of N teams (issue 38, docs/teams.md): each section's matches, standings
and a Swiss's next draw (GET), and the draw pushed to the tables (POST: the `draw` decision)."""
from typing import Annotated

from fastapi import APIRouter, Header, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from bidwire_host.collector import apiauth, team_events
from bidwire_host.collector.deps import Service
from bidwire_host.web import errors

router = APIRouter(dependencies=[apiauth.guard_dependency])
Team = Annotated[int, Field(ge=1, le=100)]


class DrawIn(BaseModel):
    """A Swiss's next draw: the rule's (`matches` left out), or the director's own, home team first."""
    model_config = ConfigDict(extra="forbid")
    section: str | None = Field(None, max_length=8)
    round: int | None = Field(None, ge=1, le=100)
    matches: list[Annotated[list[Team], Field(min_length=2, max_length=2)]] | None = Field(None, max_length=50)
    repeats_ok: bool = False
    reason: str = Field("", max_length=500)
    by: str | None = Field(None, max_length=100)


@router.get("/api/v1/teams", tags=["director"])
def get_teams(service: Service, section: Annotated[str | None, Query(max_length=8)] = None):
    """Each teams event section's matches (board by board, the running score, the VPs once over), standings and,
    a Swiss's, next draw: what holds it, or the draw the rule makes. No such section: an empty list."""
    s = service.standings.setup
    secs = [sec for sec in (s.event.session(s.session).sections if s is not None else [])
            if team_events.is_event(sec) and section in (None, sec.name)]
    if section is not None and not secs:
        return errors.reply(404, f"section: no teams event (a round robin, a Swiss, a knock-out or a Swiss pairs) "
                            f"in section {section}", "section")
    results = service.standings.results()
    return {"sections": [team_events.view(sec, [r for name, r in results if name == sec.name]) for sec in secs]}


@router.post("/api/v1/teams/draw", tags=["director"], status_code=201)
async def post_draw(service: Service, body: DrawIn,
                    key: Annotated[str | None, Header(alias="Idempotency-Key", max_length=200)] = None):
    """Push a Swiss's next match round to the tables: the rule's draw, or the director's pairing in its place
    (a repeat meeting only with `repeats_ok`). Refused (409) while a match of the round before is not over,
    naming its tables and the boards missing there."""
    item = await service.decide("draw", body.model_dump(), key)
    return JSONResponse({"action": item}, status_code=201)
