"""The unit's entry point (MicroPython runs main.py at boot; the virtual unit runs it with a config path).

The config file is the one `bidwire provision` writes: /config.json on a device, or the path given as the
first argument or in BIDWIRE_CONFIG on the unix port. The board module named in it builds the hardware.
"""
import gc
import os
import sys

import bidwire.unit.lazy as lazy  # (and runner below) the module's own name in the code: no qstr made for it


def _path():
    if len(sys.argv) > 1:
        return sys.argv[1]
    getenv = getattr(os, "getenv", None)
    env = getenv("BIDWIRE_CONFIG") if getenv is not None else None
    return env or "/config.json"


def _config():
    from bidwire.unit import config

    try:
        return config.load(_path())
    except config.ConfigError as e:
        print("bidwire: " + str(e))
        sys.exit(2)


def main():
    cfg = _config()
    lazy.drop("bidwire.unit.config")  # read once at boot
    gc.collect()
    # All the code first, while the heap is in one piece (on the unix port .mpy code lives in the heap)
    import bidwire.unit.runner as runner

    if cfg["collector"]:
        import bidwire.unit.sync  # noqa: F401 - code first, while the heap is in one piece
    name = cfg["board"]
    board = getattr(__import__("boards." + name), name)
    unit = runner.Unit(board.build(cfg), cfg)
    cfg = board = None  # the unit took what it needs: the config's text (the secret, the URL) is freed
    gc.collect()
    runner.run(unit)


main()
