"""The Wi-Fi supervisor: one task owns the station link, connecting, checking it stays up and reconnecting with
backoff, so nothing else ever calls connect(). The board constructs the WLAN; the app sees the network interface
(hal.py): start(), connected(), rssi(), deinit().
"""
import asyncio


class WifiSupervisor:
    connect_timeout_ms = 15000  # association and DHCP; an ESP32 usually needs 2-5 s
    stable_ms = 2000  # a link must stay up this long to count: some access points accept, then drop at once
    poll_ms = 250  # how often isconnected() is asked while connecting
    check_ms = 1000  # how often a live link is checked
    backoff_ms = 1000  # the wait after a failed attempt, doubled on each failure in a row
    max_backoff_ms = 60000

    def __init__(self, wlan, ssid, password=""):
        self._wlan = wlan
        self._ssid = ssid  # None: no Wi-Fi configured; the unit keeps everything until one is
        self._password = password
        self._up = False
        self._task = None
        self.failures = 0  # attempts that timed out or dropped before stable_ms
        self.drops = 0  # established links lost

    def start(self):
        if self._ssid and self._task is None:
            self._task = asyncio.create_task(self._run())

    def connected(self):
        return self._up and self._wlan.isconnected()

    def rssi(self):
        """dBm, or None when not connected."""
        if not self.connected():
            return None
        try:
            return self._wlan.status("rssi")
        except (OSError, ValueError):
            return None

    def deinit(self):
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._up = False
        self._disconnect()
        self._wlan.active(False)

    def _disconnect(self):
        try:
            self._wlan.disconnect()
        except OSError:  # not started, or not connected: nothing to undo
            pass

    async def _run(self):
        wlan = self._wlan
        wlan.active(True)
        try:
            wlan.config(reconnects=0)  # this task reconnects, with backoff; the driver's own retries would race it
        except (OSError, ValueError, TypeError):
            pass
        backoff = self.backoff_ms
        while True:
            if await self._connect():
                self._up = True
                backoff = self.backoff_ms
                while wlan.isconnected():
                    await asyncio.sleep_ms(self.check_ms)
                self._up = False
                self.drops += 1
            else:
                self.failures += 1
                self._disconnect()
                await asyncio.sleep_ms(backoff)
                backoff = min(backoff * 2, self.max_backoff_ms)

    async def _connect(self):
        """One bounded attempt: True once the link is up and has stayed up for stable_ms."""
        wlan = self._wlan
        self._disconnect()  # an attempt still in progress would make connect() fail
        try:
            wlan.connect(self._ssid, self._password)
        except OSError:
            return False
        waited = 0
        while not wlan.isconnected():
            if waited >= self.connect_timeout_ms:
                return False
            await asyncio.sleep_ms(self.poll_ms)
            waited += self.poll_ms
        waited = 0
        while waited < self.stable_ms:
            await asyncio.sleep_ms(self.poll_ms)
            waited += self.poll_ms
            if not wlan.isconnected():
                return False
        return True
