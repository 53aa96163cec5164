"""`make deploy` for a board without PSRAM (docs/deploy.md, issue 13 build item 4): esptool flashes the image of
`make firmware` (the unit frozen in), then mpremote writes the unit's config and resets it.

Fake `esptool` and `mpremote` on PATH (scripts that log their argv) stand in for the unit; the image is a
stand-in file where `make firmware` leaves the real one.
"""
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bidwire_host.cli import main

REPO = Path(__file__).resolve().parents[2]
SECRET = "cd" * 32

FAKE_TOOL = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["FAKE_TOOL_LOG"], "a") as f:
    f.write(json.dumps([os.path.basename(sys.argv[0])] + sys.argv[1:]) + "\\n")
fail = os.environ.get("FAKE_TOOL_FAIL")
if fail and fail == os.path.basename(sys.argv[0]):
    sys.stderr.write("A fatal error occurred: Could not open /dev/ttyUSB0, the port is busy or doesn't exist.\\n")
    sys.exit(2)
"""


@pytest.fixture
def root(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "firmware" / "bidwire").mkdir(parents=True)
    (checkout / "firmware" / "main.py").write_text("import bidwire\n")
    (checkout / "boards").mkdir()
    for board in ("esp32_devkitc", "esp32_s3", "unix_sim"):
        (checkout / "boards" / f"{board}.py").write_text(f'NAME = "{board}"\n')
    return checkout


@pytest.fixture
def tools(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("esptool", "mpremote"):
        tool = bin_dir / name
        tool.write_text(FAKE_TOOL)
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "tools.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_TOOL_LOG", str(log))

    def calls():
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return calls


def write_config(tmp_path, board="esp32_devkitc"):
    path = tmp_path / "T07.json"
    path.write_text(json.dumps({"unit": "T07", "secret": SECRET, "collector": "http://192.168.4.2:8080",
                                "board": board}))
    return path


def built_image(root, board="esp32_devkitc", variant=None):
    image = root / "build" / "firmware" / (f"{board}-{variant}" if variant else board) / "firmware.bin"
    image.parent.mkdir(parents=True)
    image.write_bytes(b"\xe9" + bytes(4095))  # an ESP image starts with 0xE9
    return image


def deploy(root, config, *extra):
    return CliRunner().invoke(main, ["deploy", "--root", str(root), "--port", "/dev/ttyUSB0", "--config", str(config),
                                     *extra])


def test_deploy_flashes_the_image_then_writes_the_config(root, tmp_path, tools):
    image = built_image(root)
    config = write_config(tmp_path)
    result = deploy(root, config)
    assert result.exit_code == 0, result.output
    # MicroPython's ESP32_GENERIC: firmware.bin (bootloader, partitions, app) from 0x1000, at 460800 baud
    assert tools() == [
        ["esptool", "--chip", "esp32", "--port", "/dev/ttyUSB0", "--baud", "460800", "write-flash", "0x1000",
         str(image)],
        ["mpremote", "connect", "/dev/ttyUSB0", "fs", "cp", str(config), ":/config.json"],
        ["mpremote", "connect", "/dev/ttyUSB0", "reset"],
    ]
    assert "[1/3] flash the image at 0x1000" in result.output
    assert "unit T07 deployed (esp32_devkitc)" in result.output
    assert SECRET not in result.output
    assert not (root / "build" / "deploy").exists()  # nothing compiled to .mpy: the firmware is in the image


def test_s3_image_goes_at_0_and_a_variant_names_its_build(root, tmp_path, tools):
    image = built_image(root, "esp32_s3", "SPIRAM_OCT")
    result = deploy(root, write_config(tmp_path, "esp32_s3"), "--variant", "SPIRAM_OCT")
    assert result.exit_code == 0, result.output
    assert tools()[0] == ["esptool", "--chip", "esp32s3", "--port", "/dev/ttyUSB0", "--baud", "460800",
                          "write-flash", "0x0", str(image)]  # ESP32_GENERIC_S3's board.json: flash_offset 0


def test_dry_run_prints_the_exact_commands_and_runs_none(root, tmp_path, tools):
    config = write_config(tmp_path)
    result = deploy(root, config, "--dry-run")  # no image yet: a dry run still shows what would run
    assert result.exit_code == 0, result.output
    assert f"# not built yet: {root}/build/firmware/esp32_devkitc/firmware.bin (`make firmware BOARD=esp32_devkitc`)" \
        in result.output
    commands = [line for line in result.output.splitlines() if not line.startswith("#")]
    esptool, mpremote = commands[0].split()[0], commands[1].split()[0]
    assert commands == [
        f"{esptool} --chip esp32 --port /dev/ttyUSB0 --baud 460800 write-flash 0x1000 "
        f"{root}/build/firmware/esp32_devkitc/firmware.bin",
        f"{mpremote} connect /dev/ttyUSB0 fs cp {config} :/config.json",
        f"{mpremote} connect /dev/ttyUSB0 reset",
    ]
    assert tools() == []


def test_without_an_image_the_deploy_says_how_to_build_one(root, tmp_path, tools):
    result = deploy(root, write_config(tmp_path))
    assert result.exit_code == 1
    assert "no image at" in result.output and "build it with `make firmware BOARD=esp32_devkitc`" in result.output
    assert "STOCK=1" in result.output  # the other path, for boards with PSRAM
    assert tools() == []


def test_a_failed_flash_stops_before_the_config(root, tmp_path, tools, monkeypatch):
    built_image(root)
    monkeypatch.setenv("FAKE_TOOL_FAIL", "esptool")
    result = deploy(root, write_config(tmp_path))
    assert result.exit_code == 1
    assert "step 1/3 (flash the image at 0x1000) failed: esptool exited with 2" in result.output
    assert "Could not open /dev/ttyUSB0" in result.output  # esptool's own message
    assert [call[0] for call in tools()] == ["esptool"]


def test_an_image_older_than_the_firmware_is_flagged(root, tmp_path, tools):
    image = built_image(root)
    os.utime(image, (1_000_000_000, 1_000_000_000))
    result = deploy(root, write_config(tmp_path), "--dry-run")
    assert result.exit_code == 0
    assert "is newer than" in result.output and "`make firmware BOARD=esp32_devkitc` again" in result.output


def test_the_virtual_unit_has_no_image(root, tmp_path, tools):
    result = deploy(root, write_config(tmp_path, "unix_sim"))
    assert result.exit_code == 1 and "no ESP32 image for board 'unix_sim'" in result.output
    assert tools() == []


def test_make_deploy_dry_run_prints_the_flash_and_config_commands(tmp_path):
    config = write_config(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    proc = subprocess.run(["make", "--no-print-directory", "deploy", "PORT=/dev/ttyUSB3", f"CONFIG={config}",
                           "IMAGE=/tmp/unit-image.bin", "DRY_RUN=1"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert ".venv/bin/esptool --chip esp32 --port /dev/ttyUSB3 --baud 460800 write-flash 0x1000 /tmp/unit-image.bin" \
        in lines
    assert f".venv/bin/mpremote connect /dev/ttyUSB3 fs cp {config} :/config.json" in lines
    assert ".venv/bin/mpremote connect /dev/ttyUSB3 reset" in lines
