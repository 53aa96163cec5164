"""The scorer's pages and the public results (issue 5, items 2 and 3): server-rendered from the collector's own
standings, director actions and exports; nothing is scored here.

- /scorer (staff session: the scorer's or the director's login): travellers per board, the ranking, publication
  (POST /scorer/publish with the session's CSRF token: `director.publish`, the correction period of Law 79 C),
  corrections (POST /scorer/correct: `director.adjust`, an assigned or artificial score at one table, `by` the
  logged-in role; after the period refused with its 409 reason unless `override` is ticked), the audit log of
  every decision, the download links (the JSON API's exports) and the printable page /scorer/print;
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
from bidwire_host.dashboard import queries
from bidwire_host.dashboard.auth import form_refused, same_token

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
    """The staff session (the scorer's or the director's login), or None."""
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


def _staff_context(request, session):
    return dict(_context(request), csrf=session["csrf"], role=session["role"],
                audit=queries.audit(_collector(request).store.reader()))


def _staff_page(request, name, extra=None):
    session = _session(request)
    if session is None:
        return RedirectResponse("/login", status_code=303)
    ctx = dict(_staff_context(request, session), **(extra or {}))
    return templates.TemplateResponse(request, name, ctx)


def _scorer(request, session, error="", status=None, form=None):
    """The scorer's page; with a refused correction: its reason, the form as it was, and the HTTP status."""
    q = request.query_params
    ctx = dict(_staff_context(request, session), flash=q.get("published", ""), corrected=q.get("corrected", ""),
               error=error, status=status, form=form or {})
    return templates.TemplateResponse(request, "scorer.html", ctx, status_code=status or 200)


@router.get("/scorer", response_class=HTMLResponse)
def scorer_page(request: Request):
    session = _session(request)
    if session is None:
        return RedirectResponse("/login", status_code=303)
    return _scorer(request, session)


@router.post("/scorer/correct")
async def correct(request: Request):
    """A correction within the correction period (Law 79 C): an assigned or artificial score for one board at one
    table (director.adjust), recorded `by` the logged-in role. After the period: 409 with the reason, unless the
    form's override is ticked (then recorded as post-period)."""
    from bidwire_host.dashboard.views import adjust_body
    session = _session(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return form_refused(request)
    collector = _collector(request)
    at = collector.clock()
    try:
        body = adjust_body(form, session["role"])
        collector.store.write(lambda conn: director.adjust(conn, setup_mod.load(conn), body, at))
    except director.ActionError as e:
        return _scorer(request, session, str(e), e.status, dict(form))
    except StoreError as e:
        return _scorer(request, session, str(e), 503, dict(form))
    collector.standings.load(collector.store.reader())
    return RedirectResponse("/scorer?corrected=1#audit-h", status_code=303)


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
        return form_refused(request)
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
