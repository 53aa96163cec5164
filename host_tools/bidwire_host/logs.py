"""The collector's log configuration: uvicorn's own (its default and access formatters, standard error and standard
output), every `bidwire.*` logger at the chosen level, and in every logged field its control characters escaped.

A unit id, a URL path (uvicorn decodes `%0a`), a header value or a file name comes from outside: written as it is,
a line break in it would start a line the collector never wrote (a forged "login from ... as director"). Every
argument of a log call and the message itself are escaped before formatting: C0 and C1 control characters, DEL,
and the Unicode line and paragraph separators become `\\xNN` or `\\uNNNN`. A traceback (exc_info) is the
formatter's own and keeps its lines.
"""
import copy
import logging.config
import re
import threading
import time

from uvicorn.config import LOGGING_CONFIG
from uvicorn.logging import AccessFormatter, DefaultFormatter

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape(text):
    """Text with its control characters escaped (see the module docstring); other characters unchanged."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else
                        f"\\u{ord(m.group()):04x}", text)


def _clean(value):
    if value is None or isinstance(value, int | float):
        return value  # %d and %f need numbers; a number holds no control character
    text = value if isinstance(value, str) else str(value)
    return escape(text) if _CONTROL.search(text) else value


def escaped(record):
    """A copy of the record whose message and arguments hold no control character."""
    record = copy.copy(record)
    if isinstance(record.msg, str):
        record.msg = _clean(record.msg)
    if isinstance(record.args, tuple):
        record.args = tuple(_clean(a) for a in record.args)
    elif isinstance(record.args, dict):
        record.args = {k: _clean(v) for k, v in record.args.items()}
    return record


class EscapingFormatter(DefaultFormatter):
    def format(self, record):
        return super().format(escaped(record))


class EscapingAccessFormatter(AccessFormatter):
    def format(self, record):
        return super().format(escaped(record))


def log_config(level="info"):
    """uvicorn's LOGGING_CONFIG with the escaping formatters; `bidwire.*` (and anything else that logs through the
    root logger) to standard error, `bidwire.*` at `level`."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["default"]["()"] = f"{__name__}.EscapingFormatter"
    config["formatters"]["access"]["()"] = f"{__name__}.EscapingAccessFormatter"
    config["loggers"]["bidwire"] = {"level": level.upper()}
    config["root"] = {"handlers": ["default"], "level": "WARNING"}
    return config


def configure(level="info"):
    """The log configured as uvicorn will configure it (log_config), for what is logged before uvicorn starts."""
    logging.config.dictConfig(log_config(level))


class RefusalLog:
    """Refused requests logged once per address and kind (status and reason) every `every_s` seconds, with the
    count of those not logged since (issue 24.10: one unauthenticated client wrote 182 KB/s of log): the
    collector's refused requests and syncs, and its refused connections (web/connections.py). `clock` is
    time.monotonic unless a test gives its own."""

    def __init__(self, every_s=10.0, clock=None):
        self.every_s, self.clock = every_s, clock or time.monotonic
        self._logged = {}  # (address, kind) -> (time logged, refusals not logged since)
        self._lock = threading.Lock()

    def warning(self, logger, address, kind, msg, *args):
        """Log `msg % args` at warning unless a refusal of this kind from this address was logged under every_s
        ago; whether it was logged."""
        now = self.clock()
        with self._lock:
            last, quiet = self._logged.get((address, kind), (None, 0))
            if last is not None and now - last < self.every_s:
                self._logged[(address, kind)] = (last, quiet + 1)
                return False
            if len(self._logged) > 10_000:  # addresses gone quiet are forgotten
                self._logged = {k: v for k, v in self._logged.items() if now - v[0] < self.every_s}
            self._logged[(address, kind)] = (now, 0)
        if quiet:
            msg += " (%d more like it in the last %.0f s)"
            args = (*args, quiet, now - last)
        logger.warning(msg, *args)
        return True

