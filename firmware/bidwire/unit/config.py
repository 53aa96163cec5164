"""The unit's configuration: a JSON file written by `bidwire provision` and copied to the device as /config.json.

    {"unit": "T01", "secret": "<64 hex digits>", "collector": "http://192.168.4.2:8080",
     "wifi": {"ssid": "club", "password": "..."}, "board": "esp32_devkitc", "state_dir": "/data",
     "mode": "record", "td_pin": "1234", "heartbeat_ms": 5000}

Only "unit" and "secret" are required; the rest have the defaults below. Errors say which key is wrong.
"""
import json
import os
import sys

DEFAULTS = {
    "collector": "",  # empty: no sync (the unit keeps everything until one is configured)
    "wifi": None,
    "board": "esp32_devkitc",
    "state_dir": "/data",
    "mode": "record",
    "td_pin": "1234",
    "heartbeat_ms": 5000,
}


class ConfigError(ValueError):
    pass


def _hex(s):
    # bytes, which iterate as ints: iterating the str would intern each character met as a qstr in a unit's heap
    for b in s.encode():
        if b not in b"0123456789abcdefABCDEF":
            return False
    return len(s) % 2 == 0


def check(cfg):
    """Fill defaults and validate; returns the dict. ConfigError names the first bad key."""
    if not isinstance(cfg, dict):
        raise ConfigError("config must be a JSON object")
    for k in DEFAULTS:
        if k not in cfg:
            cfg[k] = DEFAULTS[k]
    unit = cfg.get("unit")
    if not isinstance(unit, str) or not 0 < len(unit) <= 32 or '"' in unit or "\\" in unit:
        raise ConfigError("config 'unit': a unit id of 1-32 characters, e.g. \"T01\"")
    secret = cfg.get("secret")
    if not isinstance(secret, str) or len(secret) < 32 or not _hex(secret):
        raise ConfigError("config 'secret': the hex secret from `bidwire provision` (at least 16 bytes)")
    url = cfg["collector"]
    if not isinstance(url, str) or (url and not url.startswith("http://")):
        raise ConfigError("config 'collector': an http://host:port URL, or empty for none")
    if cfg["mode"] not in ("record", "enforce"):
        raise ConfigError("config 'mode': record or enforce")
    pin = cfg["td_pin"]
    if not isinstance(pin, str) or not 4 <= len(pin) <= 8 or any(b not in b"1234567" for b in pin.encode()):
        raise ConfigError("config 'td_pin': 4-8 digits from 1 to 7 (entered with the level keys)")
    hb = cfg["heartbeat_ms"]
    if not isinstance(hb, int) or not 200 <= hb <= 600000:
        raise ConfigError("config 'heartbeat_ms': 200..600000")
    wifi = cfg["wifi"]
    if wifi is not None and (not isinstance(wifi, dict) or not isinstance(wifi.get("ssid"), str)):
        raise ConfigError("config 'wifi': {\"ssid\": ..., \"password\": ...} or null")
    if not isinstance(cfg["state_dir"], str) or not cfg["state_dir"]:
        raise ConfigError("config 'state_dir': a directory such as /data")
    return cfg


def load(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        raise ConfigError(f"no config file at {path}: provision the unit (bidwire provision)")  # noqa: B904
    try:
        cfg = json.loads(text)
    except ValueError:
        raise ConfigError(f"config file {path} is not valid JSON")  # noqa: B904
    return check(cfg)


def boot():
    """The config main.py boots with: the file given as the first argument or in BIDWIRE_CONFIG (the unix port),
    else /config.json. One that cannot be read or is wrong stops the boot: the reason printed, exit status 2."""
    path = sys.argv[1] if len(sys.argv) > 1 else ""
    getenv = getattr(os, "getenv", None)
    if not path and getenv is not None:
        path = getenv("BIDWIRE_CONFIG") or ""
    try:
        return load(path or "/config.json")
    except ConfigError as e:
        print("bidwire: " + str(e))
        sys.exit(2)
