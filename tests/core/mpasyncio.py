"""asyncio as the unit has it, on CPython too: the unit code uses MicroPython's asyncio.sleep_ms, which
CPython's asyncio lacks, so the tests of that code add it there (on MicroPython
this changes nothing). Tests import asyncio from here: `from mpasyncio import asyncio`.
"""
import asyncio

if not hasattr(asyncio, "sleep_ms"):

    async def _sleep_ms(ms):
        await asyncio.sleep(ms / 1000)

    asyncio.sleep_ms = _sleep_ms  # type: ignore[attr-defined]
