"""tests/vectors holds copies of shared/vectors (laws.md's vectors as JSON): they must stay complete and equal."""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "vectors"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "vectors"
COUNTS = {"auction_single_call.json": 39, "auction_contracts.json": 12, "auction_scenarios.json": 27,
          "scores.json": 35, "boards.json": 36}


def test_copies_hold_every_vector_of_laws_md():
    for name, n in COUNTS.items():
        data = json.loads((HERE / name).read_text(encoding="utf-8"))
        assert len(data.get("vectors") or data.get("boards")) == n, name


def test_copies_equal_shared_vectors_when_shared_is_beside_the_clone():
    if not SHARED.is_dir():  # a clone on its own: the completeness test above still guards the copies
        return
    for f in SHARED.glob("*.json"):
        assert (HERE / f.name).read_bytes() == f.read_bytes(), f"{f.name} differs from shared/vectors: re-copy it"
