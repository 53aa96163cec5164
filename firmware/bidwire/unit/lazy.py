"""Modules the unit needs only now and then (the director's part, the auction summary, Law 77, the Law 26 lead
check, the boot's replay, the config reader) are imported when needed and dropped after, so their bytecode does not
sit in the heap between uses (docs/architecture.md §3 "Memory"; the figures are in docs/benchmarks.md).
"""
import sys

# What the app imports now and then: the director's part, the auction summary, Law 77, the Law 26 lead check (the
# boot's replay and the config reader are loaded at boot anyway)
LATER = ("bidwire.unit.director", "bidwire.core.record", "bidwire.core.score", "bidwire.core.lead26")


def drop(name):
    """Forget module `name` (a dotted name) so the collector can free its code. Nothing is allocated when it is
    not loaded (the app asks after every input)."""
    if sys.modules.pop(name, None) is None:
        return
    parent, _, leaf = name.rpartition(".")
    pkg = sys.modules.get(parent)
    if pkg is not None and leaf in pkg.__dict__:
        delattr(pkg, leaf)


def prime():
    """Load each module of LATER once and drop it again: main.py does this at boot. MicroPython never frees a qstr,
    and a module loaded from a .mpy file interns its names at its first import; when that outgrows the qstr pool,
    a table twice the last one's size is asked for (4.5 KB as the unit's names reach 620, docs/benchmarks.md). Primed,
    every name the code holds is interned at boot, while the heap is in one piece, never in the middle of a session.
    Only code loaded from .mpy files interns its names in the heap: frozen in, they are in flash, and on CPython
    (the host's tests) nothing is short, so there this does nothing."""
    if not __file__.endswith(".mpy"):
        return
    for name in LATER:
        __import__(name)
        drop(name)
