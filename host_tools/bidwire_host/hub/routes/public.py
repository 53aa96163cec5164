"""What anyone reads: whether a sim is released (a club collector asks), and after the release the combined
results, the exports and the pages: the ranking, each board and each pair's card. Before it, only the organiser
sees them (docs/hub.md "The embargo")."""
import os
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from bidwire.core import board as core_board
from bidwire_host.formats.pbn import parse_deal
from bidwire_host.hub import exports, storage
from bidwire_host.hub.access import COOKIE, is_organiser
from bidwire_host.hub.inputs import (
    BoardInPath,
    ClubInPath,
    ClubInQuery,
    DirectionInPath,
    PairInPath,
    SectionInPath,
    SessionInQuery,
    SimInPath,
)
from bidwire_host.hub.storage import Refused, released
from bidwire_host.hub.views import TEMPLATES, pct, plain, standing
from bidwire_host.hub.worker import Worker, WorkerDep
from bidwire_host.utc import now

router = APIRouter()


def _embargoed(sim):
    return Refused(403, f"embargoed until {sim['release_at'].isoformat()}", "sim")


def _shown(hub: Worker, request, sim):
    return released(sim) or is_organiser(hub, request)


@router.get("/api/v1/sims/{sim_id}/release")
def release(sim_id: SimInPath, hub: WorkerDep):
    """Whether the sim's hands and frequencies may be shown: what a club collector asks before it shows them."""
    with hub.pool.connection() as conn:
        sim = storage.sim(conn, sim_id)
    return {"sim": sim_id, "released": released(sim), "release_at": sim["release_at"].isoformat(),
            "boards": sim["boards"], "sessions": sim["sessions"]}


@router.get("/api/v1/sims/{sim_id}/results")
def results(sim_id: SimInPath, request: Request, hub: WorkerDep):
    with hub.pool.connection() as conn:
        sim = storage.sim(conn, sim_id)
        if not _shown(hub, request, sim):
            raise _embargoed(sim)
        f = hub.field(conn, sim)
    return {"sim": sim_id, "name": sim["name"], "ranking": [standing(e) for e in f.ranking],
            "boards": {str(b): [plain(r) for r in rows] for b, rows in f.boards.items()}}


def _released_rows(hub: Worker, sim_id, request):
    with hub.pool.connection() as conn:
        sim = storage.sim(conn, sim_id)
        if not _shown(hub, request, sim):
            raise _embargoed(sim)
        rows = storage.results(conn, sim_id)
    if not rows:
        raise Refused(409, "no result in yet", "sim")
    return sim, rows


