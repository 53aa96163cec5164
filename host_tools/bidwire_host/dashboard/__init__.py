"""The director's dashboard: server-rendered pages (Jinja2) on the collector's app, live over Server-Sent Events.

`mount(app, data_dir, password, scorer_password)` adds /login, /logout, /director, /director/events and
/director/rulings (views.py); auth.py keeps the password hashes (director, scorer), the signed session cookie
with its role and the CSRF tokens; queries.py reads the table grid and the alerts queue from the store;
scorer.py serves /scorer and the public /results.
docs/director.md and docs/scorer.md tell the director and the scorer how to use them.
"""
from bidwire_host.dashboard.auth import Auth, AuthError, read_password
from bidwire_host.dashboard.scorer import router as scorer_router
from bidwire_host.dashboard.views import router


def mount(app, data_dir, password=None, scorer_password=None):
    """Serve the dashboard on the collector's app; without a password the login page says how to set one.
    `password` is the director's, `scorer_password` the scorer's (optional: the /scorer pages only)."""
    app.state.auth = Auth(data_dir, password, scorer_password)
    app.include_router(router)
    app.include_router(scorer_router)  # /scorer, /results (scorer.py)


__all__ = ["mount", "read_password", "AuthError"]
