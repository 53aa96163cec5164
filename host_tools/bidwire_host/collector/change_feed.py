"""What the live pages hear: the service's after-commit step publishes each change here, and every open event
stream (dashboard/stream.py) gets it at once — no polling.

A change is a small dict saying what moved: `units` (the units whose rows changed), `alerts` (the queue
changed), `decisions` (the audit list changed), `calls` (a live auction moved), `event`. A subscriber that falls
behind (its queue full) gets one `{"resync": True}` instead of the changes it missed, and redraws in full.
"""
import asyncio

QUEUE = 256


class ChangeFeed:
    def __init__(self):
        self._subscribers = set()

    def subscribe(self):
        q = asyncio.Queue(QUEUE)
        self._subscribers.add(q)
        return q

    def unsubscribe(self, q):
        self._subscribers.discard(q)

    def publish(self, change):
        """On the event loop, after a commit."""
        for q in list(self._subscribers):
            try:
                q.put_nowait(change)
            except asyncio.QueueFull:
                while not q.empty():
                    q.get_nowait()
                q.put_nowait({"resync": True})

    def __len__(self):
        return len(self._subscribers)
