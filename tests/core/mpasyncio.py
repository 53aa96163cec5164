"""asyncio as the unit has it, on CPython too: the unit code uses MicroPython's asyncio.sleep_ms and
asyncio.ThreadSafeFlag, which CPython's asyncio lacks, so the tests of that code add them there (on MicroPython
this changes nothing). Tests import asyncio from here: `from mpasyncio import asyncio`.
"""
import asyncio

if not hasattr(asyncio, "sleep_ms"):

    async def _sleep_ms(ms):
        await asyncio.sleep(ms / 1000)

    asyncio.sleep_ms = _sleep_ms  # type: ignore[attr-defined]

if not hasattr(asyncio, "ThreadSafeFlag"):

    class _ThreadSafeFlag(asyncio.Event):
        """Set from an IRQ on the unit; here from the test. wait() clears it, as MicroPython's does."""

        async def wait(self):
            await super().wait()
            self.clear()
            return True

    asyncio.ThreadSafeFlag = _ThreadSafeFlag  # type: ignore[attr-defined]
