"""The director's dashboard: server-rendered pages (Jinja2) on the collector's app, live over Server-Sent Events.

`mount(app, data_dir, password)` adds /login, /logout, /director, /director/events and /director/rulings
(views.py); auth.py keeps the password hash, the signed session cookie and the CSRF tokens; queries.py reads
the table grid and the alerts queue from the store. docs/director.md tells the director how to use it.
"""
from bidwire_host.dashboard.auth import Auth, AuthError, read_password
from bidwire_host.dashboard.views import router


def mount(app, data_dir, password=None):
    """Serve the dashboard on the collector's app; without a password the login page says how to set one."""
    app.state.auth = Auth(data_dir, password)
    app.include_router(router)


__all__ = ["mount", "read_password", "AuthError"]
