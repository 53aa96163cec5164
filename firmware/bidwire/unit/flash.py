"""The flash file system's primitives the journal and the boot's repair share: a write made durable, a full flash
told apart from another failure, a file removed if it is there."""
import os
from bidwire.core.compat import const

_ENOSPC = const(28)  # errno.ENOSPC: the unix port's errno module has no name for it
_EFBIG = const(27)  # a file-size limit (RLIMIT_FSIZE on the virtual unit) is a full flash too
_sync = getattr(os, "sync", None)  # MicroPython's unix port has no os.sync


class JournalFull(Exception):
    """The flash is full: the record or snapshot was not stored and the caller must not acknowledge it."""


def durable(f):
    f.flush()
    if _sync is not None:
        _sync()


def flash_error(e, what):
    if e.args and (e.args[0] == _ENOSPC or e.args[0] == _EFBIG):
        return JournalFull(f"flash full: {what} not stored; sync with the collector so acknowledged boards "
                           "can be cleared, then try again")
    return e


def remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
