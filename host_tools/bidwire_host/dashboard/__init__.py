"""The director's dashboard: server-rendered pages (Jinja2) on the collector's app, live over Server-Sent Events.

`mount(app, data_dir, password, scorer_password)` adds /login, /logout, /director and its forms (views.py), the
live event stream /director/events (stream.py) and /scorer and the public /results (scorer.py); queries.py reads
the table grid and the alerts queue from the store, fragments.py renders them piece by piece; the logins, roles
and CSRF tokens are bidwire_host/auth.py's. Every change goes through the collector service.
docs/director.md and docs/scorer.md tell the director and the scorer how to use them.
"""
from bidwire_host.auth import IDLE_MINUTES, SESSION_HOURS, Auth, AuthError, read_password
from bidwire_host.dashboard.scorer import router as scorer_router
from bidwire_host.dashboard.stream import router as stream_router
from bidwire_host.dashboard.views import router


def mount(app, data_dir, password=None, scorer_password=None, session_lifetime_s=SESSION_HOURS * 3600,
          session_idle_s=IDLE_MINUTES * 60):
    """Serve the dashboard on the collector's app; without a password the login page says how to set one.
    `password` is the director's, `scorer_password` the scorer's (optional: the /scorer pages only); a session ends
    `session_lifetime_s` after its login, or once unused for `session_idle_s` (auth.py)."""
    app.state.auth = Auth(data_dir, password, scorer_password, session_lifetime_s, session_idle_s)
    app.include_router(router)
    app.include_router(stream_router)  # /director/events (stream.py)
    app.include_router(scorer_router)  # /scorer, /results (scorer.py)


__all__ = ["mount", "read_password", "AuthError"]
