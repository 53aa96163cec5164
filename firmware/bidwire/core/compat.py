"""One-line shims so the core runs unchanged on CPython and MicroPython."""
try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731 - a lambda: a named function would cost its name as a qstr on the unit
