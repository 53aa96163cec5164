"""HMAC-SHA256 (RFC 2104) on hashlib.sha256: MicroPython has no hmac module. Signs sync bodies
(docs/architecture.md §4).

The key is the unit's secret as raw bytes (config "secret" is its hex form: unhexlify it first).
MicroPython's sha256 has no copy(), so Signer keeps the two padded keys and feeds them to a fresh hash per message.
"""
from hashlib import sha256
from binascii import hexlify
from bidwire.core.compat import const

_BLOCK = const(64)  # SHA-256 block size in bytes


def _padded(key, byte):
    if len(key) > _BLOCK:
        key = sha256(key).digest()
    pad = bytearray(_BLOCK)
    for i in range(_BLOCK):
        pad[i] = byte
    for i in range(len(key)):
        pad[i] ^= key[i]
    return bytes(pad)


class Signer:
    """HMAC-SHA256 with one key; the padded inner and outer keys are built once, not per message."""

    def __init__(self, key):
        if not isinstance(key, (bytes, bytearray)):
            raise TypeError("HMAC key must be bytes (unhexlify the secret from the config)")
        self._inner = _padded(key, 0x36)
        self._outer = _padded(key, 0x5C)

    def digest(self, msg):
        h = sha256(self._inner)
        h.update(msg)
        inner = h.digest()
        h = sha256(self._outer)
        h.update(inner)
        return h.digest()

    def hex(self, msg):
        """The signature as lowercase hex text: the X-Bidwire-Signature header's value."""
        return hexlify(self.digest(msg)).decode()
