"""`bidwire deploy` and `make deploy` (docs/deploy.md), the stock path (--stock: .mpy files onto MicroPython as
released): the image on the unit, the mpremote steps, bad input. The frozen path is in test_deploy_frozen.py.

Each test builds from its own checkout in tmp_path: a copy of the real firmware package, a stand-in main.py and
two boards, so the layout checked here does not move while the real boards and entry points are written.
A fake `mpremote` on PATH (a script that logs its argv) stands in for the unit.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bidwire_host.cli import main

REPO = Path(__file__).resolve().parents[2]
SECRET = "ab" * 32

FAKE_MPREMOTE = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["FAKE_MPREMOTE_LOG"], "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
fail = os.environ.get("FAKE_MPREMOTE_FAIL")
if fail and fail in " ".join(sys.argv[1:]):
    sys.stderr.write("mpremote: failed to access /dev/ttyUSB0 (it may be in use by another program)\\n")
    sys.exit(1)
"""


@pytest.fixture
def root(tmp_path):
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "firmware" / "bidwire", checkout / "firmware" / "bidwire",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (checkout / "firmware" / "main.py").write_text("import bidwire\n")
    (checkout / "boards").mkdir()
    (checkout / "boards" / "esp32_devkitc.py").write_text('NAME = "esp32_devkitc"\n')
    (checkout / "boards" / "unix_sim.py").write_text('NAME = "unix_sim"\n')
    return checkout


@pytest.fixture
def fake_mpremote(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "mpremote"
    tool.write_text(FAKE_MPREMOTE)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "mpremote.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_MPREMOTE_LOG", str(log))

    def calls():
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return calls


def write_config(tmp_path, **changes):
    cfg = {"unit": "T01", "secret": SECRET, "collector": "http://192.168.4.2:8080", "board": "esp32_devkitc"}
    cfg.update(changes)
    path = tmp_path / "T01.json"
    path.write_text(json.dumps(cfg))
    return path


def deploy(root, config, *extra):
    args = ["deploy", "--root", str(root), "--port", "/dev/ttyUSB0", "--config", str(config), "--stock", *extra]
    return CliRunner().invoke(main, args)


def test_image_mirrors_the_device_layout(root, tmp_path):
    result = deploy(root, write_config(tmp_path), "--board", "esp32_devkitc", "--dry-run")
    assert result.exit_code == 0, result.output
    image = root / "build" / "deploy" / "esp32_devkitc"
    assert (image / "lib" / "bidwire" / "core" / "calls.mpy").is_file()
    assert (image / "lib" / "bidwire" / "unit" / "config.mpy").is_file()
    assert (image / "lib" / "boards" / "esp32_devkitc.mpy").is_file()
    assert not (image / "lib" / "boards" / "unix_sim.mpy").exists()  # only the chosen board goes on the unit
    assert (image / "main.py").read_text() == "import bidwire\n"  # MicroPython runs main.py only as source
    assert not (image / "lib" / "main.mpy").exists() and not (image / "boot.py").exists()
    assert not list((image / "lib").rglob("*.py"))
    assert (image / "lib" / "bidwire" / "core" / "calls.mpy").read_bytes()[:1] == b"M"  # .mpy header


