"""Data-driven tests that run under pytest (CPython) and under tests/core/mp_run.py (MicroPython).

@cases(items, key) parametrizes a test with one case per item, the case id being item[key] (or the item
itself when key is None). On MicroPython `items` may be a lazy iterable: cases are read one at a time.
"""
try:
    import pytest
except ImportError:  # MicroPython: mp_run.py iterates Parametrized.cases
    pytest = None


def case_id(item, key):
    return str(item) if key is None else str(item[key])


class Parametrized:
    """MicroPython functions take no attributes, so the runner gets this wrapper instead."""

    def __init__(self, fn, items, key):
        self.fn = fn
        self.cases = items
        self.key = key

    def __call__(self, case):
        return self.fn(case)


def cases(items, key="id"):
    def mark(fn):
        if pytest is not None:
            items_ = list(items)
            return pytest.mark.parametrize("case", items_, ids=[case_id(i, key) for i in items_])(fn)
        return Parametrized(fn, items, key)

    return mark
