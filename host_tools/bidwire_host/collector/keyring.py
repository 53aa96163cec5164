"""The units the collector knows and their HMAC keys, from the keyring `bidwire provision` writes.

    {"units": {"T01": {"secret": "<64 hex digits>", ...}}}

The key is the secret's raw bytes. The file is read again whenever it changes (a unit provisioned while the
collector runs can sync at once); a keyring that cannot be read leaves the units known before in place.
"""
import logging
import os

from bidwire_host.unit_tools.provision import ProvisionError, load_keyring

log = logging.getLogger("bidwire.collector")
_UNREAD = object()


class Keyring:
    def __init__(self, path):
        self.path = path
        self._stamp = _UNREAD
        self._keys = {}
        self.error = None  # why the file could not be read last time, if it could not
        self._refresh()

    def _refresh(self):
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp:
            return
        self._stamp = stamp
        if stamp is None:
            self._keys, self.error = {}, f"no keyring at {self.path}: provision units with `bidwire provision`"
            log.warning("%s", self.error)
            return
        try:
            ring = load_keyring(self.path)
        except ProvisionError as e:
            self.error = str(e)
            log.error("keyring: %s (keeping the %d units known before)", e, len(self._keys))
            return
        keys = {}
        for unit, entry in ring["units"].items():
            try:
                keys[unit] = bytes.fromhex(entry["secret"])
            except (TypeError, KeyError, ValueError):
                log.error("keyring %s: unit %s has no hex secret; it cannot sync", self.path, unit)
        self._keys, self.error = keys, None

    def key(self, unit):
        """The unit's HMAC key, or None if the keyring does not hold the unit."""
        self._refresh()
        return self._keys.get(unit)

    def units(self):
        self._refresh()
        return sorted(self._keys)
