"""Modules the unit needs only now and then (the director's part, the SEAT screen, the auction summary, Law 77, the
boot's replay, the config reader) are imported when needed and dropped after, so their bytecode does not sit in the
heap between uses: each pays at least 1.5 KiB as .mpy files (docs/unit.md "Memory"; what each was weighed at is in
docs/benchmarks.md, "What the heap needs").
"""
import sys


def drop(name):
    """Forget module `name` (a dotted name) so the collector can free its code. Nothing is allocated when it is
    not loaded (the app asks after every input)."""
    if sys.modules.pop(name, None) is None:
        return
    parent, _, leaf = name.rpartition(".")
    pkg = sys.modules.get(parent)
    if pkg is not None and leaf in pkg.__dict__:
        delattr(pkg, leaf)

