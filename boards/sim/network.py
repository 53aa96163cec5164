"""A fake `network` for running a board module off the device: a station interface and the access points in range.

A test puts an access point in range with access_points["club"] = "password" and takes it away with del; a
connection comes up connect_polls isconnected() calls after connect(), as association and DHCP take a while.
"""
STA_IF = 0
AP_IF = 1
STAT_IDLE = 1000
STAT_CONNECTING = 1001
STAT_GOT_IP = 1010

access_points = {}  # ssid -> password
rssi_dbm = -61
connect_polls = 2


class WLAN:
    def __init__(self, interface_id=STA_IF):
        self._active = False
        self._target = None  # (ssid, password) of the attempt or link
        self._polls = 0
        self._link = False
        self.connects = 0
        self.settings = {}

    def active(self, is_active=None):
        if is_active is None:
            return self._active
        self._active = bool(is_active)
        if not self._active:
            self.disconnect()

    def connect(self, ssid=None, key=None):
        if not self._active:
            raise OSError("Wifi Not Started")
        self.connects += 1
        self._target = (ssid, key)
        self._polls = connect_polls
        self._link = False

    def _in_range(self):
        return self._target is not None and access_points.get(self._target[0]) == self._target[1]

    def isconnected(self):
        if self._target is not None and not self._link and self._in_range():
            if self._polls <= 0:
                self._link = True
            self._polls -= 1
        if self._link and not self._in_range():
            self._link = False  # the access point went away
        return self._link

    def disconnect(self):
        self._target = None
        self._link = False

    def status(self, param=None):
        if param == "rssi":
            if not self._link:
                raise OSError("Wifi Not Connected")
            return rssi_dbm
        if param is not None:
            raise ValueError("unknown status param")
        return STAT_GOT_IP if self._link else STAT_CONNECTING if self._target else STAT_IDLE

    def config(self, *args, **kwargs):
        if args:
            return self.settings.get(args[0])
        self.settings.update(kwargs)

    def ifconfig(self):
        return ("192.168.4.10", "255.255.255.0", "192.168.4.1", "192.168.4.1") if self._link else ("0.0.0.0",) * 4
