"""The "obvious" engine, as a baseline: calls kept as (seat, text) tuples, legality recomputed with string
operations on every call. It checks less than bidwire.core.auction (turn, Laws 18/19, end of auction;
no input log, no rectification) and is still the bigger allocator.
"""


def _rank(text):
    return int(text[0]) * 5 + "CDHSN".index(text[1])


class NaiveAuction:
    def __init__(self, dealer):
        self.dealer = dealer
        self.calls = []
        self.ended = False

    def _last_bid(self):
        for i in range(len(self.calls) - 1, -1, -1):
            if self.calls[i][1] not in ("P", "X", "XX"):
                return i
        return -1

    def call(self, seat, text):
        if self.ended:
            return "after close"
        if seat != (self.dealer + len(self.calls)) % 4:
            return "out of rotation"
        i = self._last_bid()
        since = [c for c in self.calls[i + 1:] if c[1] != "P"]
        if text == "X":
            if i < 0 or since or (self.calls[i][0] - seat) % 2 == 0:
                return "inadmissible double"
        elif text == "XX":
            if [c[1] for c in since] != ["X"] or (since[0][0] - seat) % 2 == 0:
                return "inadmissible redouble"
        elif text != "P" and i >= 0 and _rank(text) <= _rank(self.calls[i][1]):
            return "insufficient"
        self.calls.append((seat, text))
        texts = [c[1] for c in self.calls]
        if len(texts) >= 4 and texts[-3:] == ["P", "P", "P"]:  # three passes after a bid, or four
            self.ended = True
        return "legal"
