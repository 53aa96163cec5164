"""The unit's main loop: keys from the HAL's key source through the store (journal + app) to the display, and
the sync client beside it. main.py builds a `Unit(hal, cfg)` on every board, lets the config go, and `run`s it.
"""
import gc
import time

import asyncio

from bidwire.unit import keys, screens
from bidwire.unit.app import App
from bidwire.unit.journal import Journal
from bidwire.unit.store import Store



class Unit:
    def __init__(self, hal, cfg):
        self.hal = hal  # the config is not kept: what the app, the journal and the sync need is taken from it
        self.app = App(cfg["unit"], cfg["mode"], cfg["td_pin"])
        self.store = Store(Journal(cfg["state_dir"] if hal.storage is None else hal.storage), self.app, hal.clock)
        self.store.on_halt = self.halt  # pyright: ignore[reportAttributeAccessIssue] - None until a runner sets it
        self.queue = keys.KeyQueue()
        self.sync = None
        if cfg["collector"]:
            from bidwire.unit.sync import Sync
            self.sync = Sync(self.store, cfg, hal.network, self.refresh)
        self.rows = None
        self.frames = 0
        self.keys = 0  # presses taken from the key queue this boot
        self.changed = False  # did the last one change anything (and so was journaled)?
        self.measure = None  # (bytes, µs) of the last press when the benchmark asks for them
        self.faults = 0
        self._task = None  # main()'s task, for deinit

    def status(self):
        net = self.hal.network
        s = ("W" if net is None or net.connected() else "-") if self.sync else " "
        if self.sync is not None and not self.sync.ok:
            s = "x"
        s += " q" + str(self.store.backlog())
        bat = self.hal.battery()
        if bat is not None:
            s += " " + str(bat) + "%"
        if self.store.status:
            s = self.store.status
        return s

    def refresh(self):
        rows = screens.lines(self.app, self.status())
        if rows == self.rows:
            return
        before, self.rows = self.rows, None  # None until every changed row is out: a draw cut short redraws all
        self.frames += 1
        screens.draw(self.hal.display, rows, before)
        self.rows = rows
        if self.hal.console is not None:
            self.hal.console(rows)
        if self.hal.leds is not None:
            a = self.app.auction
            self.hal.leds.turn(a.in_turn() if self.app.screen == 2 and not a.p_kind else -1)

    def boot(self):
        net = self.hal.network
        # the firmware version in the hello event (0.4: irregularity identities and settlements, the sync count;
        # 0.5: the tempo of each call)
        self.store.open({"firmware": "bidwire-unit 0.5", "board": self.hal.name, "battery": self.hal.battery(),
                         "rssi": None if net is None else net.rssi()})
        self.refresh()

    def take(self, code):
        """The press `code` from the key queue, with the presses made in the same scan as it (keys.TOGETHER): those
        in the order the app gives (Law 33, App.order), each journaled and shown as a press of its own."""
        queue = self.queue
        group = None  # a press of a scan of its own (the usual case) makes no list
        if queue.together():
            group = [(code // keys.KEYS_PER_SEAT, code % keys.KEYS_PER_SEAT)]
            while queue.together():
                code = queue.get()
                group.append((code // keys.KEYS_PER_SEAT, code % keys.KEYS_PER_SEAT))
            group = self.app.order(group)
        for i in range(len(group) if group else 1):
            if group:
                code = group[i][0] * keys.KEYS_PER_SEAT + group[i][1]
            try:
                self.press(code)
            except Exception as e:  # noqa: BLE001 - a bug or an exhausted heap must not take the table down
                self.fault(e)

    def press(self, code):
        self.keys += 1
        ms = self.hal.clock.ticks_ms()  # the call's tempo (App.key)
        if self.measure is None:
            self.changed = self.store.key(code // keys.KEYS_PER_SEAT, code % keys.KEYS_PER_SEAT, ms)
            self.refresh()
            return
        # `make bench`: bytes allocated and time from the press to the frame on the display (console excluded)
        gc.collect()
        gc.disable()
        console, self.hal.console = self.hal.console, None
        a0, t0 = gc.mem_alloc(), time.ticks_us()
        self.changed = self.store.key(code // keys.KEYS_PER_SEAT, code % keys.KEYS_PER_SEAT, ms)
        self.refresh()
        self.measure = (gc.mem_alloc() - a0, time.ticks_diff(time.ticks_us(), t0))
        gc.enable()
        self.hal.console = console
        if console is not None and self.rows is not None:
            console(self.rows)

    def fault(self, e):
        """The press failed half-way: the store went back to what the journal holds (Store.key); say so on the
        status line. The next press tries again."""
        self.faults += 1
        self.changed = False
        gc.collect()
        self.store.status = "ERR " + type(e).__name__
        self.refresh()

    def halt(self, why):
        """The journal could not be replayed whole (Store.on_halt): the app is not what the flash holds, so the unit
        takes and sends nothing more. The fault screen, then a reset: the boot replays it into a fresh heap. Where
        the board has no reset (the unix port) the process exits with status 3."""
        gc.collect()
        rows = ["FAULT", why[:16], "restarting", "", "", "", "", ""]
        try:
            screens.draw(self.hal.display, rows, self.rows)
            if self.hal.console is not None:
                self.hal.console(rows)
        except Exception:  # noqa: BLE001 - too little heap even for this: reset all the same
            pass
        if self.hal.reset is not None:
            self.hal.reset()
        raise SystemExit(3)

    async def main(self):
        self._task = asyncio.current_task()
        self.boot()
        if self.hal.network is not None:
            self.hal.network.start()
        source = self.hal.keys
        source.start(self.queue)
        attach = getattr(source, "attach", None)
        if attach is not None:
            attach(self)  # the virtual unit's script reader: sync / shot / quit lines
        if self.sync is not None:
            self.sync.start()
        while True:
            self.take(await self.queue.wait())
            if not len(self.queue):
                gc.collect()  # idle point: keep the heap unfragmented between presses


    def deinit(self):
        """Stop the unit: its main loop, the key source, the sync client (closing the socket of a POST under way)
        and the network supervisor are cancelled, and the journal is closed."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        self.hal.keys.deinit()
        if self.sync is not None:
            self.sync.deinit()
        if self.hal.network is not None:
            self.hal.network.deinit()
        self.store.journal.close()


def run(unit):
    try:
        asyncio.run(unit.main())
    finally:
        unit.store.journal.close()
    return unit
