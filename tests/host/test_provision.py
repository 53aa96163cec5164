"""`bidwire provision` (docs/architecture.md §4 "Provisioning"): a unit's id and secret, its config file, the
keyring."""
import json
import os
import shutil
import stat
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from bidwire.unit import config as unit_config
from bidwire_host.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def root(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "boards").mkdir(parents=True)
    for board in ("esp32_devkitc", "esp32_s3"):
        (checkout / "boards" / f"{board}.py").write_text(f'NAME = "{board}"\n')
    return checkout


def provision(root, out, *extra, env=None):
    args = ["provision", "--root", str(root), "--unit", "T01", "--collector", "http://192.168.4.2:8080",
            "--out", str(out), *extra]
    return CliRunner().invoke(main, args, env=env)


def read(path):
    return json.loads(Path(path).read_text())


def test_writes_a_config_the_unit_accepts_and_records_the_secret(root, tmp_path):
    out = tmp_path / "units" / "T01.json"
    result = provision(root, out, "--wifi-ssid", "club", "--wifi-password", "bridge4all", "--board", "esp32_s3",
                       "--mode", "enforce", "--td-pin", "7151")
    assert result.exit_code == 0, result.output
    cfg = unit_config.load(str(out))  # the validator the unit runs at boot
    assert (cfg["unit"], cfg["board"], cfg["mode"], cfg["td_pin"]) == ("T01", "esp32_s3", "enforce", "7151")
    assert cfg["wifi"] == {"ssid": "club", "password": "bridge4all"}
    assert cfg["collector"] == "http://192.168.4.2:8080"
    assert len(cfg["secret"]) == 64 and int(cfg["secret"], 16) >= 0  # 32 bytes from secrets.token_hex
    ring = read(tmp_path / "units" / "keyring.json")  # default: beside the config
    entry = ring["units"]["T01"]
    assert entry["secret"] == cfg["secret"] and entry["board"] == "esp32_s3"
    assert datetime.fromisoformat(entry["created"]).tzinfo is not None
    assert cfg["secret"] not in result.output and "bridge4all" not in result.output


def test_secret_files_are_owner_only_and_written_without_leftovers(root, tmp_path):
    out = tmp_path / "T01.json"
    keyring = tmp_path / "ring" / "keyring.json"
    assert provision(root, out, "--keyring", str(keyring)).exit_code == 0
    for path in (out, keyring):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["T01.json"]  # no .tmp left behind
    assert [p.name for p in keyring.parent.iterdir()] == ["keyring.json"]


def test_each_unit_gets_its_own_secret_and_the_keyring_keeps_the_others(root, tmp_path):
    keyring = tmp_path / "keyring.json"
    keyring.write_text(json.dumps({"units": {"T09": {"secret": "cd" * 32, "board": "esp32_devkitc",
                                                     "created": "2025-01-01T00:00:00+00:00"}}, "note": "club"}))
    assert provision(root, tmp_path / "T01.json", "--keyring", str(keyring)).exit_code == 0
    ring = read(keyring)
    assert set(ring["units"]) == {"T01", "T09"} and ring["note"] == "club"
    assert ring["units"]["T09"]["secret"] == "cd" * 32
    assert ring["units"]["T01"]["secret"] != ring["units"]["T09"]["secret"]


def test_wifi_password_from_the_environment(root, tmp_path):
    out = tmp_path / "T01.json"
    result = provision(root, out, "--wifi-ssid", "club", env={"BIDWIRE_WIFI_PASSWORD": "from-env"})
    assert result.exit_code == 0, result.output
    assert read(out)["wifi"] == {"ssid": "club", "password": "from-env"}


def test_no_wifi_means_null(root, tmp_path):
    out = tmp_path / "T01.json"
    assert provision(root, out).exit_code == 0
    assert read(out)["wifi"] is None


def test_a_unit_already_in_the_keyring_is_refused_without_force(root, tmp_path):
    first = tmp_path / "T01.json"
    assert provision(root, first).exit_code == 0
    before_ring, before_cfg = read(tmp_path / "keyring.json"), read(first)
    result = provision(root, tmp_path / "T01-again.json")
    assert result.exit_code == 1
    assert "unit T01 is already in" in result.output and "--force" in result.output
    assert read(tmp_path / "keyring.json") == before_ring and read(first) == before_cfg
    assert not (tmp_path / "T01-again.json").exists()

    result = provision(root, first, "--force")
    assert result.exit_code == 0, result.output
    assert read(first)["secret"] != before_cfg["secret"]
    assert read(tmp_path / "keyring.json")["units"]["T01"]["secret"] == read(first)["secret"]


