"""The unit's entry point (MicroPython runs main.py at boot; the virtual unit runs it with a config path).

The config file is the one `bidwire provision` writes: /config.json on a device, or the path given as the
first argument or in BIDWIRE_CONFIG on the unix port (`config.boot`, dropped with the config reader once read).
The board module named in it builds the hardware.
"""
import gc

import bidwire.unit.lazy as lazy  # (and runner below) the module's own name in the code: no qstr made for it


def _unit():
    """The Unit, built by the board the config names. Only the values it needs are kept: the config's text (the
    secret, the URL) and the boot's temporaries go when this returns."""
    from bidwire.unit import config

    cfg = config.boot()  # or exit 2, saying why
    config = None
    lazy.drop("bidwire.unit.config")  # read once at boot (with the search for the file)
    gc.collect()
    # All the code first, while the heap is in one piece (on the unix port .mpy code lives in the heap)
    import bidwire.unit.runner as runner

    if cfg["collector"]:
        import bidwire.unit.sync  # noqa: F401 - code first, while the heap is in one piece
    board = getattr(__import__("boards." + cfg["board"]), cfg["board"])
    return runner.Unit(board.build(cfg), cfg)


def main():
    # A frame this small lives on the C stack (MicroPython puts a function's state of more than 11 words in the
    # heap, and this one runs as long as the unit does)
    import bidwire.unit.runner as runner

    unit = _unit()
    gc.collect()
    # A collection each 4 KB allocated, not only when an allocation finds no room (MicroPython's gc.threshold, for
    # fragmentation): without it each sweep of new objects climbs the whole free heap, and what outlives it (a
    # board's auction, a batch under way) is left anywhere, cutting the free heap into pieces too small for an
    # event's JSON. Frozen, the session needs 24 KiB with it and 27 KiB without (20 of 20 seeded sessions,
    # bench/heap_pass_rate.py; docs/benchmarks.md, "The table unit")
    gc.threshold(4096)
    runner.run(unit)


main()