@router.get("/api/v1/sims/{sim_id}/export.pbn")
def export_pbn(sim_id: SimInPath, request: Request, hub: WorkerDep):
    sim, rows = _released_rows(hub, sim_id, request)
    return Response(exports.pbn(sim, rows), media_type="application/x-pbn; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{sim_id}.pbn"'})


@router.get("/api/v1/sims/{sim_id}/export.xml")
def export_usebio(sim_id: SimInPath, request: Request, hub: WorkerDep):
    sim, rows = _released_rows(hub, sim_id, request)
    return Response(exports.usebio_xml(sim, rows), media_type="application/xml; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{sim_id}.xml"'})


@router.get("/healthz")
def healthz(hub: WorkerDep):
    with hub.pool.connection() as conn:
        conn.execute("SELECT 1")
    return {"ok": True, "pid": os.getpid()}


# ---- pages ---------------------------------------------------------------------------------------------
@router.get("/", response_class=HTMLResponse)
def index(request: Request, hub: WorkerDep):
    with hub.pool.connection() as conn:
        all_sims = storage.sims(conn)
    return TEMPLATES.TemplateResponse(request, "index.html", {"sims": all_sims, "now": now()})


PAGE = 100  # entries of the ranking (or rows of a traveller) a page shows: a phone reads a page or its club's


def _at_once(hub: Worker, sim_id, key, again):
    """A released page from what this worker holds, on the event loop (no database, no thread): the public
    reads of a busy night. It may be the page rendered from the field before the one served; then `again`
    renders it anew in the background. None when it must be made here: the sim not read within SIM_TTL, not
    released, no field scored yet, or the page never rendered."""
    sim = hub.recent_sim(sim_id)
    if sim is None or not released(sim):
        return None
    f = hub.served_field(sim)
    return None if f is None else hub.served_page(key(sim, f), f, again)


def _before_release(hub: Worker, request, sim_id, key, render):
    """The page anyone reads before the release (when the results will be out), from the sim's row this worker
    read within SIM_TTL, on the event loop: no database, no thread, for the players who reload it all evening
    while the clubs upload. None when it must be made the slow way: the sim not read lately, released, or the
    request carrying a credential (the organiser sees everything: the full path checks it)."""
    if request.headers.get("authorization") or request.cookies.get(COOKIE):
        return None
    sim = hub.recent_sim(sim_id)
    if sim is None or released(sim):
        return None
    k = key(sim)
    return None if k is None else hub.page(("before release", *k), None, lambda: render(sim))


def _pages(entries):
    """How many pages `entries` entries fill (one, when there are none)."""
    return max(1, -(-entries // PAGE))


def _sim_key(sim, f, page, club):
    return ("sim", sim["id"], sim["name"], sim["release_at"], min(page, _pages(len(f.ranking))), club)


@router.get("/sims/{sim_id}", response_class=HTMLResponse)
async def sim_page(sim_id: SimInPath, request: Request, hub: WorkerDep,
                   page: Annotated[int, Query(ge=1, le=10_000)] = 1, club: ClubInQuery = None):
    club = club or None  # the form's "All clubs"
    html = _at_once(hub, sim_id, lambda sim, f: _sim_key(sim, f, page, club),
                    lambda: _sim_page(sim_id, None, hub, page, club)) or _before_release(
        hub, request, sim_id, lambda sim: ("sim", sim["id"], sim["name"], sim["release_at"]),
        lambda sim: TEMPLATES.get_template("sim.html").render({"sim": sim, "field": None, "shown": False}))
    if html is not None:
        return HTMLResponse(html)
    return await run_in_threadpool(_sim_page, sim_id, request, hub, page, club)


def _sim_page(sim_id, request, hub: Worker, page, club):
    with hub.pool.connection() as conn:
        sim = hub.sim(conn, sim_id)
        shown = _shown(hub, request, sim)
        f = hub.field(conn, sim) if shown else None
        names = storage.club_names(conn, sim_id) if shown else {}
    context = {"sim": sim, "field": f, "shown": shown, "pct": pct, "club_names": names, "club": club}
    if f is None:
        return TEMPLATES.TemplateResponse(request, "sim.html", context)
    if club is not None and club not in names:
        raise Refused(404, f"club: no club {club} in sim {sim_id}", "club")

    def render():
        entries = f.ranking.of_club(club) if club is not None else f.ranking
        pages = _pages(len(entries))
        at = min(page, pages)
        shown_entries = entries[(at - 1) * PAGE:at * PAGE]
        return TEMPLATES.get_template("sim.html").render(
            context, entries=shown_entries, page=at, pages=pages, first=(at - 1) * PAGE + 1,
            total=len(entries), clubs=sorted(names.items()))
    return HTMLResponse(hub.page(_sim_key(sim, f, page, club), f, render))


@router.get("/sims/{sim_id}/boards/{board}", response_class=HTMLResponse)
async def board_page(sim_id: SimInPath, board: BoardInPath, request: Request, hub: WorkerDep,
                     club: ClubInQuery = None):
    club = club or None
    html = _at_once(hub, sim_id, lambda sim, f: _board_key(sim, board, club),
                    lambda: _board_page(sim_id, board, None, hub, club)) or _before_release(
        hub, request, sim_id, lambda sim: _board_key(sim, board, None) + (sim["release_at"],)
        if board in sim["boards"] else None,
        lambda sim: TEMPLATES.get_template("board.html").render({"sim": sim, "board": board, "shown": False}))
    if html is not None:
        return HTMLResponse(html)
    return await run_in_threadpool(_board_page, sim_id, board, request, hub, club)


def _board_key(sim, board, club):
    return ("board", sim["id"], board, sim["name"], club)


def _board_page(sim_id, board, request, hub: Worker, club):
    with hub.pool.connection() as conn:
        sim = hub.sim(conn, sim_id)
        if board not in sim["boards"]:
            raise Refused(404, f"board {board} is not in sim {sim_id}", "board")
        shown = _shown(hub, request, sim)
        f = hub.field(conn, sim) if shown else None
        names = storage.club_names(conn, sim_id) if shown else {}
    if club is not None and club not in names:
        raise Refused(404, f"club: no club {club} in sim {sim_id}", "club")

    def context():
        freq = f.frequencies.get(board, []) if f else []
        results = sum(x[1] for x in freq)
        deal = sim["hands"].get(str(board)) if shown else None
        # the traveller: every result while it is short, else one club's (a phone does not read 5,000 rows)
        listed = None
        if f is None or club is not None or results <= PAGE:
            listed = [r for r in (f.boards.get(board, []) if f else []) if club is None or r["club"] == club]
        return {"sim": sim, "board": board, "shown": shown, "rows": listed, "results": results, "pct": pct,
                "freq": freq, "hands": parse_deal(deal).hands if deal else None,
                "worked": sim["analysis"].get(str(board)) if shown else None,
                "dealer": "NESW"[core_board.dealer(board)], "club": club, "clubs": sorted(names.items()),
                "club_names": names, "vul": core_board.VUL_NAMES[core_board.vulnerability(board)]}
    if f is None:
        return TEMPLATES.TemplateResponse(request, "board.html", context())
    return HTMLResponse(hub.page(_board_key(sim, board, club), f,
                                 lambda: TEMPLATES.get_template("board.html").render(context())))


@router.get("/sims/{sim_id}/pairs/{club}/{section}/{direction}/{number}", response_class=HTMLResponse)
def pair_page(sim_id: SimInPath, club: ClubInPath, section: SectionInPath, direction: DirectionInPath,
              number: PairInPath, request: Request,
              hub: WorkerDep, session: SessionInQuery = None):
    """A pair's card: every board it played, its opponents, the contract, the score and its percentage. In a sim
    of several sessions, `?session=` names its club's heat."""
    session = session or ""
    with hub.pool.connection() as conn:
        sim = storage.sim(conn, sim_id)
        if not _shown(hub, request, sim):
            raise _embargoed(sim)
        f = hub.field(conn, sim)
        club_name = storage.club_names(conn, sim_id).get(club, club)
    entry = next((e for e in f.ranking if (e["pair"].club, e["pair"].session, e["pair"].section, e["pair"].direction,
                                           e["pair"].number) == (club, session, section, direction, number)), None)
    if entry is None:
        raise Refused(404, "no such pair in the field", "pair")
    key = "ns" if direction == "NS" else "ew"
    card = [(b, r) for b, rows in sorted(f.boards.items()) for r in rows
            if r["club"] == club and r["session"] == session and r["section"] == section and r[key] == number]
    return TEMPLATES.TemplateResponse(request, "pair.html", {"sim": sim, "entry": entry, "card": card,
                                                             "direction": direction, "pct": pct,
                                                             "club_name": club_name})
