"""How the hub shows things: its templates, and the field's exact figures as a reply or a page prints them."""
from pathlib import Path

from fastapi.templating import Jinja2Templates

from bidwire_host.scoring.model import format_number, format_pct

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
TEMPLATES.env.globals["zip"] = zip


def pct(value):
    """A percentage as the pages and the JSON show it: the one rounding, as the files write it (format_pct)."""
    return format_pct(value)


def plain(r):
    """A traveller row for JSON: matchpoints and percentages as numbers rounded to 2 decimals (format_number)."""
    return {k: (format_number(v) if k in ("mp_ns", "mp_ew", "top", "pct_ns", "pct_ew") else v) for k, v in r.items()}


def standing(e):
    p = e["pair"]
    return {"rank": e["rank"], "club": p.club, "session": p.session, "section": p.section, "pair": p.number,
            "direction": p.direction,
            "names": e["names"], "pct": pct(e["pct"]), "mp": format_number(e["mp"]), "top": e["top"],
            "boards": e["boards"], "field": e["field"], "club_rank": e.get("club_rank")}


