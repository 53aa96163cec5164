"""The director's pages in pieces: each table row, each alert and the audit list rendered on their own, with a
short hash of their HTML, so that the page and its event stream (stream.py) can replace just what changed.

Runs in worker threads (the page handlers are plain functions, the stream renders off the event loop).
"""
import hashlib
import hmac
from pathlib import Path

from fastapi.templating import Jinja2Templates

from bidwire_host.collector import event_setup
from bidwire_host.dashboard import clock, queries

templates = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
clock.install(templates.env)


def zone(service):
    """The club's time zone (clock.py) for the pieces rendered outside a page."""
    return clock.zone(event_setup.load(service.store.reader()))


def dom_id(text):
    return "".join(ch if ch.isalnum() else "-" for ch in str(text))


def _piece(html, element_id):
    h = hashlib.sha1(html.encode()).hexdigest()[:12]
    return {"id": element_id, "h": h, "html": html.replace(">", f' data-h="{h}">', 1)}


def rows(service, only=None, drawn=None):
    """The table grid's rows ({"id", "h", "html"}), every unit or `only` those. `drawn` (a stream's {element id:
    the row's data when last rendered}): a row whose data has not changed since is not rendered again, so the
    stream's periodic look at every row renders only the few whose minutes moved."""
    t = templates.get_template("_grid_row.html")
    tz = zone(service)
    out = []
    for u in queries.grid(service, only):
        u["dom"] = dom_id(u["unit"])
        element = "u-" + u["dom"]
        if drawn is not None:
            data = tuple(u.items())
            if drawn.get(element) == data:
                continue
            drawn[element] = data
        out.append(_piece(t.render(u=u, tz=tz), element))
    return out


def alert_pieces(service, session, state="open", page=1):
    """(pieces, total) of one page of the alerts queue; each form's idempotency key is the same for one alert
    and one login (a retry sends the same key; another alert or login another key)."""
    conn = service.store.reader()
    items, total = queries.alerts(conn, queries.cmd_acks(conn), state, page)
    t = templates.get_template("_alert.html")
    tz = zone(service)
    out = []
    for a in items:
        a["idem"] = hmac.new(session["csrf"].encode(), a["key"].encode(), hashlib.sha256).hexdigest()[:32]
        out.append(_piece(t.render(a=a, csrf=session["csrf"], tz=tz), a["id"]))
    return out, total


def audit_html(service):
    return templates.get_template("_audit.html").render(audit=queries.audit(service.store.reader()), tz=zone(service))


def rounds_html(service, session):
    """The rounds panel: each section's round, the boards each table has still to play, the forms that start a
    round and give a table to a unit."""
    return templates.get_template("_rounds.html").render(
        r=queries.rounds(service.store.reader(), service.keyring.units()), csrf=session["csrf"])


def director(service, session, state="open", page=1):
    grid = rows(service)
    alerts, total = alert_pieces(service, session, state, page)
    pages = max(1, -(-total // queries.PAGE))
    ctx = {"round_minutes": queries.ROUND_MINUTES, "idle_minutes": queries.IDLE_MINUTES}
    return {"grid": templates.get_template("_grid.html").render(rows=[r["html"] for r in grid], **ctx),
            "alerts": templates.get_template("_alerts.html").render(items=[a["html"] for a in alerts], state=state,
                                                                   page=page, pages=pages),
            "audit": audit_html(service), "rounds": rounds_html(service, session),
            "open_total": total if state == "open" else None, "state": state}


def live_cards(service, only=None):
    t = templates.get_template("_live_card.html")
    out = []
    for table in queries.live(service):
        if only is not None and table["unit"] not in only:
            continue
        table["dom"] = dom_id(table["unit"])
        out.append(_piece(t.render(t=table), "live-" + dom_id(table["unit"])))
    return out


def live(service):
    cards = live_cards(service)
    return {"live": "".join(c["html"] for c in cards) or
            '<p class="muted" id="live-empty">No table has started a board yet.</p>'}
