"""What anyone reads: whether a sim is released (a club collector asks), and after the release the combined
results, the exports and the pages: the ranking, each board and each pair's card. Before it, only the organiser
sees them (docs/hub.md "The embargo")."""
import os

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from bidwire.core import board as core_board
from bidwire_host.formats.pbn import parse_deal
from bidwire_host.hub import exports, field, records
from bidwire_host.hub.access import is_organiser
from bidwire_host.hub.records import Refused
from bidwire_host.hub.state import Hub, HubDep, now, released
from bidwire_host.hub.views import TEMPLATES, pct, plain, standing

router = APIRouter()


def _embargoed(sim):
    return Refused(403, f"embargoed until {sim['release_at'].isoformat()}", "sim")


def _shown(hub: Hub, request, sim):
    return released(sim) or is_organiser(hub, request)


@router.get("/api/v1/sims/{sim_id}/release")
def release(sim_id: str, hub: HubDep):
    """Whether the sim's hands and frequencies may be shown: what a club collector asks before it shows them."""
    with hub.pool.connection() as conn:
        sim = records.sim(conn, sim_id)
    return {"sim": sim_id, "released": released(sim), "release_at": sim["release_at"].isoformat(),
            "boards": sim["boards"]}


@router.get("/api/v1/sims/{sim_id}/results")
def results(sim_id: str, request: Request, hub: HubDep):
    with hub.pool.connection() as conn:
        sim = records.sim(conn, sim_id)
        if not _shown(hub, request, sim):
            raise _embargoed(sim)
        f = hub.field(conn, sim)
    return {"sim": sim_id, "name": sim["name"], "ranking": [standing(e) for e in f.ranking],
            "boards": {str(b): [plain(r) for r in rows] for b, rows in f.boards.items()}}


def _released_rows(hub: Hub, sim_id, request):
    with hub.pool.connection() as conn:
        sim = records.sim(conn, sim_id)
        if not _shown(hub, request, sim):
            raise _embargoed(sim)
        rows = records.results(conn, sim_id)
    if not rows:
        raise Refused(409, "no result in yet", "sim")
    return sim, rows


@router.get("/api/v1/sims/{sim_id}/export.pbn")
def export_pbn(sim_id: str, request: Request, hub: HubDep):
    sim, rows = _released_rows(hub, sim_id, request)
    return Response(exports.pbn(sim, rows), media_type="application/x-pbn; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{sim_id}.pbn"'})


@router.get("/api/v1/sims/{sim_id}/export.xml")
def export_usebio(sim_id: str, request: Request, hub: HubDep):
    sim, rows = _released_rows(hub, sim_id, request)
    return Response(exports.usebio_xml(sim, rows), media_type="application/xml; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{sim_id}.xml"'})


@router.get("/healthz")
def healthz(hub: HubDep):
    with hub.pool.connection() as conn:
        conn.execute("SELECT 1")
    return {"ok": True, "pid": os.getpid()}


# ---- pages ---------------------------------------------------------------------------------------------
@router.get("/", response_class=HTMLResponse)
def index(request: Request, hub: HubDep):
    with hub.pool.connection() as conn:
        all_sims = records.sims(conn)
    return TEMPLATES.TemplateResponse(request, "index.html", {"sims": all_sims, "now": now()})


@router.get("/sims/{sim_id}", response_class=HTMLResponse)
def sim_page(sim_id: str, request: Request, hub: HubDep):
    with hub.pool.connection() as conn:
        sim = records.sim(conn, sim_id)
        shown = _shown(hub, request, sim)
        f = hub.field(conn, sim) if shown else None
        names = records.club_names(conn, sim_id) if shown else {}
    context = {"sim": sim, "field": f, "shown": shown, "pct": pct, "club_names": names}
    if f is None:
        return TEMPLATES.TemplateResponse(request, "sim.html", context)
    return HTMLResponse(hub.page(("sim", sim_id, sim["name"], sim["release_at"]), f,
                                 lambda: TEMPLATES.get_template("sim.html").render(context)))


@router.get("/sims/{sim_id}/boards/{board}", response_class=HTMLResponse)
def board_page(sim_id: str, board: int, request: Request, hub: HubDep):
    with hub.pool.connection() as conn:
        sim = records.sim(conn, sim_id)
        if board not in sim["boards"]:
            raise Refused(404, f"board {board} is not in sim {sim_id}", "board")
        shown = _shown(hub, request, sim)
        f = hub.field(conn, sim) if shown else None

    def context():
        rows = f.boards.get(board, []) if f else []
        deal = sim["hands"].get(str(board)) if shown else None
        return {"sim": sim, "board": board, "shown": shown, "rows": rows, "pct": pct,
                "freq": field.frequencies(rows), "hands": parse_deal(deal).hands if deal else None,
                "worked": sim["analysis"].get(str(board)) if shown else None,
                "dealer": "NESW"[core_board.dealer(board)],
                "vul": core_board.VUL_NAMES[core_board.vulnerability(board)]}
    if f is None:
        return TEMPLATES.TemplateResponse(request, "board.html", context())
    return HTMLResponse(hub.page(("board", sim_id, board, sim["name"]), f,
                                 lambda: TEMPLATES.get_template("board.html").render(context())))


@router.get("/sims/{sim_id}/pairs/{club}/{section}/{direction}/{number}", response_class=HTMLResponse)
def pair_page(sim_id: str, club: str, section: str, direction: str, number: str, request: Request,
              hub: HubDep):
    """A pair's card: every board it played, its opponents, the contract, the score and its percentage."""
    with hub.pool.connection() as conn:
        sim = records.sim(conn, sim_id)
        if not _shown(hub, request, sim):
            raise _embargoed(sim)
        f = hub.field(conn, sim)
        club_name = records.club_names(conn, sim_id).get(club, club)
    entry = next((e for e in f.ranking if (e["pair"].club, e["pair"].section, e["pair"].direction,
                                           e["pair"].number) == (club, section, direction, number)), None)
    if entry is None:
        raise Refused(404, "no such pair in the field", "pair")
    key = "ns" if direction == "NS" else "ew"
    card = [(b, r) for b, rows in sorted(f.boards.items()) for r in rows
            if r["club"] == club and r["section"] == section and r[key] == number]
    return TEMPLATES.TemplateResponse(request, "pair.html", {"sim": sim, "entry": entry, "card": card,
                                                             "direction": direction, "pct": pct,
                                                             "club_name": club_name})
