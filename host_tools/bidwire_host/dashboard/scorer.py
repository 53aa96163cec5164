"""The scorer's pages and the public results (issue 5, items 2 and 3): server-rendered from the collector's own
standings, director actions and exports; nothing is scored here.

- /scorer (staff session: the scorer's or the director's login): travellers per board, the ranking, publication (POST
  /scorer/publish with the session's CSRF token: `decisions.publication.publish`, the correction period of Law 79 C),
  corrections (POST /scorer/correct: `decisions.results.correct`, a result's contract, declarer, tricks, lead or pair
  numbers as they really were, scored again by Law 77, `by` the logged-in role; after the period refused with its 409
  reason unless `override` is ticked; assigned and artificial scores are the director's, on /director), the audit log
  of every decision, the download links (the JSON API's exports) and the printable page /scorer/print. Every change
  goes through the collector service; every form carries an idempotency key;
- /scorer/pairs/{direction}/{pair}: a pair's score card (direction NS, EW, or `-` in a Howell or a team match);
- /results (no login): the event, its sections and movements, the ranking with the players' names and the
  travellers once the results are published, "not published yet" before; /results/boards/{board} a board's
  frequency traveller with its hand diagram and double-dummy analysis; /results/pairs/{direction}/{pair} a pair's
  score card. Times are the collector's local time, as people read them.
"""
import secrets
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape
from starlette.concurrency import run_in_threadpool

from bidwire.core.board import VUL_NAMES, dealer, vulnerability
from bidwire.core.calls import seat_name
from bidwire_host.auth import form_refused, same_token
from bidwire_host.collector import across_field, export, hands, individual_ranking, roster, team_events, withheld
from bidwire_host.collector.decisions.journal import MP_METHODS, ActionError, fold
from bidwire_host.collector.deps import Service
from bidwire_host.collector.service import Refused
from bidwire_host.dashboard import clock, queries
from bidwire_host.dashboard.queries import call_text, result_text
from bidwire_host.event.model import EventError

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
EXPORTS = (("pbn", "PBN"), ("usebio", "USEBIO XML"), ("csv", "CSV"), ("lin", "LIN (a file per board)"))


def _num(value, places=None):
    """A score for a cell: blank when there is none; percentages with two decimals."""
    if value is None:
        return ""
    if places is not None:
        return f"{value:.{places}f}"
    return str(value)


MINUS = "\u2212"  # a real minus sign: "−2" reads as two down, not as a hyphen
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
VUL_TEXT = {"None": "nobody vulnerable", "NS": "NS vulnerable", "EW": "EW vulnerable", "Both": "both vulnerable"}


def when(iso, tz=None):
    """`<time datetime=ISO>Tue 1 Dec 2026, 20:14</time>`: a stored instant in the club's time zone (clock.py)."""
    return clock.when_html(iso, tz or clock.host_zone())


def lead_text(lead):
    """The opening lead as stored (a suit, or a card such as `SK`) with the suit's symbol, red for hearts and
    diamonds."""
    if not lead:
        return ""
    suit, rest = str(lead)[0].upper(), str(lead)[1:]
    if suit not in SUITS:
        return lead
    colour = ' class="red"' if suit in "HD" else ""
    return Markup(f'<span{colour}>{SUITS[suit]}</span>{escape(rest)}')


def pair_names(collector):
    """{(section, line, number): "Ann Smith & Bob Jones"}: who sits as each pair of the session (a team's name in a
    team match): the effective players (collector/roster.py, the event's with the director's fixes). The one place
    the pages take players' names from."""
    setup = collector.standings.setup
    found = roster.by_line(collector.store.reader(), setup)
    teams = setup is not None and setup.method == "teams"
    out = {k: (" & ".join(p.name for p in pl if p.name) if pl and not teams else "") or said
           for k, (said, pl) in found.items()}
    return {k: text for k, text in out.items() if text}


def name_of(names, section, line, number):
    """The players' names of pair `number` sitting `line` (NS/EW) in `section`; a Howell's pair (no line) is under
    both lines (roster.by_line)."""
    return names.get((section, line or "NS", str(number))) or ""


def _movement_text(sec):
    plan = sec.movement_plan()
    if sec.movement.type in ("round-robin", "swiss-teams"):
        kind = "Teams round robin" if sec.movement.type == "round-robin" else "Swiss teams"
        return f"{kind}, {len(sec.teams)} teams, {plan.full_rounds // 2} matches, {len(plan.boards())} boards"
    kind = "Team match" if plan.kind == "teams" else plan.kind.capitalize().replace("mitchell", "Mitchell")
    return f"{kind}, {plan.tables} tables, {len(plan.boards())} boards"


