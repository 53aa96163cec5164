"""The live field of one sim in one worker (state.Hub keeps one): a Tally (hub/tally.py) that takes only the
results set since the field it holds.

Every change of a sim's results is numbered (the sim's `changes`, records._begin) in the order the changes
commit, and each result carries the number of the change that last set it. A worker reads the sim's number
first, then the results numbered above the one it has seen, and merges them into their boards; all changes up to
the number read have committed, so none is missed, and a later one read early is merged again next time, to
the same effect. A board some change deleted results from (a club's USEBIO file that no longer holds a
result) is read again whole. The pairs' sums and the ranking are then made from every board at the new E.
tests/hub/test_live_field.py holds the figures to field.score's, worked from all the rows at once.
"""
from bidwire_host.hub import field, records
from bidwire_host.hub.tally import Tally


class LiveField:
    def __init__(self, sim):
        self.method, self.winners = sim["scoring"], sim["winners"]
        self.seen = None  # the number of the last change this worker has read (records._begin)
        self.tally = Tally(self.method)

    def fits(self, sim):
        return (self.method, self.winners) == (sim["scoring"], sim["winners"])

    def refresh(self, conn, sim):
        """Take the results set since the last refresh; the field as of now."""
        seen = conn.execute("SELECT changes FROM sims WHERE id = %s", (sim["id"],)).fetchone()[0]
        if self.seen is None:  # this worker's first read: every result
            fresh = {}
            for r in records.results(conn, sim["id"]):
                fresh.setdefault(r["board"], []).append(r)
            self.update(fresh)
        else:
            whole = [b for b, (_, rebuilt) in records.board_changes(conn, sim["id"]).items() if rebuilt > self.seen]
            if whole:
                fresh = {b: [] for b in whole}
                for r in records.results(conn, sim["id"], whole):
                    fresh[r["board"]].append(r)
                self.update(fresh)
            changed = {}
            for r in records.results_since(conn, sim["id"], self.seen):
                if r["board"] not in whole:
                    changed.setdefault(r["board"], []).append(r)
            for b, rows in changed.items():
                self.tally.merge(b, rows)
        self.seen = seen
        return self.field()

    def update(self, boards):
        """Put each board's results ({board: rows}, [] for none left) in place of what the tally held for it."""
        for b, rows in boards.items():
            self.tally.put(b, rows)

    def field(self):
        return field.of_tally(self.tally, self.winners)
