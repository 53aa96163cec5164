"""Write a config for a stand-alone virtual unit (`make vunit` without CONFIG=): no collector, state in build/."""
import json
import secrets
import sys
from pathlib import Path


def main(path):
    p = Path(path)
    if p.exists():
        return
    p.parent.mkdir(parents=True, exist_ok=True)
    cfg = {"unit": "V01", "secret": secrets.token_hex(32), "collector": "", "board": "unix_sim",
           "state_dir": str(p.resolve().parent / "vunit-state"), "mode": "record", "td_pin": "1234"}
    p.write_text(json.dumps(cfg, indent=1) + "\n")
    p.chmod(0o600)


if __name__ == "__main__":
    main(sys.argv[1])