def event_head(setup):
    """The event as the pages head it: name, session, date, and each section with its movement."""
    if setup is None:
        return None
    try:
        s = setup.event.session(setup.session)
    except EventError:
        return None
    return {"name": setup.event.name, "session": s.name, "date": s.date,
            "sections": [(sec.name, _movement_text(sec)) for sec in s.sections]}


templates.env.filters.update(num=_num, lead=lead_text)
clock.install(templates.env)
templates.env.globals["name_of"] = name_of


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


LOG_WORDS = {"cancelled": "cancelled", "accepted": "accepted", "deemed_pass": "taken as a pass",
             "substituted_pass": "replaced by a pass"}


def played_auctions(conn, st, tempo=False, board=None):
    """{(section, table, board): {"calls": [{"seat", "text", "alert", "tempo"}], "marks": [what was irregular, in
    words]}} of every row on the travellers with a unit's auction: its calls as they stand, and the calls the Laws
    cancelled, accepted or replaced (the auction's log), each with its law. `tempo`: each call's thinking time too
    (the scorer's; the public pages leave it out). `board`: that board's rows alone."""
    log = {}
    rows = [(k, v) for k, v in list(st.source.items()) if board is None or k[2] == board]
    found = export.auctions(conn, [v for _, v in rows], log)
    out = {}
    for key, src in rows:
        calls = found.get((src.get("unit"), src.get("seq")))
        if not calls:
            continue
        irregular = {(x.get("seat"), x.get("call")) for x in log.get((src["unit"], src["seq"]), [])
                     if x.get("what") == "accepted"}
        out[key] = {"calls": [{"seat": c.seat, "text": call_text(c.call) + ("!" if c.alert else ""),
                               "irregular": (c.seat, c.call) in irregular,
                               "tempo": f"{c.tempo // 10}.{c.tempo % 10}s" if tempo and c.tempo is not None else None}
                              for c in calls],
                    "marks": [f"{x.get('seat')} {call_text(str(x.get('call')))} "
                              f"{LOG_WORDS.get(x.get('what'), str(x.get('what')))} (Law {x.get('law')})"
                              for x in log.get((src["unit"], src["seq"]), [])]}
    return out


def traveller(st, board, played=None):
    """A board's traveller rows with what players read on it: the NS and the EW score apart (the side that scored
    it), the result against the contract (=, +1, −2), the opening lead, and the auction (`played`:
    played_auctions)."""
    rows = st.traveller(board)
    for r in rows:
        src = st.source.get((r["section"], r["table"], board)) or {}
        score = r["score_ns"]
        r.update(result="" if r["adjusted"] else result_text(r["contract"], r["tricks"]),
                 lead=src.get("lead") if not r["adjusted"] else None,
                 ns_score=score if score is not None and score >= 0 else None,
                 ew_score=-score if score is not None and score <= 0 else None,
                 auction=None if r["adjusted"] else (played or {}).get((r["section"], r["table"], board)))
    return rows


def _context(request, public=False):
    """What the scorer's and the public pages show; the public ones leave out every board withheld now (its deal,
    frequencies and results: withheld.py), and say which are and why."""
    collector = _collector(request)
    st = collector.standings
    publication = fold(collector.store.reader()).publication(collector.clock())
    held_back = withheld.boards(collector) if public else {}
    boards = [b for b in _boards(st) if b not in held_back]
    played = played_auctions(collector.store.reader(), st, tempo=not public)
    return {"method": st.method, "imps": st.method not in MP_METHODS,
            "groups": _groups(st.ranking()), "problems": list(st.problems),
            "travellers": [(b, traveller(st, b, played)) for b in boards], "publication": publication,
            "methods": {b: st.board_method(b) for b in boards},
            "exports": EXPORTS, "hands": {b: h for b, h in hands.boards(collector.store.reader()).items()
                                          if b not in held_back},
            "withheld": sorted(held_back.items()), "names": pair_names(collector), "event": event_head(st.setup),
            "tz": clock.zone(st.setup), "teams": teams_views(collector, public),
            "field": across_field.view(across_field.field(st.setup, st, collector.store.reader()), held_back),
            "individuals": individual_ranking.view(st)}