def test_an_existing_config_file_is_not_overwritten_without_force(root, tmp_path):
    out = tmp_path / "T01.json"
    out.write_text('{"unit": "T07"}')
    result = provision(root, out)
    assert result.exit_code == 1 and "already exists" in result.output
    assert out.read_text() == '{"unit": "T07"}' and not (tmp_path / "keyring.json").exists()


@pytest.mark.parametrize("extra,message", [
    (["--collector", "https://c:8080"], "config 'collector'"),
    (["--td-pin", "1290"], "config 'td_pin'"),
    (["--td-pin", "12"], "config 'td_pin'"),
    (["--unit", "T" * 33], "config 'unit'"),
    (["--board", "esp32_c6"], "unknown board 'esp32_c6'"),
    (["--wifi-password", "x"], "--wifi-password needs --wifi-ssid"),
    (["--mode", "strict"], "'strict' is not one of 'record', 'enforce'"),
])
def test_bad_input_is_refused_and_nothing_is_written(root, tmp_path, extra, message):
    result = provision(root, tmp_path / "T01.json", *extra)
    assert result.exit_code != 0
    assert message in result.output
    assert list(tmp_path.glob("*.json")) == []


def test_a_keyring_that_is_not_one_is_refused(root, tmp_path):
    keyring = tmp_path / "keyring.json"
    for text in ("[]", "{not json", '{"units": []}'):
        keyring.write_text(text)
        result = provision(root, tmp_path / "T01.json", "--keyring", str(keyring))
        assert result.exit_code == 1 and str(keyring) in result.output, text
        assert keyring.read_text() == text and not (tmp_path / "T01.json").exists()


def test_a_provisioned_unit_deploys(root, tmp_path):
    """The config provision writes is the one deploy checks (board included)."""
    out = tmp_path / "T01.json"
    assert provision(root, out, "--board", "esp32_s3").exit_code == 0
    shutil.copytree(REPO / "firmware" / "bidwire", root / "firmware" / "bidwire",
                    ignore=shutil.ignore_patterns("__pycache__"))
    result = CliRunner().invoke(main, ["deploy", "--root", str(root), "--port", "COM3", "--config", str(out),
                                       "--board", "esp32_s3", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert f"fs cp {out} :/config.json" in result.output


def test_make_provision_keeps_the_wifi_password_off_the_terminal(root, tmp_path):
    out = tmp_path / "units" / "T01.json"
    env = {k: v for k, v in os.environ.items() if k != "BIDWIRE_WIFI_PASSWORD"}
    env["BIDWIRE_ROOT"] = str(root)
    proc = subprocess.run(["make", "--no-print-directory", "provision", "UNIT=T01", "COLLECTOR=http://10.0.0.2:8080",
                           f"OUT={out}", "WIFI_SSID=club", "WIFI_PASSWORD=bridge4all"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert read(out)["wifi"] == {"ssid": "club", "password": "bridge4all"}
    assert "bridge4all" not in proc.stdout + proc.stderr
    assert read(out)["secret"] not in proc.stdout + proc.stderr


@pytest.mark.parametrize("unit", ["bad id!", "T 01", "../T01", "T01.json"])
def test_a_unit_id_that_cannot_name_a_file_is_refused(root, tmp_path, unit):
    """Issue 26 item 10: `make provision UNIT='bad id!'` wrote units/bad id!.json."""
    result = provision(root, tmp_path / "x.json", "--unit", unit)
    assert result.exit_code == 1 and f"unit id {unit!r}: letters, digits, - or _ only" in result.output
    assert list(tmp_path.rglob("*.json")) == []


def test_make_provision_refuses_a_bad_unit_id(root, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["BIDWIRE_ROOT"] = str(root)
    proc = subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "provision", "UNIT=bad id!",
                           "COLLECTOR=http://10.0.0.2:8080", f"OUT={tmp_path / 'units' / 'bad id!.json'}",
                           f"KEYRING={tmp_path / 'keyring.json'}"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode != 0 and "unit id 'bad id!'" in proc.stderr
    assert not (tmp_path / "units").exists() and not (tmp_path / "keyring.json").exists()


def test_the_default_pin_and_no_wifi_are_warned(root, tmp_path):
    result = provision(root, tmp_path / "T01.json")
    assert result.exit_code == 0, result.output
    warned = [line for line in result.output.splitlines() if line.startswith("warning: ")]
    assert len(warned) == 2
    assert "default 1234" in warned[0] and "TD_PIN=" in warned[0]
    assert "no Wi-Fi set" in warned[1] and "WIFI_SSID=" in warned[1]
    result = provision(root, tmp_path / "T02.json", "--unit", "T02", "--td-pin", "7351", "--wifi-ssid", "club")
    assert result.exit_code == 0, result.output
    assert "warning:" not in result.output
