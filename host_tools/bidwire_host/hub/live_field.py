"""The live field of one sim in one worker (worker.Worker keeps one): a Tally (scoring/field_tally.py) that takes
only the results set since the field it holds.

Each result carries the id of the transaction that last set it (`results.xact`). A worker reads first the
database's horizon (storage.horizon: the xmin of its snapshot; every transaction below it has finished), then
the results set at or above the horizon it read last time, and merges them into their boards. A result set
below the new horizon is visible to those reads, so none is missed; one at or above it is read, and merged to
the same effect, again next time. Uploads do not wait on each other for this: nothing is counted on one row
for the length of a transaction. A board some change deleted results from (a club's USEBIO file that no longer
holds a result) is read again whole. The pairs' sums and the ranking are then made from every board at the new
E. tests/hub/test_live_field.py holds the figures to field.score's, worked from all the rows at once.

A transaction left open in the database holds the horizon back: the reads then take more results again (each
merged to the same effect), never fewer.
"""
from bidwire_host.hub import storage
from bidwire_host.scoring import combined_field as field
from bidwire_host.scoring.field_tally import Tally


class LiveField:
    def __init__(self, sim):
        self.method, self.winners = sim["scoring"], sim["winners"]
        self.seen = None  # the horizon of the last read (storage.horizon)
        self.tally = Tally(self.method)

    def fits(self, sim):
        return (self.method, self.winners) == (sim["scoring"], sim["winners"])

    def refresh(self, conn, sim):
        """Take the results set since the last refresh; the field as of now."""
        horizon = storage.horizon(conn)
        if self.seen is None:  # this worker's first read: every result
            fresh = {}
            for r in storage.results(conn, sim["id"]):
                fresh.setdefault(r["board"], []).append(r)
            self.update(fresh)
        else:
            whole = storage.rebuilt(conn, sim["id"], self.seen)
            if whole:
                fresh = {b: [] for b in whole}
                for r in storage.results(conn, sim["id"], whole):
                    fresh[r["board"]].append(r)
                self.update(fresh)
            changed = {}
            for r in storage.results_since(conn, sim["id"], self.seen):
                if r["board"] not in whole:
                    changed.setdefault(r["board"], []).append(r)
            for b, rows in changed.items():
                self.tally.merge(b, rows)
        self.seen = horizon
        return self.field()

    def update(self, boards):
        """Put each board's results ({board: rows}, [] for none left) in place of what the tally held for it."""
        for b, rows in boards.items():
            self.tally.put(b, rows)

    def field(self):
        return field.of_tally(self.tally, self.winners)