def teams_views(collector, public=False):
    """Each teams event section's matches, standings and draw (collector/team_events.view)."""
    s = collector.standings.setup
    if s is None:
        return []
    results = collector.standings.results()
    return [team_events.view(sec, [r for name, r in results if name == sec.name], public=public)
            for sec in s.event.session(s.session).sections if team_events.is_event(sec)]


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
    """(kind, body) from the scorer's form: decisions.results.correct of the unit's result on the traveller at
    section/table/board (blank fields stay as they are); with no unit's result there (a dead unit, a result entered
    before) and the form's "new" ticked, decisions.results.enter of the result as the form gives it, else a 404."""
    sections = sorted(standings.sessions)
    section = _text(form, "section") or (sections[0] if len(sections) == 1 else None)
    try:
        table, board = int(str(form.get("table") or "")), int(str(form.get("board") or ""))
    except ValueError:
        raise ActionError("table and board: whole numbers") from None
    tricks = _text(form, "tricks")
    try:
        tricks = None if tricks is None else int(tricks)
    except ValueError:
        raise ActionError(f"tricks: the tricks declarer took, 0-13, not {tricks!r}") from None
    body = {"contract": _text(form, "contract"), "declarer": (_text(form, "declarer") or "").upper() or None,
            "tricks": tricks, "lead": _text(form, "lead"), "ns": _text(form, "ns"), "ew": _text(form, "ew"),
            "reason": str(form.get("reason") or "")[:500], "by": by, "override": form.get("override") == "on"}
    row = standings.source.get((section, table, board))
    if row is None or row.get("unit") is None:
        if form.get("new") == "on":  # asked for: a result no unit sent, from the paper traveller
            return "enter", dict(body, section=section, table=table, board=board)
        raise ActionError(f"no result from a unit on the traveller of board {board} at "
                          f"{'section ' + section + ' ' if section else ''}table {table}: tick \"enter it as a "
                          "new result\" to record one from the paper traveller", 404)
    return "correct", dict(body, unit=row["unit"], seq=row["seq"])


