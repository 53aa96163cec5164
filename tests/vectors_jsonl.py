"""Writes each tests/vectors/*.json as JSON Lines (one vector a line) for the MicroPython test run."""
import json
import sys
from pathlib import Path

src, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
for f in sorted(src.glob("*.json")):
    data = json.loads(f.read_text(encoding="utf-8"))
    rows = data.get("vectors") or data.get("boards") or []
    (out / (f.name + "l")).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
