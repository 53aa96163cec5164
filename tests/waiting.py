"""The one way a test waits for something another process or thread does: `wait_until`.

It is a deadline on waiting, never a measure of how long something took: a test asserts on what happened, and a
slow machine only waits longer (up to `timeout`) before it fails with `what` in the message.
"""
import time


def wait_until(check, timeout=30, every=0.1, what=None):
    """`check()`'s first true value, asked every `every` seconds; AssertionError after `timeout` seconds, saying
    what was waited for (`what`, a text or a function of the last value, else the check's own name)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            said = what(value) if callable(what) else what or getattr(check, "__name__", "the condition")
            raise AssertionError(f"waited {timeout:g} s for {said}; last: {value!r}")
        time.sleep(every)
