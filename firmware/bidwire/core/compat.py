"""One-line shims so the core runs unchanged on CPython and MicroPython."""
try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x
