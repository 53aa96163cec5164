"""The config of `make vunit`: without CONFIG= one is written for a stand-alone virtual unit (no collector, state
in build/); a config that names no state folder (the one `make provision` writes for a real unit, whose state is
`/data` on its own flash) runs on a copy under build/vunit/UNIT/ with its state beside it, so each virtual unit keeps
its own journal and nothing is written outside the checkout; and unless resumed the unit's saved state (journal and
snapshot) is removed first, so each run starts from the set-up screen instead of wherever the last run stopped.
"""
import json
import re
import secrets
from pathlib import Path

# What the firmware keeps in its state_dir (bidwire.unit.journal.JOURNAL, bidwire.unit.store.SNAPSHOT); only
# these are removed, never the directory: a CONFIG= may point it anywhere.
STATE_FILES = ("journal.bin", "journal.bin.tmp", "state.json", "state.json.tmp")
UNIT_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def write(p):
    p.parent.mkdir(parents=True, exist_ok=True)
    cfg = {"unit": "V01", "secret": secrets.token_hex(32), "collector": "", "board": "unix_sim",
           "state_dir": str(p.resolve().parent / "vunit-state"), "mode": "record", "td_pin": "1234"}
    p.write_text(json.dumps(cfg, indent=1) + "\n")
    p.chmod(0o600)


def with_state(p, build):
    """The config to run: `p` itself when it names a state_dir (or cannot be read: the unit says why), else a copy
    at build/vunit/UNIT/unit.json (mode 0600: it holds the secret) whose state_dir is build/vunit/UNIT/state."""
    try:
        cfg = json.loads(Path(p).read_text())
    except (OSError, ValueError):
        return Path(p)
    if not isinstance(cfg, dict) or cfg.get("state_dir") or not UNIT_ID.match(str(cfg.get("unit") or "")):
        return Path(p)
    home = Path(build) / "vunit" / cfg["unit"]
    (home / "state").mkdir(parents=True, exist_ok=True)
    out = home / "unit.json"
    out.touch(mode=0o600)
    out.write_text(json.dumps(dict(cfg, state_dir=str((home / "state").resolve())), indent=1) + "\n")
    return out


def fresh(p):
    """Remove the unit's saved state named by config `p` (a config that cannot be read is left to the unit)."""
    try:
        state = Path(json.loads(Path(p).read_text())["state_dir"])
    except (OSError, ValueError, KeyError, TypeError):
        return
    for name in STATE_FILES:
        (state / name).unlink(missing_ok=True)
