"""Loads the laws.md test vectors (tests/vectors/*.json, copies of shared/vectors).

On MicroPython a 16 KB vector file parsed whole would not fit a 64 KB heap beside the firmware, so
`make test-mp` writes each file as JSON Lines (tests/vectors_jsonl.py) and load() reads one vector at a time.
"""
import json
import sys

MICROPYTHON = sys.implementation.name == "micropython"
if MICROPYTHON:
    _DIR = "build/mp-test/jsonl"
else:
    import os

    _DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "vectors")


class Lines:
    """The vectors of one JSON Lines file, parsed one per iteration step."""

    def __init__(self, path):
        self.path = path

    def __iter__(self):
        with open(self.path) as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def load(name):
    if MICROPYTHON:
        return Lines(_DIR + "/" + name + "l")
    with open(_DIR + "/" + name) as f:
        data = json.load(f)
    return data["vectors"] if "vectors" in data else data["boards"]


