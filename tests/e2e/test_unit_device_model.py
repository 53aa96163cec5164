"""The device model the unit's end-to-end tests run on (issue 13): MicroPython's unix port built 32-bit with the
whole firmware frozen in (`make mp32`), the virtual unit booted in a 48K heap with nothing on MICROPYPATH, and
the build made again when a firmware, board or manifest file changes, and only then."""
import os
import subprocess

import pytest
import vunit
from vunit import ROOT, VUnit, write_config

from bidwire_host.unit_tools.simulator import Runtime, UnitError, mpy_port

FIRMWARE = ROOT / "firmware"
MAKE_ENV = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


def frozen_names():
    """What the unit runs, named as frozen modules are (bidwire/unit/app): every firmware module, the entry point,
    the boards package and the virtual unit's board, and asyncio."""
    names = {p.relative_to(FIRMWARE).with_suffix("").as_posix() for p in (FIRMWARE / "bidwire").rglob("*.py")}
    return names | {"main", "boards/__init__", "boards/unix_sim", "asyncio/core"}


def test_the_build_is_32_bit_and_holds_the_whole_firmware(tmp_path):
    script = "import sys; print(sys.maxsize); help('modules')"
    proc = subprocess.run([str(vunit.RUNTIME.micropython), "-c", script], env=dict(os.environ, MICROPYPATH=".frozen"),
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    words = proc.stdout.split()
    assert int(words[0]) == 2**31 - 1  # 31-bit small ints and 4-byte pointers, as on the ESP32
    assert frozen_names() - set(words) == set()
    assert "bidwire/unit/manifest" not in words and "manifest" not in words  # the build's recipe is not frozen


def test_the_virtual_unit_boots_in_48k_with_nothing_on_its_path(tmp_path):
    assert vunit.RUNTIME.firmware is None and vunit.RUNTIME.heap == "48K"
    unit = VUnit(write_config(tmp_path / "unit.json", tmp_path / "state"))
    unit.send("N 1")
    unit.write("mem")
    mem = dict(w.split("=") for w in unit._expect("mem ").split()[1:])
    unit.write("quit")
    assert unit.finish() == 0
    assert int(mem["alloc"]) + int(mem["free"]) <= 48 * 1024  # the GC heap is the 48K cap (less its bookkeeping)


def test_a_config_beside_firmware_files_is_refused(tmp_path):
    """MicroPython imports from its working directory (the config's folder) before its frozen modules."""
    (tmp_path / "boards").mkdir()
    with pytest.raises(UnitError, match="holds boards"):
        VUnit(write_config(tmp_path / "unit.json", tmp_path / "state"))


def up_to_date(*pretend_changed):
    """`make -q mp32`, as if these files had just been edited (make -W): is the build left as it is?"""
    args = ["make", "-q", "mp32"] + [f"-W{p}" for p in pretend_changed]
    return subprocess.run(args, cwd=ROOT, env=MAKE_ENV, capture_output=True).returncode == 0


@pytest.mark.parametrize("changed", ["firmware/bidwire/core/auction.py", "firmware/bidwire/unit/app.py",
                                     "firmware/main.py", "boards/unix_sim.py", "boards/sim/machine.py",
                                     "firmware/manifest.py", "firmware/manifest_unit.py"])
def test_the_build_is_made_again_when_what_it_freezes_changes(changed):
    assert up_to_date() and not up_to_date(changed)


@pytest.mark.parametrize("changed", ["README.md", "docs/unit.md", "tests/e2e/session.py",
                                     "host_tools/bidwire_host/demo/club.py"])
def test_the_build_is_left_alone_when_anything_else_changes(changed):
    assert up_to_date(changed)


def test_firmware_as_mpy_files_is_reached_as_lib_as_on_a_device(tmp_path):
    """The bench's .mpy builds (Runtime lib=True): the firmware is imported from lib/ in the unit's folder, so each
    module's path, interned in the heap, is as long as on a device after `make deploy` (/lib/bidwire/...)."""
    built = mpy_port(ROOT, tmp_path / "mpy")
    runtime = Runtime(built.micropython, "160K", built.firmware, lib=True)
    folder = tmp_path / "unit"
    folder.mkdir()
    config = write_config(folder / "unit.json", folder / "state")
    argv, env, cwd = runtime.command(config)
    assert env["MICROPYPATH"] == ".frozen:lib" and (folder / "lib").resolve() == built.firmware
    script = "import bidwire.core.calls as m; print(m.__file__)"
    proc = subprocess.run([argv[0], "-c", script], env=env, cwd=cwd, capture_output=True, text=True, timeout=30)
    assert proc.stdout.split() == ["lib/bidwire/core/calls.mpy"], proc.stderr
    unit = VUnit(config, runtime=runtime)  # the link made by the first command is taken as it is
    unit.send("N 1")
    unit.write("quit")
    assert unit.finish() == 0
    (folder / "lib").unlink()
    (folder / "lib").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(UnitError, match="not to the firmware"):
        runtime.command(config)
