"""The config of `make vunit`: without CONFIG= one is written for a stand-alone virtual unit (no collector, state
in build/); and unless RESUME=1 the unit's saved state (journal and snapshot) is removed first, so each run starts
from the set-up screen instead of wherever the last run stopped.

Usage: python -m bidwire_host.unit_tools.vunit_config CONFIG [--resume]
"""
import json
import secrets
import sys
from pathlib import Path

# What the firmware keeps in its state_dir (bidwire.unit.journal.JOURNAL, bidwire.unit.store.SNAPSHOT); only
# these are removed, never the directory: a CONFIG= may point it anywhere.
STATE_FILES = ("journal.bin", "journal.bin.tmp", "state.json", "state.json.tmp")


def write(p):
    p.parent.mkdir(parents=True, exist_ok=True)
    cfg = {"unit": "V01", "secret": secrets.token_hex(32), "collector": "", "board": "unix_sim",
           "state_dir": str(p.resolve().parent / "vunit-state"), "mode": "record", "td_pin": "1234"}
    p.write_text(json.dumps(cfg, indent=1) + "\n")
    p.chmod(0o600)


def fresh(p):
    """Remove the unit's saved state named by config `p` (a config that cannot be read is left to the unit)."""
    try:
        state = Path(json.loads(p.read_text())["state_dir"])
    except (OSError, ValueError, KeyError, TypeError):
        return
    for name in STATE_FILES:
        (state / name).unlink(missing_ok=True)


def main(argv):
    p = Path(argv[0])
    if not p.exists():
        write(p)
    if "--resume" not in argv[1:]:
        fresh(p)


if __name__ == "__main__":
    main(sys.argv[1:])
