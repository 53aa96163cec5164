"""The live field of one sim in one worker (state.Hub keeps one): a Tally (hub/tally.py) whose boards are made
again only when their results change.

Which boards changed comes from the database (records.board_changes, bumped in the transaction of each change),
so a worker reads again only those boards' results; the pairs' sums and the ranking are then made from every
board's terms at the new E, the most-played board's size. tests/hub/test_live_field.py holds the figures to
field.score's, worked from all the rows at once.
"""
from bidwire_host.hub import field, records
from bidwire_host.hub.tally import Tally


class LiveField:
    def __init__(self, sim):
        self.method, self.winners = sim["scoring"], sim["winners"]
        self.versions = {}  # board -> its change counter when read
        self.tally = Tally(self.method)

    def fits(self, sim):
        return (self.method, self.winners) == (sim["scoring"], sim["winners"])

    def refresh(self, conn, sim):
        """Read again the boards that changed since the last refresh; the field as of now."""
        versions = records.board_changes(conn, sim["id"])
        changed = [b for b, v in versions.items() if self.versions.get(b) != v]
        if changed:
            fresh = {b: [] for b in changed}
            for r in records.results(conn, sim["id"], changed):
                fresh[r["board"]].append(r)
            self.update(fresh)
            self.versions.update({b: versions[b] for b in changed})
        return self.field()

    def update(self, boards):
        """Put each board's results ({board: rows}, [] for none left) in place of what the tally held for it."""
        for b, rows in boards.items():
            self.tally.put(b, rows)

    def field(self):
        return field.of_tally(self.tally, self.winners)
