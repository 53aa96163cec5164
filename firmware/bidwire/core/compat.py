"""One-line shims so the core runs unchanged on CPython and MicroPython."""
try:
    from micropython import const
except ImportError:  # CPython

    def _identity(x):
        return x

    const = _identity