@router.post("/scorer/correct")
async def correct(request: Request, service: Service):
    """A correction (Law 79 C): a result's contract, declarer, tricks, lead or pairs as they really were
    (decisions.results.correct), recorded `by` the logged-in role. After the period: 409 with the reason, unless the
    form's override is ticked (then recorded as post-period)."""
    session = _session(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return form_refused(request)
    service = service
    try:
        kind, body = correction_body(service.standings, form, session["role"])
        await service.decide(kind, body, str(form.get("idem") or "") or None, role=session["role"])
    except ActionError as e:
        return await run_in_threadpool(_scorer, request, session, str(e), e.status, dict(form))
    except Refused as e:
        return await run_in_threadpool(_scorer, request, session, e.reason, e.status, dict(form))
    return RedirectResponse("/scorer?corrected=1#audit-h", status_code=303)


@router.get("/scorer/print", response_class=HTMLResponse)
def scorer_print(request: Request):
    return _staff_page(request, "scorer_print.html")


def score_card(st, direction, pair, section=None):
    """(ranking entry, rows) of a pair's score card: each board it played, the opponents with the line they sat,
    its score, matchpoints (or IMPs); (None, why) for a direction or pair not in the ranking."""
    direction = direction.upper()
    if direction not in ("NS", "EW", "-"):
        return None, "direction: NS, EW or - (a Howell)"
    entry = [r for r in st.ranking() if str(r["pair"]) == pair and (r["direction"] or "-") == direction
             and (section is None or r["section"] == section)]
    if not entry:
        return None, f"no pair {direction} {pair} in the ranking"
    entry, rows = entry[0], []
    for board in _boards(st):
        for r in traveller(st, board):
            if r["section"] != entry["section"]:
                continue
            side = ("NS" if str(r["ns"]) == pair and direction in ("NS", "-") else
                    "EW" if str(r["ew"]) == pair and direction in ("EW", "-") else None)
            if side is None:
                continue
            mine, theirs = side.lower(), "ew" if side == "NS" else "ns"
            score = r["score_ns"] if side == "NS" or r["score_ns"] is None else -r["score_ns"]
            rows.append({"board": board, "table": r["table"], "side": side, "opponents": r[theirs],
                         "opponents_line": theirs.upper(), "contract": r["contract"], "declarer": r["declarer"],
                         "tricks": r["tricks"], "result": r["result"], "lead": r["lead"],
                         "adjusted": r["adjusted"], "corrected": r["corrected"], "score": score,
                         "mp": r[f"mp_{mine}"], "top": r["top"],
                         "pct": r[f"pct_{mine}"], "imp": r[f"imp_{mine}"]})
    return entry, rows


def _card_page(request, direction, pair, section, extra):
    collector = _collector(request)
    st = collector.standings
    entry, rows = score_card(st, direction, pair, section)
    if entry is None:
        return Response(rows, status_code=404)
    if extra.get("public"):
        held_back = withheld.boards(collector)
        rows = [r for r in rows if r["board"] not in held_back]
    return templates.TemplateResponse(request, "scorer_pair.html", dict(extra, **{
        "entry": entry, "rows": rows, "direction": direction.upper(), "pair": pair,
        "imps": st.method not in MP_METHODS, "method": st.method, "names": pair_names(collector),
        "event": event_head(st.setup), "tz": clock.zone(st.setup)}))


@router.get("/scorer/pairs/{direction}/{pair}", response_class=HTMLResponse)
def scorer_card(request: Request, direction: str, pair: str, section: str | None = None):
    session = _session(request)
    if session is None:
        return RedirectResponse("/login", status_code=303)
    return _card_page(request, direction, pair, section, {"csrf": session["csrf"], "public": False})


@router.post("/scorer/publish")
async def publish(request: Request, service: Service):
    """Publish the results through the director's publication (decisions.publication.publish): the correction period
    starts."""
    session = _session(request)
    form = await request.form()
    if session is None or not same_token(form.get("csrf"), session["csrf"]):
        return form_refused(request)
    raw = str(form.get("minutes", "")).strip()
    try:
        minutes = int(raw) if raw else None
    except ValueError:
        return Response(f"minutes: a whole number, not {raw!r}", status_code=400)
    body = {"minutes": minutes, "by": session["role"], "override": form.get("override") == "on"}
    try:
        await service.decide("publish", body, str(form.get("idem") or "") or None, role=session["role"])
    except Refused as e:
        return Response(e.reason, status_code=e.status)
    return RedirectResponse("/scorer?published=1", status_code=303)


def _publication(request):
    collector = _collector(request)
    return fold(collector.store.reader()).publication(collector.clock())


def _provisional(request):
    """Whether the public pages show the standings so far before publication: the event's evening.provisional,
    or a barometer (its point: each round's boards and the standings shown as soon as every table has played
    them; the boards still in play are withheld as always)."""
    s = _collector(request).standings.setup
    return s is not None and (s.event.night().provisional or any(
        sec.movement.type == "barometer" for sec in s.event.session(s.session).sections))


def _hidden(request):
    """Whether the public pages show nothing yet: not published, and the club shows no provisional standings."""
    return _publication(request)["published_at"] is None and not _provisional(request)


def _not_published(request):
    """What every public page says before publication (Law 79 C: nothing is official yet), with a 404."""
    return templates.TemplateResponse(request, "results.html", {"published": False}, status_code=404)


@router.get("/results", response_class=HTMLResponse)
def public_results(request: Request):
    """Read-only; nothing is shown before the results are published."""
    publication = _publication(request)
    ctx = {"publication": publication, "published": publication["published_at"] is not None}
    ctx["provisional"] = not ctx["published"] and _provisional(request)
    if ctx["published"] or ctx["provisional"]:
        ctx.update(_context(request, public=True))
    return templates.TemplateResponse(request, "results.html", ctx)


@router.get("/results/boards/{board}", response_class=HTMLResponse)
def public_board(request: Request, service: Service, board: int):
    """A board's frequency traveller with its hand diagram, double-dummy table and par, once published."""
    if _hidden(request):
        return _not_published(request)
    collector = service
    st = collector.standings
    boards = _boards(st)
    held_back = withheld.boards(collector)
    if board in held_back:
        return Response(f"board {board} is not public yet: {held_back[board]}", status_code=404)
    boards = [b for b in boards if b not in held_back]
    if board not in boards:
        return Response(f"no results for board {board}", status_code=404)
    at = boards.index(board)
    return templates.TemplateResponse(request, "results_board.html", {
        "board": board, "rows": traveller(st, board, played_auctions(collector.store.reader(), st, board=board)),
        "hand": hands.boards(collector.store.reader()).get(board),
        "dealer": seat_name(dealer(board)), "vul": VUL_TEXT[VUL_NAMES[vulnerability(board)]],
        "previous": boards[at - 1] if at else None, "next": boards[at + 1] if at + 1 < len(boards) else None,
        "imps": st.method not in MP_METHODS, "names": pair_names(collector), "event": event_head(st.setup),
        "tz": clock.zone(st.setup), "method": st.board_method(board)})


@router.get("/results/pairs/{direction}/{pair}", response_class=HTMLResponse)
def public_card(request: Request, direction: str, pair: str, section: str | None = None):
    """A pair's personal score card, for the players, once published."""
    if _hidden(request):
        return _not_published(request)
    return _card_page(request, direction, pair, section, {"public": True})
