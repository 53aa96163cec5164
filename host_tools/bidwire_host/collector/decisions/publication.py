"""The publication of the results (docs/collector.md).

* `publish` (Law 79 C): the results are made public now; corrections (adjust, penalty, resolve, correct) are
  accepted until `minutes` (default 30) after the last publication, later only with `override` by a named
  director, and such a row is marked `post_period` (checks.period_check). While tables still have boards to play
  (withheld.to_play) it is refused, unless the director overrides it (`override` and `by`): the override is
  recorded in the row (`early`: the tables and boards still to play then). The public pages and exports withhold
  those boards until they are played (withheld.py).
"""
from bidwire_host.collector import withheld
from bidwire_host.collector.decisions.checks import period_ended
from bidwire_host.collector.decisions.journal import ActionError, fold, insert
from bidwire_host.scoring.ledger import DEFAULT_CORRECTION_MINUTES

MAX_CORRECTION_MINUTES = 366 * 24 * 60  # a longer period is a typo (and its end would overflow the date)


def publish(conn, s, body, at):
    """Record a publication (Law 79 C: the correction period starts, or starts again)."""
    minutes = body.get("minutes")
    minutes = DEFAULT_CORRECTION_MINUTES if minutes is None else minutes
    if not isinstance(minutes, int) or isinstance(minutes, bool) or not 0 <= minutes <= MAX_CORRECTION_MINUTES:
        raise ActionError(f"minutes: a whole number of minutes from 0 to {MAX_CORRECTION_MINUTES} (a year), "
                          f"not {minutes!r}")
    state = fold(conn)
    post = not state.period.is_open(at)
    if post and body.get("role", "director") != "director":
        raise ActionError(f"{period_ended(state)}; only the director can publish again, from the director's "
                          "login", 403)
    out = {"minutes": minutes}
    pending = withheld.to_play(conn, s, state)
    if pending:
        director = body.get("role", "director") == "director"
        if not body.get("override") or not director:
            raise ActionError(f"{len(pending)} results are still to be played ({withheld.describe(pending)}): "
                              "publish once every table has played, or "
                              + ("send it again with \"override\": true and \"by\" to publish now (recorded); "
                                 if director else "ask the director, who alone can publish early; ")
                              + "the public pages withhold those boards until they are played",
                              403 if body.get("override") and not director else 409)
        if not body.get("by"):
            raise ActionError("by: publishing while tables still play needs the director's name")
        out.update(override=True, early=[list(x) for x in sorted(pending, key=lambda x: (str(x[0]), x[1], x[2]))])
    return insert(conn, "publish", out, body.get("by"), at, post)