def test_image_imports_on_micropython_as_main_py_does(root, tmp_path):
    """The unit's sys.path has /lib: the config module and boards.<board> load from the .mpy files."""
    config = write_config(tmp_path)
    assert deploy(root, config, "--dry-run").exit_code == 0
    lib = root / "build" / "deploy" / "esp32_devkitc" / "lib"
    script = (f"import sys; sys.path.insert(0, '{lib}'); from bidwire.unit import config; "
              f"cfg = config.load('{config}'); name = cfg['board']; "
              "print(cfg['unit'], getattr(__import__('boards.' + name), name).NAME, config.__file__)")
    proc = subprocess.run([str(Path(sys.executable).parent / "micropython"), "-c", script], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split()[:2] == ["T01", "esp32_devkitc"] and proc.stdout.split()[2].endswith("config.mpy")


def test_dry_run_prints_every_device_command_and_runs_none(root, tmp_path, fake_mpremote):
    config = write_config(tmp_path)
    result = deploy(root, config, "--dry-run")
    assert result.exit_code == 0, result.output
    commands = [line for line in result.output.splitlines() if not line.startswith("#")]
    lib = root / "build" / "deploy" / "esp32_devkitc" / "lib"
    mpremote = commands[0].split()[0]
    assert commands == [f"{mpremote} connect /dev/ttyUSB0 {rest}" for rest in [
        "mip install --target /lib ssd1306", f"fs cp -r {lib / 'bidwire'} {lib / 'boards'} :/lib",
        f"fs cp {lib.parent / 'main.py'} :/main.py", f"fs cp {config} :/config.json", "reset"]]
    assert fake_mpremote() == []
    assert SECRET not in result.output


def test_deploy_runs_the_steps_in_order(root, tmp_path, fake_mpremote):
    (root / "firmware" / "boot.py").write_text("# boot\n")
    config = write_config(tmp_path)
    result = deploy(root, config)
    assert result.exit_code == 0, result.output
    image = root / "build" / "deploy" / "esp32_devkitc"
    port = ["connect", "/dev/ttyUSB0"]
    assert fake_mpremote() == [
        port + ["mip", "install", "--target", "/lib", "ssd1306"],
        port + ["fs", "cp", "-r", str(image / "lib" / "bidwire"), str(image / "lib" / "boards"), ":/lib"],
        port + ["fs", "cp", str(image / "main.py"), ":/main.py"],
        port + ["fs", "cp", str(image / "boot.py"), ":/boot.py"],
        port + ["fs", "cp", str(config), ":/config.json"],
        port + ["reset"],
    ]
    assert "unit T01 deployed" in result.output


def test_failing_step_stops_the_deploy_and_says_which(root, tmp_path, fake_mpremote, monkeypatch):
    monkeypatch.setenv("FAKE_MPREMOTE_FAIL", "cp -r")
    result = deploy(root, write_config(tmp_path))
    assert result.exit_code == 1
    assert "step 2/5 (copy the firmware into /lib) failed: mpremote exited with 1" in result.output
    assert "failed to access /dev/ttyUSB0" in result.output  # mpremote's own stderr
    assert [argv[2] for argv in fake_mpremote()] == ["mip", "fs"]  # nothing after the failed step, no reset


def test_missing_mpremote_is_a_clear_error(root, tmp_path):
    result = deploy(root, write_config(tmp_path), "--mpremote", str(tmp_path / "no-such-mpremote"))
    assert result.exit_code == 1
    assert "step 1/5 (install the SSD1306 display driver into /lib)" in result.output and "not found" in result.output


@pytest.mark.parametrize("changes,message", [
    ({"secret": "abc"}, "config 'secret'"),
    ({"unit": ""}, "config 'unit'"),
    ({"collector": "https://collector"}, "config 'collector'"),
    ({"td_pin": "1289"}, "config 'td_pin'"),
])
def test_invalid_config_is_refused_before_anything_is_built(root, tmp_path, changes, message):
    result = deploy(root, write_config(tmp_path, **changes), "--dry-run")
    assert result.exit_code == 1
    assert message in result.output and "T01.json" in result.output
    assert not (root / "build").exists()


def test_config_that_is_not_json(root, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{unit: T01")
    result = deploy(root, bad, "--dry-run")
    assert result.exit_code == 1 and "not valid JSON" in result.output


def test_board_mismatch_is_refused(root, tmp_path):
    result = deploy(root, write_config(tmp_path), "--board", "unix_sim", "--dry-run")
    assert result.exit_code == 1
    assert "is for board 'esp32_devkitc', not 'unix_sim'" in result.output
    assert not (root / "build").exists()


def test_unknown_board_lists_the_known_ones(root, tmp_path):
    result = deploy(root, write_config(tmp_path, board="esp32_c6"), "--board", "esp32_c6", "--dry-run")
    assert result.exit_code == 1
    assert "unknown board 'esp32_c6': no boards/esp32_c6.py (known: esp32_devkitc, unix_sim)" in result.output


def test_board_name_cannot_leave_boards(root, tmp_path):
    (root / "evil.py").write_text("")
    result = deploy(root, write_config(tmp_path, board="../evil"), "--dry-run")
    assert result.exit_code == 1 and "unknown board '../evil'" in result.output


def test_firmware_that_does_not_compile_is_not_deployed(root, tmp_path, fake_mpremote):
    (root / "firmware" / "bidwire" / "unit" / "broken.py").write_text("def f(:\n")
    result = deploy(root, write_config(tmp_path))
    assert result.exit_code == 1
    assert "mpy-cross rejected" in result.output and "broken.py" in result.output
    assert fake_mpremote() == []


def test_make_deploy_dry_run(root, tmp_path):
    config = write_config(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}  # as typed
    env["BIDWIRE_ROOT"] = str(root)
    proc = subprocess.run(["make", "--no-print-directory", "deploy", "PORT=/dev/ttyUSB7", f"CONFIG={config}",
                           "BOARD=esp32_devkitc", "STOCK=1", "DRY_RUN=1"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "--dry-run" in out
    assert f"{root / 'build' / 'deploy' / 'esp32_devkitc'}" in out  # where mpy-cross put the image
    assert ".venv/bin/mpremote connect /dev/ttyUSB7 mip install --target /lib ssd1306" in out
    assert f"connect /dev/ttyUSB7 fs cp {config} :/config.json" in out
    assert "connect /dev/ttyUSB7 reset" in out


def test_make_deploy_names_a_missing_variable():
    proc = subprocess.run(["make", "--no-print-directory", "deploy", "PORT=/dev/ttyUSB0"], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "make deploy: set CONFIG" in proc.stderr


def test_stock_without_a_psram_variant_warns_that_it_may_not_fit(root, tmp_path, fake_mpremote):
    """Issue 26 item 10: docs/deploy.md says a board without PSRAM would not run stock firmware reliably; the
    deploy said nothing. The host cannot see the module, so only VARIANT=SPIRAM (SPIRAM_OCT on an S3) silences it."""
    config = write_config(tmp_path)
    warned = [line for line in deploy(root, config, "--dry-run").output.splitlines() if "without PSRAM" in line]
    assert len(warned) == 1 and warned[0].startswith("# warning:") and "VARIANT=SPIRAM" in warned[0]
    result = deploy(root, config, "--dry-run", "--variant", "SPIRAM")
    assert result.exit_code == 0, result.output
    assert "without PSRAM" not in result.output
