"""The sync client (docs/architecture.md §4, protocol v1): batches of unacknowledged events, signed with
HMAC-SHA256, posted to the collector; its acknowledgement trims the outbox and its commands are applied in
order. Exponential backoff with jitter while the collector cannot be reached; a heartbeat otherwise.

Between syncs the client waits for the heartbeat or for wake() (the store calls it when it has events to send),
whichever comes first: a flag looked at every _WAKE_MS (50 ms; asyncio's ThreadSafeFlag with wait_for_ms put the
frozen heap once synced 2.6 KB higher, docs/benchmarks.md), so new events leave within 50 ms, and the heartbeat
comes every heartbeat_ms or a little more.
"""
import json
import random
from binascii import unhexlify

import asyncio

from bidwire.core.compat import const
import bidwire.unit.hmac256 as hmac256  # full names: `from bidwire.unit import http` makes a qstr at run time
import bidwire.unit.http as http

PATH = "/api/v1/sync"
_WAKE_MS = const(50)


class Sync:
    base_ms = 250  # first retry delay; doubles per failure up to max_ms, then jittered to 50-100 %
    max_ms = 30000
    batch_bytes = 2048
    timeout_ms = 5000

    def __init__(self, store, cfg, network, changed=None):
        self.store = store
        self.network = network
        self.changed = changed
        self.unit = cfg["unit"]
        hostport = cfg["collector"][7:].split("/", 1)[0]  # 'http://host:port/...' (config.py checked the scheme)
        host, _, port = hostport.rpartition(":")
        self.host, self.port = (host, int(port)) if host else (hostport, 80)  # port 80 when not given
        self.signer = hmac256.Signer(unhexlify(cfg["secret"]))
        self.heartbeat_ms = cfg["heartbeat_ms"]
        self.woken = False
        store.notify = self.wake
        self.failures = 0
        self.ok = True
        self.error = ""
        self.reported = -1  # the cmd_ack the collector last heard
        self.posts = 0
        self._task = None

    def start(self):
        if self._task is None:
            self._task = asyncio.create_task(self.run())

    def deinit(self):
        """Stop syncing: the task is cancelled, and a POST under way with it, which closes its socket (http.py)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def wake(self):
        """Sync now, not at the next heartbeat (within _WAKE_MS)."""
        self.woken = True

    def body(self):
        events = self.store.batch(self.batch_bytes)
        # beat: this boot's sync count, so that the collector tells a new sync from a replayed one (liveness)
        head = '{"unit": "' + self.unit + '", "boot": ' + str(self.store.boot) + ', "beat": ' + str(self.posts + 1) + \
            ', "cmd_ack": ' + str(self.store.app.cmd_ack) + ', "event": "' + self.store.app.event + '", "events": ['
        # Joined once: `head + b", ".join(events) + tail` would hold two more copies of the batch at its peak.
        parts = [head.encode()]
        for event in events:
            if len(parts) > 1:
                parts.append(b", ")
            parts.append(event)
        parts.append(b"]}")
        return b"".join(parts), len(events)

    async def once(self):
        """One exchange with the collector; returns the number of events it carried."""
        body, n = self.body()
        cmd_ack = self.store.app.cmd_ack
        self.posts += 1
        status, reply = await http.post(self.host, self.port, PATH, body,
                                        (("X-Bidwire-Signature", self.signer.hex(body)),), self.timeout_ms)
        body = None  # sent: its 2 KB are free for what the reply brings (store.ack may write a snapshot)
        if status != 200:
            raise ValueError(f"collector answered {status}: {bytes(reply[:80])}")
        r = json.loads(reply)
        reply = None
        ack, commands = r.get("ack"), r.get("commands") or []
        if not isinstance(ack, int) or not isinstance(commands, list):
            raise ValueError("collector reply has no ack / commands")
        self.reported = cmd_ack
        self.store.ack(ack)
        applied = False
        for cmd in commands:
            if isinstance(cmd, dict) and self.store.command(cmd):
                applied = True
        if applied or n:
            if self.changed is not None:
                self.changed()
        return n

    def pending(self):
        return self.store.backlog() > 0 or self.reported != self.store.app.cmd_ack

    async def run(self):
        while True:
            if self.network is not None and not self.network.connected():  # None: the host's network (hal.py)
                await asyncio.sleep_ms(500)
                continue
            try:
                await self.once()
                self.failures = 0
                self.ok, self.error = True, ""
            except (OSError, ValueError, KeyError, TypeError, MemoryError) as e:  # ValueError: a reply out of protocol
                # MemoryError too: a heap too fragmented for this batch now may not be at the next try
                self.failures += 1
                self.ok, self.error = False, str(e)
                if self.changed is not None:
                    self.changed()
            if self.failures:  # unreachable: back off, whatever happens at the table meanwhile
                delay = min(self.max_ms, self.base_ms << min(self.failures - 1, 10))
                await asyncio.sleep_ms(delay // 2 + random.getrandbits(16) % (delay // 2 + 1))
                continue
            if self.pending():
                continue
            self.woken = False
            waited = 0
            while not self.woken and waited < self.heartbeat_ms:
                await asyncio.sleep_ms(_WAKE_MS)
                waited += _WAKE_MS
