"""The scorer's pages and the public results (issue 5, items 2 and 3): server-rendered from the collector's own
standings, director actions and exports; nothing is scored here.

- /scorer (staff session: the director's login for now): travellers per board, the ranking, publication (POST
  /scorer/publish with the session's CSRF token: `director.publish`, the correction period of Law 79 C), the
  download links (the JSON API's exports) and the printable page /scorer/print;
- /scorer/pairs/{direction}/{pair}: a pair's score card (direction NS, EW, or `-` in a Howell or a team match);
- /results (no login): the ranking and the travellers once the results are published, "not published yet" before.
"""
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from bidwire_host.collector import director
from bidwire_host.collector import setup as setup_mod
from bidwire_host.collector.store import StoreError
from bidwire_host.dashboard.auth import same_token

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
EXPORTS = (("pbn", "PBN"), ("usebio", "USEBIO XML"), ("csv", "CSV"))


def _num(value, places=None):
    """A score for a cell: blank when there is none; percentages with two decimals."""
    if value is None:
        return ""
    if places is not None:
        return f"{value:.{places}f}"
    return str(value)


templates.env.filters["num"] = _num


def _session(request):
    """The staff session (the director's login; a scorer role of its own is not there yet), or None."""
    return request.app.state.auth.session(request)


def _collector(request):
    return request.app.state.collector


def _boards(standings):
    return sorted({b for sess in list(standings.sessions.values()) for b in list(sess.travellers)})


def _groups(ranking):
    """The ranking split per field: [(title, rows)], a Mitchell's NS and EW apart, sections apart."""
    groups, sections = {}, {r["section"] for r in ranking}
    for r in ranking:
        title = " ".join(x for x in (f"Section {r['section']}" if len(sections) > 1 else "",
                                     {"NS": "North-South", "EW": "East-West"}.get(r["direction"], "")) if x)
        groups.setdefault(title or "Ranking", []).append(r)
    return list(groups.items())


def _context(request):
    collector = _collector(request)
    st = collector.standings
    publication = director.fold(collector.store.reader()).publication(collector.clock())
    boards = _boards(st)
    return {"method": st.method, "imps": st.method not in director.MP_METHODS,
            "groups": _groups(st.ranking()), "problems": list(st.problems),
            "travellers": [(b, st.traveller(b)) for b in boards], "publication": publication,
            "exports": EXPORTS}


def _staff_page(request, name, extra=None):
    session = _session(request)
    if session is None:
        return RedirectResponse("/login", status_code=303)
    ctx = dict(_context(request), csrf=session["csrf"], **(extra or {}))
    return templates.TemplateResponse(request, name, ctx)


@router.get("/scorer", response_class=HTMLResponse)
def scorer_page(request: Request):
    return _staff_page(request, "scorer.html", {"flash": request.query_params.get("published", "")})


@router.get("/scorer/print", response_class=HTMLResponse)
def scorer_print(request: Request):
    return _staff_page(request, "scorer_print.html")


@router.get("/scorer/pairs/{direction}/{pair}", response_class=HTMLResponse)
def score_card(request: Request, direction: str, pair: str, section: str | None = None):
    session = _session(request)
    if session is None:
        return RedirectResponse("/login", status_code=303)
    direction = direction.upper()
    if direction not in ("NS", "EW", "-"):
        return Response("direction: NS, EW or - (a Howell)", status_code=404)
    st = _collector(request).standings
    entry = [r for r in st.ranking() if str(r["pair"]) == pair and (r["direction"] or "-") == direction
             and (section is None or r["section"] == section)]
    if not entry:
        return Response(f"no pair {direction} {pair} in the ranking", status_code=404)
    entry = entry[0]
    rows = []
    for board in _boards(st):
        for r in st.traveller(board):
            if r["section"] != entry["section"]:
                continue
            side = ("NS" if str(r["ns"]) == pair and direction in ("NS", "-") else
                    "EW" if str(r["ew"]) == pair and direction in ("EW", "-") else None)
            if side is None:
                continue
            mine, theirs = side.lower(), "ew" if side == "NS" else "ns"
            score = r["score_ns"] if side == "NS" or r["score_ns"] is None else -r["score_ns"]
            rows.append({"board": board, "table": r["table"], "side": side, "opponents": r[theirs],
                         "contract": r["contract"], "declarer": r["declarer"], "tricks": r["tricks"],
                         "adjusted": r["adjusted"], "score": score, "mp": r[f"mp_{mine}"], "top": r["top"],
                         "pct": r[f"pct_{mine}"], "imp": r[f"imp_{mine}"]})
    return templates.TemplateResponse(request, "scorer_pair.html", {
        "entry": entry, "rows": rows, "direction": direction, "pair": pair, "csrf": session["csrf"],
        "imps": st.method not in director.MP_METHODS, "method": st.method})


@router.post("/scorer/publish")
async def publish(request: Request):
    """Publish the results through the director's publication (director.publish): the correction period starts."""
    session = _session(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return Response("Forbidden: no session, or a form without its CSRF token.", status_code=403)
    raw = str(form.get("minutes", "")).strip()
    try:
        minutes = int(raw) if raw else None
    except ValueError:
        return Response(f"minutes: a whole number, not {raw!r}", status_code=400)
    collector = _collector(request)
    at = collector.clock()
    body = {"minutes": minutes, "by": "scorer"}
    try:
        collector.store.write(lambda conn: director.publish(conn, setup_mod.load(conn), body, at))
    except director.ActionError as e:
        return Response(str(e), status_code=e.status)
    except StoreError as e:
        return Response(str(e), status_code=503)
    collector.standings.load(collector.store.reader())
    return RedirectResponse("/scorer?published=1", status_code=303)


@router.get("/results", response_class=HTMLResponse)
def public_results(request: Request):
    """Read-only; nothing is shown before the results are published."""
    collector = _collector(request)
    publication = director.fold(collector.store.reader()).publication(collector.clock())
    ctx = {"publication": publication, "published": publication["published_at"] is not None}
    if ctx["published"]:
        ctx.update(_context(request))
    return templates.TemplateResponse(request, "results.html", ctx)
