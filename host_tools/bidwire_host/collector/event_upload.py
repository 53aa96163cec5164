"""The event as a request sends it (POST /api/v1/event): the files come in the body, never named (issue 24.3).

A request cannot make the collector read a file on its machine: an event whose `register` or a session's
`hand_records` names a path is refused, the register comes as its CSV text (`register_csv`) and the hand records as
each session's PBN text (`hand_records`). The hand records are kept in the data directory (`hand-records/`, by
their SHA-256) and the stored event names that copy, as an event file loaded with `bidwire serve --event FILE`
names its own. A sim's `secret_file` may only be a file name in the data directory that is none of the collector's
own keys. Nothing in a refusal quotes a file: only the request's own text.
"""
import copy
import hashlib
import os
from pathlib import Path

from bidwire_host.formats.pbn import PbnError
from bidwire_host.formats.pbn_import import load as load_pbn

HANDS_DIR = "hand-records"
OWN_FILES = ("api-token", "dashboard-secret", "keyring.json", "bidwire.sqlite3")  # never a sim's secret
_BY_EVENT_FILE = "or load the event file with `bidwire serve --event FILE` (its folder holds the files)"


class RequestEventError(ValueError):
    """The request's event names a server file, or a file it sent cannot be used: the message names the field."""


def prepare(event, hand_records, data_dir):
    """The event to store (a copy): `hand_records` ({session name: PBN text}) checked, kept in the data directory
    and named by the session. RequestEventError for a path named, or hand records that do not read."""
    if not isinstance(event, dict):
        return event  # setup.save says what an event is
    if "register" in event:
        raise RequestEventError("event.register: a request names no file on the server; send the register's CSV "
                                f"text as `register_csv` beside `event`, {_BY_EVENT_FILE}")
    sessions = event.get("sessions")
    sessions = sessions if isinstance(sessions, list) else []
    for i, s in enumerate(sessions):
        if isinstance(s, dict) and "hand_records" in s:
            raise RequestEventError(f"event.sessions[{i}].hand_records: a request names no file on the server; "
                                    "send the PBN text as `hand_records` {session name: text} beside `event`, "
                                    + _BY_EVENT_FILE)
    sim = event.get("sim")
    if isinstance(sim, dict) and isinstance(sim.get("secret_file"), str):
        name = sim["secret_file"]
        if name != Path(name).name or name in ("", ".", "..") or "\\" in name or name in OWN_FILES:
            raise RequestEventError("event.sim.secret_file: the name of a file in the collector's data directory "
                                    "(no folder), not one of its own keys")
    if not hand_records:
        return event
    event = copy.deepcopy(event)
    names = {s.get("name"): s for s in event.get("sessions", []) if isinstance(s, dict)}
    for name, text in hand_records.items():
        if name not in names:
            raise RequestEventError(f"hand_records.{name}: the event has no session of that name "
                                    f"(sessions: {', '.join(str(n) for n in names)})")
        try:
            load_pbn(text)
        except PbnError as e:
            raise RequestEventError(f"hand_records.{name}: {e}") from None
        names[name]["hand_records"] = str(_keep(text, data_dir))
    return event


def _keep(text, data_dir):
    """The PBN text written once under the data directory (name.tmp, then renamed): its path."""
    raw = text.encode("utf-8")
    folder = Path(data_dir) / HANDS_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"{hashlib.sha256(raw).hexdigest()}.pbn"
    if not path.exists():
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(raw)
        os.replace(tmp, path)
    return path.resolve()
