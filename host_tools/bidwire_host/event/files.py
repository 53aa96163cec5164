"""The event on disk: `load`/`save` read and write the event file (format in docs/movements.md), every error
naming the field; `hand_records`/`hand_record` read the session's PBN file of hand records, again when it
changes. The event itself (its dataclasses, from_dict and to_dict) is bidwire_host.event.model's.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from bidwire_host.event.model import EventError, from_dict, to_dict
from bidwire_host.formats.pbn import PbnError
from bidwire_host.formats.pbn_import import load as load_pbn
from bidwire_host.formats.score_pbn import decode

__all__ = ["hand_record", "hand_records", "load", "save"]


def load(path):
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise EventError(f"{path}: cannot read the event file ({e.strerror})") from None
    except ValueError as e:
        raise EventError(f"{path}: not valid JSON ({e})") from None
    try:
        return from_dict(data, directory=path.resolve().parent)
    except EventError as e:
        raise EventError(f"{path}: {e}") from None


def save(event, path):
    """Write the event file atomically (architecture: name.tmp, then renamed over the old file)."""
    path = Path(path)
    from_dict(to_dict(event))  # never write a file that would not load
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(to_dict(event), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    event.directory = path.resolve().parent


def hand_records(event, session=None):
    """Every hand record of the session's file ({board: pbn_import.HandRecord}; {} without a file)."""
    found = _hand_file(event, session)
    return {} if found is None else dict(_hands(*found))


def _hand_file(event, session):
    """(path, its mtime, where in the event file) of the session's hand-record file, or None."""
    s = event.session(session)
    if not s.hand_records:
        return None
    path = Path(s.hand_records)
    if not path.is_absolute():
        path = (event.directory or Path.cwd()) / path
    where = f"sessions[{event.sessions.index(s)}].hand_records"
    try:
        return str(path), path.stat().st_mtime_ns, where
    except OSError:
        raise EventError(f"{where}: the hand-record file {path} does not exist") from None


def hand_record(event, board, session=None):
    """The board's pbn_import.HandRecord from the session's hand-record file, or None (no file, no such board)."""
    found = _hand_file(event, session)
    return None if found is None else _hands(*found).get(board)


@lru_cache(maxsize=8)
def _hands(path, stamp, where):
    """The hand records of a PBN file, read again when the file changes (`stamp`)."""
    try:
        return load_pbn(decode(Path(path).read_bytes())).hands
    except PbnError as e:
        raise EventError(f"{where}: {path}: {e}") from None
