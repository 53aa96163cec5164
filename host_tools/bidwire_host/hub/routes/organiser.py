"""The organiser's API and pages: set up a sim and change it until play starts, register clubs, follow the
progress, correct a result, read the audit log, log in."""
import re
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from bidwire.core import board as core_board
from bidwire_host.event import analysis
from bidwire_host.formats import pbn_export
from bidwire_host.formats.pbn import PbnError, parse_deal
from bidwire_host.formats.pbn_import import HandRecord
from bidwire_host.formats.pbn_import import load as load_pbn
from bidwire_host.formats.publish import EventInfo
from bidwire_host.hub import storage
from bidwire_host.hub.access import COOKIE, Organiser, end_session, is_organiser, open_session, password_ok
from bidwire_host.hub.inputs import (
    ClubInPath,
    ClubRegistration,
    HeldDecision,
    OrganiserCorrection,
    SimChange,
    SimInPath,
    SimSetup,
)
from bidwire_host.hub.storage import Refused, released
from bidwire_host.hub.views import TEMPLATES, standing
from bidwire_host.hub.worker import WorkerDep
from bidwire_host.sim_ids import SIM_ID

router = APIRouter()
PROGRESS_TOP = 100  # entries of the provisional ranking in a progress reply, polled every second or two


@router.post("/api/v1/sims", status_code=201, dependencies=Organiser)
def create_sim(setup: SimSetup, hub: WorkerDep):
    hands, worked = {}, {}
    hand_set = analysis.deal_session(setup.boards, setup.deal_seed) if setup.deal else setup.hands_pbn
    if hand_set:
        try:
            records_in = load_pbn(hand_set).hands
        except PbnError as e:
            raise Refused(422, f"hands_pbn: {e}", "hands_pbn") from None
        hands = {b: h.deal.pbn() for b, h in records_in.items() if h.deal is not None}
        worked = analysis.tables({b: h for b, h in records_in.items() if b in setup.boards})
    with hub.pool.connection() as conn:
        storage.create_sim(conn, setup, hands, worked)
    return {"id": setup.id}


@router.get("/api/v1/sims", dependencies=Organiser)
def list_sims(hub: WorkerDep):
    """Every sim of the hub, for the organiser's desk: id, name, release time, whether released."""
    with hub.pool.connection() as conn:
        rows = storage.sims(conn)
    return [{"id": r["id"], "name": r["name"], "release_at": r["release_at"].isoformat(), "released": released(r)}
            for r in rows]


@router.patch("/api/v1/sims/{sim_id}", dependencies=Organiser)
def change_sim(sim_id: SimInPath, change: SimChange, hub: WorkerDep):
    with hub.pool.connection() as conn:
        storage.change_sim(conn, sim_id, change)
    return {"id": sim_id}


