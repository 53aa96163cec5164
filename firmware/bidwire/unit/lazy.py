"""Modules the unit needs only now and then (the director's part, the auction summary, Law 77, the Law 26 lead
check, the boot's replay, the config reader) are imported when needed and dropped after, so their bytecode does not
sit in the heap between uses (docs/architecture.md §3 "Memory"; the figures are in docs/benchmarks.md).
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

