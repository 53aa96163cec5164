"""Keys pressed on an App as a script, for the unit's tests (CPython and MicroPython): 'N 1, N H, E PASS'."""
from bidwire.unit.keys import parse_key


def presses(app, script):
    """Press each key of `script` in turn; the events they produced, and each press's changed flag."""
    events, changed = [], []
    for item in script.split(","):
        seat, key = item.split()
        out = app.key("NESW".index(seat), parse_key(key))
        changed.append(out is not None)
        events.extend(out or [])
    return events, changed


def press(app, script):
    """The events `script`'s presses produced."""
    return presses(app, script)[0]
