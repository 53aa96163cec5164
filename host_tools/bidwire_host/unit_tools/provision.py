"""`bidwire provision`: give a unit its id and secret, write its config file and record it in the keyring.

The keyring is the collector's list of units and their secrets (it checks each sync's HMAC with them):

    {"units": {"T01": {"secret": "<64 hex digits>", "board": "esp32_devkitc", "created": "2025-03-01T18:02:11+00:00"}}}

A secret given again (`--force`: a rotation) keeps the old one under `retired`, with the dates it was in force
(`{"secret", "from", "until"}`), for `bidwire verify`.

Both files hold secrets: they are written 0600, each to a temporary file then renamed over the old one, and the
secret is never printed.
"""
import json
import os
import secrets
import tempfile
from pathlib import Path

from bidwire.unit import config as unit_config
from bidwire_host import utc
from bidwire_host.unit_tools.deploy import ROOT, DeployError, board_file


class ProvisionError(Exception):
    """Bad input, or a unit that already exists; the message says what and how to go on."""


DEFAULT_TD_PIN = "1234"  # the --td-pin default: every player who has read the manual knows it
_UNIT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def check_unit_id(unit):
    """The unit id names files (units/T01.json) and goes into URLs and logs: letters, digits, - and _ only (its
    length is the unit's own config check's)."""
    if not set(unit or "") <= _UNIT_CHARS:
        raise ProvisionError(f"unit id {unit!r}: letters, digits, - or _ only (e.g. T01); spaces and other signs "
                             "are refused because the id names the unit's config file")


def warnings(td_pin, wifi_ssid):
    """What a provisioned config may still need, one line each: a director's PIN everybody knows, no Wi-Fi."""
    out = []
    if td_pin == DEFAULT_TD_PIN:
        out.append(f"the director's PIN is the default {DEFAULT_TD_PIN}, which players can guess: give your own with "
                   "TD_PIN=... (--td-pin, 4-8 digits from 1 to 7) and --force")
    if not wifi_ssid:
        out.append("no Wi-Fi set: the unit keeps its results until it is given a network; give WIFI_SSID=... "
                   "(--wifi-ssid, and WIFI_PASSWORD) and --force to let it sync")
    return out


def unit_config_for(unit, collector, board, mode, td_pin, wifi_ssid=None, wifi_password=None, secret=None):
    """The config dict for a unit, checked by the validator the unit itself runs."""
    if wifi_password and not wifi_ssid:
        raise ProvisionError("--wifi-password needs --wifi-ssid")
    cfg = {
        "unit": unit,
        "secret": secret or secrets.token_hex(32),
        "collector": collector,
        "wifi": {"ssid": wifi_ssid, "password": wifi_password or ""} if wifi_ssid else None,
        "board": board,
        "mode": mode,
        "td_pin": td_pin,
    }
    try:
        unit_config.check(dict(cfg))  # a copy: check() fills in defaults, and the file keeps only what was chosen
    except unit_config.ConfigError as e:
        raise ProvisionError(str(e)) from None
    return cfg


def load_keyring(path):
    """The keyring at path ({"units": {}} if there is none yet)."""
    try:
        with open(path, encoding="utf-8") as f:
            keyring = json.load(f)
    except FileNotFoundError:
        return {"units": {}}
    except (OSError, ValueError) as e:
        raise ProvisionError(f"cannot read the keyring {path}: {e}") from None
    if not isinstance(keyring, dict) or not isinstance(keyring.get("units"), dict):
        raise ProvisionError(f"the keyring {path} is not a bidwire keyring ({{\"units\": {{...}}}})")
    return keyring


def write_private(path, data):
    """Write JSON to path readable by its owner only, atomically: a crash leaves the old file or the new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # created 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def provision(unit, collector, out, keyring=None, board="esp32_devkitc", mode="record", td_pin="1234",
              wifi_ssid=None, wifi_password=None, force=False, root=ROOT):
    """Create the unit's secret, write its config to out and its entry to the keyring; return the keyring path.

    Everything is checked before anything is written; the config is written first, so a failure in between
    leaves a config the keyring does not know yet, and provisioning again with --force repairs it.
    """
    check_unit_id(unit)
    out = Path(out)
    keyring_path = Path(keyring) if keyring else out.parent / "keyring.json"
    try:
        board_file(root, board)
    except DeployError as e:
        raise ProvisionError(str(e)) from None
    cfg = unit_config_for(unit, collector, board, mode, td_pin, wifi_ssid, wifi_password)
    ring = load_keyring(keyring_path)
    if not force:
        if unit in ring["units"]:
            since = ring["units"][unit].get("created", "?")
            raise ProvisionError(f"unit {unit} is already in {keyring_path} (since {since}): pick another unit id,"
                                 " or pass --force to give it a new secret (its old config then stops syncing)")
        if out.exists():
            raise ProvisionError(f"{out} already exists: it may hold another unit's secret; "
                                 "choose another --out, or pass --force to replace it")
    created = utc.now_iso()
    write_private(out, cfg)
    entry = {"secret": cfg["secret"], "board": board, "created": created}
    old = ring["units"].get(unit)
    if old and old.get("secret"):
        # a rotation: the old secret stays, with when it was in force, so `bidwire verify` checks the batches it
        # signed against it (collector/verify.py)
        entry["retired"] = list(old.get("retired") or []) + [
            {"secret": old["secret"], "from": old.get("created"), "until": created}]
    ring["units"][unit] = entry
    write_private(keyring_path, ring)
    return keyring_path
