"""The hub: the service a simultaneous event's organiser runs (docs/hub.md).

Club collectors upload each confirmed result, signed with their club's secret; clubs without bidwire upload a
USEBIO file. The hub keeps the sim in PostgreSQL, scores the whole field on every read of a changed field, and
shows the combined results only after the release time. Any number of stateless web workers serve it against the
one database.

    localpg.py     a throwaway PostgreSQL cluster (tests, make hub, make demo-sim)
    db.py          the connection pool and the numbered SQL migrations run at start
    inputs.py      the bounded types every request is parsed into
    storage.py     the SQL: sims, clubs, uploads, results, the audit log
    field.py       the combined scoring of the field
    app.py         the web app (organiser API and pages, club uploads, public pages)
    serve.py       `bidwire hub`: migrations, then the workers
"""
