"""The scorer's pages and the public results (issue 5, items 2 and 3): server-rendered from the collector's own
standings, director actions and exports; nothing is scored here.

- /scorer (staff session: the scorer's or the director's login): travellers per board, the ranking, publication
  (POST /scorer/publish with the session's CSRF token: `director.publish`, the correction period of Law 79 C),
  corrections (POST /scorer/correct: `director.correct`, a result's contract, declarer, tricks, lead or pair
  numbers as they really were, scored again by Law 77, `by` the logged-in role; after the period refused with
  its 409 reason unless `override` is ticked; assigned and artificial scores are the director's, on /director),
  the audit log of every decision, the download links (the JSON API's exports) and the printable page
  /scorer/print. Every change goes through the collector service; every form carries an idempotency key;
- /scorer/pairs/{direction}/{pair}: a pair's score card (direction NS, EW, or `-` in a Howell or a team match);
- /results (no login): the ranking and the travellers once the results are published, "not published yet" before.
"""
import secrets
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from bidwire_host.auth import form_refused, same_token
from bidwire_host.collector import director, hands, roster
from bidwire_host.collector.service import Refused
from bidwire_host.dashboard import queries

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
    return request.app.state.service


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
            "exports": EXPORTS, "hands": hands.boards(collector.store.reader()), "names": _names(collector)}


def _names(collector):
    """{(section, line, pair): "Name - Name"} for the ranking, traveller and score card cells (roster.py)."""
    return {k: said for k, (said, _) in roster.by_line(collector.store.reader(), collector.standings.setup).items()
            if said}


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
               error=error, status=status, form=form or {}, idem=secrets.token_urlsafe(16))
    return templates.TemplateResponse(request, "scorer.html", ctx, status_code=status or 200)


@router.get("/scorer", response_class=HTMLResponse)
def scorer_page(request: Request):
    session = _session(request)
    if session is None:
        return RedirectResponse("/login", status_code=303)
    return _scorer(request, session)


def _text(form, name):
    return str(form.get(name) or "").strip() or None


def correction_body(standings, form, by):
    """The body of director.correct from the scorer's form: the result on the traveller at section/table/board,
    and what to change (blank fields stay as they are)."""
    sections = sorted(standings.sessions)
    section = _text(form, "section") or (sections[0] if len(sections) == 1 else None)
    try:
        table, board = int(str(form.get("table") or "")), int(str(form.get("board") or ""))
    except ValueError:
        raise director.ActionError("table and board: whole numbers") from None
    row = standings.source.get((section, table, board))
    if row is None or row.get("unit") is None:
        raise director.ActionError(f"no result from a unit on the traveller of board {board} at "
                                   f"{'section ' + section + ' ' if section else ''}table {table}", 404)
    tricks = _text(form, "tricks")
    try:
        tricks = None if tricks is None else int(tricks)
    except ValueError:
        raise director.ActionError(f"tricks: the tricks declarer took, 0-13, not {tricks!r}") from None
    return {"unit": row["unit"], "seq": row["seq"], "contract": _text(form, "contract"),
            "declarer": (_text(form, "declarer") or "").upper() or None, "tricks": tricks, "lead": _text(form, "lead"),
            "ns": _text(form, "ns"), "ew": _text(form, "ew"), "reason": str(form.get("reason") or "")[:500],
            "by": by, "override": form.get("override") == "on"}


@router.post("/scorer/correct")
async def correct(request: Request):
    """A correction (Law 79 C): a result's contract, declarer, tricks, lead or pairs as they really were
    (director.correct), recorded `by` the logged-in role. After the period: 409 with the reason, unless the form's
    override is ticked (then recorded as post-period)."""
    session = _session(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return form_refused(request)
    service = _collector(request)
    try:
        body = correction_body(service.standings, form, session["role"])
        await service.decide("correct", body, str(form.get("idem") or "") or None)
    except director.ActionError as e:
        return await run_in_threadpool(_scorer, request, session, str(e), e.status, dict(form))
    except Refused as e:
        return await run_in_threadpool(_scorer, request, session, e.reason, e.status, dict(form))
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
    names = _names(_collector(request))
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
                         "opponents_names": names.get((entry["section"], theirs.upper(), str(r[theirs])), ""),
                         "contract": r["contract"], "declarer": r["declarer"], "tricks": r["tricks"],
                         "adjusted": r["adjusted"], "score": score, "mp": r[f"mp_{mine}"], "top": r["top"],
                         "pct": r[f"pct_{mine}"], "imp": r[f"imp_{mine}"]})
    return templates.TemplateResponse(request, "scorer_pair.html", {
        "entry": entry, "rows": rows, "direction": direction, "pair": pair, "csrf": session["csrf"],
        "names": names.get((entry["section"], direction if direction != "-" else "NS", pair), ""),
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
    body = {"minutes": minutes, "by": session["role"]}
    try:
        await _collector(request).decide("publish", body, str(form.get("idem") or "") or None)
    except Refused as e:
        return Response(e.reason, status_code=e.status)
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