@router.get("/api/v1/sims/{sim_id}/hands.pbn", dependencies=Organiser)
def hand_set(sim_id: SimInPath, hub: WorkerDep):
    """The sim's hand set as PBN, for the organiser to send the clubs (they duplicate the boards from it)."""
    with hub.pool.connection() as conn:
        sim = storage.sim(conn, sim_id)
    if not sim["hands"]:
        raise Refused(404, "the sim has no hand set", "sim")
    hands = {b: HandRecord(b, "NESW"[core_board.dealer(b)], core_board.vulnerability(b),
                           parse_deal(sim["hands"][str(b)])) for b in sim["boards"] if sim["hands"].get(str(b))}
    text = pbn_export.hand_records(hands, EventInfo(event=sim["name"]))
    return Response(text, media_type="application/x-pbn; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{sim_id}-hands.pbn"'})


@router.post("/api/v1/sims/{sim_id}/clubs", status_code=201, dependencies=Organiser)
def register_club(sim_id: SimInPath, club: ClubRegistration, hub: WorkerDep):
    with hub.pool.connection() as conn:
        secret = storage.register_club(conn, sim_id, club)
    return {"id": club.id, "secret": secret}


@router.post("/api/v1/sims/{sim_id}/clubs/{club_id}/secret", status_code=201, dependencies=Organiser)
def new_secret(sim_id: SimInPath, club_id: ClubInPath, hub: WorkerDep):
    """A new secret for the club, shown once: the old one opens nothing from now on (a secret given to the wrong
    person, or lost)."""
    with hub.pool.connection() as conn:
        return {"id": club_id, "secret": storage.rotate_secret(conn, sim_id, club_id)}


@router.delete("/api/v1/sims/{sim_id}/clubs/{club_id}", dependencies=Organiser)
def remove_club(sim_id: SimInPath, club_id: ClubInPath, hub: WorkerDep):
    """The club and its results out of the sim, audited with how many results went."""
    with hub.pool.connection() as conn:
        return {"id": club_id, "results_removed": storage.remove_club(conn, sim_id, club_id)}


@router.get("/api/v1/sims/{sim_id}/progress", dependencies=Organiser)
def progress(sim_id: SimInPath, hub: WorkerDep):
    with hub.pool.connection() as conn:
        sim = storage.sim(conn, sim_id)
        clubs = storage.clubs(conn, sim_id)
        waiting = storage.held_results(conn, sim_id)
        f = hub.field(conn, sim)
    held = f.clubs  # as of the ranking: what each club holds in it
    return {"sim": sim_id, "changes": sim["changes"], "released": released(sim), "held": len(waiting),
            "sessions": sim["sessions"],
            "clubs": [{"id": c["club_id"], "name": c["name"], "sessions": c["sessions"],
                       "results": held.get(c["club_id"], (0, 0))[0],
                       "boards": held.get(c["club_id"], (0, 0))[1], "started": c["club_id"] in held} for c in clubs],
            "clubs_started": sum(1 for c in clubs if c["club_id"] in held), "results": f.results,
            "ranking_changes": f.version,  # the ranking is as of this many changes (state.RESCORE_EVERY)
            "pairs": len(f.ranking), "ranking": [standing(e) for e in f.ranking[:PROGRESS_TOP]]}


@router.post("/api/v1/sims/{sim_id}/corrections", dependencies=Organiser)
def correct(sim_id: SimInPath, fix: OrganiserCorrection, hub: WorkerDep):
    """The organiser sets one club's result, with the reason (after the correction period, the only way)."""
    with hub.pool.connection() as conn:
        version = storage.organiser_correct(conn, sim_id, fix)
    return {"version": version, "changed": version is not None}


@router.get("/api/v1/sims/{sim_id}/held", dependencies=Organiser)
def held(sim_id: SimInPath, hub: WorkerDep):
    """The results held for the organiser: first seen after the release, not in the field until admitted."""
    with hub.pool.connection() as conn:
        storage.sim(conn, sim_id)
        rows = storage.held_results(conn, sim_id)
    return [{"club": r["club_id"], "session": r["session"] or None, "section": r["section"], "board": r["board"],
             "ns": r["ns"], "ew": r["ew"],
             "ns_names": r["ns_names"], "ew_names": r["ew_names"], "contract": r["contract"],
             "declarer": r["declarer"], "tricks": r["tricks"], "score_ns": r["score_ns"], "adjusted": r["adjusted"],
             "version": r["version"], "at": r["updated_at"].isoformat()} for r in rows]


@router.post("/api/v1/sims/{sim_id}/held", dependencies=Organiser)
def decide_held(sim_id: SimInPath, decision: HeldDecision, hub: WorkerDep):
    """The organiser admits a club's held results into the field, or rejects them, with the reason (audited)."""
    with hub.pool.connection() as conn:
        n = storage.decide_held(conn, sim_id, decision)
    return {"admitted" if decision.admit else "rejected": n}


@router.get("/api/v1/sims/{sim_id}/audit", dependencies=Organiser)
def audit(sim_id: SimInPath, hub: WorkerDep):
    with hub.pool.connection() as conn:
        storage.sim(conn, sim_id)
        rows = storage.audit(conn, sim_id)
    return [{"id": r["id"], "at": r["at"].isoformat(), "by": r["by"], "what": r["what"], "detail": r["detail"]}
            for r in rows]


def _next(path):
    """Where a login goes on to: an organiser's page of this hub (the desk, a sim's desk), or the desk; never
    another site."""
    return path if path and re.fullmatch("/organiser(/sims/" + SIM_ID[1:-1] + ")?", path) else "/organiser"


@router.get("/organiser/login", response_class=HTMLResponse)
def login_page(request: Request, next: Annotated[str, Query(max_length=100)] = ""):  # noqa: A002 - the query's name
    return TEMPLATES.TemplateResponse(request, "login.html", {"error": None, "next": _next(next)})


@router.post("/organiser/login")
def login(request: Request, hub: WorkerDep, password: str = Form(max_length=200),
          next: str = Form(default="", max_length=100)):  # noqa: A002 - the form field's name
    if not password_ok(hub, request, password):
        return TEMPLATES.TemplateResponse(request, "login.html", {"error": "wrong password", "next": _next(next)},
                                          status_code=401)
    r = RedirectResponse(_next(next), status_code=303)
    secure = request.url.scheme == "https"  # https itself, or as a named proxy says (serve --forwarded-allow-ips)
    r.set_cookie(COOKIE, open_session(hub), httponly=True, samesite="strict", secure=secure)
    return r


@router.post("/organiser/logout")
def logout(request: Request, hub: WorkerDep):
    """The page's session ends on the server (its cookie no longer opens anything, wherever it was copied)."""
    end_session(hub, request)
    r = RedirectResponse("/", status_code=303)
    r.delete_cookie(COOKIE)
    return r


@router.get("/organiser/desk.js")
def desk_script():
    """The desk pages' few shared functions (the time zones, the API calls)."""
    return Response(TEMPLATES.get_template("desk.js").render(), media_type="text/javascript; charset=utf-8",
                    headers={"Cache-Control": "no-cache"})


@router.get("/organiser", response_class=HTMLResponse)
def desk(request: Request, hub: WorkerDep):
    """The organiser's desk: the hub's sims, and a new one set up."""
    if not is_organiser(hub, request):
        return RedirectResponse("/organiser/login?next=/organiser", status_code=303)
    with hub.pool.connection() as conn:
        rows = storage.sims(conn)
    return TEMPLATES.TemplateResponse(request, "desk.html", {"sims": [dict(r, released=released(r)) for r in rows]})


@router.get("/organiser/sims/{sim_id}", response_class=HTMLResponse)
def organiser_page(sim_id: SimInPath, request: Request, hub: WorkerDep):
    if not is_organiser(hub, request):
        return RedirectResponse(f"/organiser/login?next=/organiser/sims/{sim_id}", status_code=303)
    with hub.pool.connection() as conn:
        sim = storage.sim(conn, sim_id)
    return TEMPLATES.TemplateResponse(request, "organiser.html", {"sim": sim, "is_released": released(sim)})
