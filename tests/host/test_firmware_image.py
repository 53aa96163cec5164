"""`make firmware` (issue 13, build item 4): the ESP32 image with the unit frozen in, through MicroPython v1.28.0's
ports/esp32 build with ESP-IDF — the exact commands of a dry run, the message without ESP-IDF or without a full
MicroPython checkout, and what the board manifests freeze (read by MicroPython's own manifest tool).

ESP-IDF and a full MicroPython checkout are not on this machine: the dry runs are given stand-in trees with the
files the checks read (MicroPython's py/mpconfig.h and ports/esp32/Makefile, ESP-IDF's export.sh and
tools/cmake/version.cmake), holding the versions the real trees hold.
"""
import os
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from bidwire_host.cli import main

REPO = Path(__file__).resolve().parents[2]
SUBSET = REPO.parent / "shared" / "micropython" / "micropython-1.28.0-unix-subset.tar.gz"


def micropython_checkout(path, version=(1, 28, 0)):
    (path / "py").mkdir(parents=True)
    major, minor, micro = version
    (path / "py" / "mpconfig.h").write_text(f"#define MICROPY_VERSION_MAJOR {major}\n"
                                            f"#define MICROPY_VERSION_MINOR {minor}\n"
                                            f"#define MICROPY_VERSION_MICRO {micro}\n")
    (path / "ports" / "esp32").mkdir(parents=True)
    (path / "ports" / "esp32" / "Makefile").write_text("# MicroPython's ports/esp32 Makefile\n")
    return path


def esp_idf(path, version=(5, 5, 1), export=""):
    (path / "tools" / "cmake").mkdir(parents=True)
    (path / "tools" / "cmake" / "version.cmake").write_text(
        "".join(f"set(IDF_VERSION_{part} {n})\n" for part, n in zip(("MAJOR", "MINOR", "PATCH"), version, strict=True)))
    (path / "export.sh").write_text(export)
    return path


def make(*args, env_drop=("IDF_PATH", "MICROPY_SRC")):
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", *env_drop)}
    return subprocess.run(["make", "--no-print-directory", *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)


def test_make_firmware_dry_run_prints_the_exact_build(tmp_path):
    src = micropython_checkout(tmp_path / "micropython")
    idf = esp_idf(tmp_path / "esp-idf")
    proc = make("firmware", "BOARD=esp32_devkitc", "DRY_RUN=1", f"MICROPY_SRC={src}", f"IDF_PATH={idf}")
    assert proc.returncode == 0, proc.stderr
    commands = [line for line in proc.stdout.splitlines() if not line.startswith("#")]
    # ports/esp32/README.md at v1.28.0: ESP-IDF's environment, mpy-cross, the port's submodules, then `make` with
    # BOARD (and the frozen manifest, ports/esp32/Makefile's FROZEN_MANIFEST) — the image left in BUILD.
    assert commands == [
        f". {idf}/export.sh",
        f"make -C {src}/mpy-cross",
        f"make -C {src}/ports/esp32 BOARD=ESP32_GENERIC submodules",
        f"make -C {src}/ports/esp32 BOARD=ESP32_GENERIC BUILD={REPO}/build/firmware/esp32_devkitc "
        f"FROZEN_MANIFEST={REPO}/boards/manifests/esp32_devkitc.py",
    ]
    assert f"# the image: {REPO}/build/firmware/esp32_devkitc/firmware.bin" in proc.stdout
    assert "at 0x1000 with esptool --chip esp32" in proc.stdout  # ESP32_GENERIC's board.json: flash_offset 0x1000
    assert "not ready" not in proc.stdout


def test_s3_dry_run_with_a_variant(tmp_path):
    src = micropython_checkout(tmp_path / "micropython")
    idf = esp_idf(tmp_path / "esp-idf", (5, 4, 2))
    result = CliRunner().invoke(main, ["firmware", "--board", "esp32_s3", "--variant", "SPIRAM_OCT", "--dry-run",
                                       "--micropython-src", str(src), "--idf-path", str(idf)])
    assert result.exit_code == 0, result.output
    assert (f"make -C {src}/ports/esp32 BOARD=ESP32_GENERIC_S3 BOARD_VARIANT=SPIRAM_OCT BUILD={REPO}/build/firmware/"
            f"esp32_s3-SPIRAM_OCT FROZEN_MANIFEST={REPO}/boards/manifests/esp32_s3.py") in result.output.splitlines()
    assert "at 0x0 with esptool --chip esp32s3" in result.output  # the S3's bootloader is at 0 (board.json)


def test_dry_run_without_the_tools_still_prints_the_commands_and_says_what_is_missing():
    proc = make("firmware", "BOARD=esp32_s3", "DRY_RUN=1")  # make's MICROPY_SRC: the unix-port subset (make mp32)
    assert proc.returncode == 0, proc.stderr
    assert ". $IDF_PATH/export.sh" in proc.stdout.splitlines()
    assert f"make -C {REPO}/build/micropython-1.28.0/ports/esp32 BOARD=ESP32_GENERIC_S3 submodules" \
        in proc.stdout.splitlines()
    assert "# not ready yet: IDF_PATH is not set" in proc.stdout
    assert "# not ready yet: MICROPY_SRC=build/micropython-1.28.0 " in proc.stdout
    assert "a full checkout of MicroPython v1.28.0" in proc.stdout
    result = CliRunner().invoke(main, ["firmware", "--board", "esp32_s3", "--dry-run"], env={"MICROPY_SRC": None})
    assert "make -C $MICROPY_SRC/mpy-cross" in result.output.splitlines()
    assert "# not ready yet: MICROPY_SRC is not set" in result.output


def test_without_esp_idf_make_firmware_stops_and_says_what_to_install(tmp_path):
    src = micropython_checkout(tmp_path / "micropython")
    proc = make("firmware", "BOARD=esp32_devkitc", f"MICROPY_SRC={src}")
    assert proc.returncode != 0
    assert "make firmware cannot build the ESP32 image" in proc.stderr
    assert "IDF_PATH is not set: install ESP-IDF v5.5.1, the version MicroPython v1.28.0 recommends" in proc.stderr
    assert "v5.3, v5.4, v5.4.1 and v5.4.2" in proc.stderr and "IDF_PATH=" in proc.stderr  # where to point
    assert "MICROPY_SRC" not in proc.stderr  # the checkout given is a good one
    assert "make -C" not in proc.stdout  # nothing ran


def test_the_unix_subset_is_not_enough_and_the_message_says_so(tmp_path):
    result = CliRunner().invoke(main, ["firmware", "--board", "esp32_devkitc", "--micropython-src", str(SUBSET),
                                       "--idf-path", str(esp_idf(tmp_path / "esp-idf"))])
    assert result.exit_code == 1
    assert "unix-port subset, which has no ports/esp32" in result.output
    assert "a full checkout of MicroPython v1.28.0 (git clone -b v1.28.0" in result.output
    unpacked = tmp_path / "subset"
    result = CliRunner().invoke(main, ["firmware", "--board", "esp32_devkitc", "--micropython-src", str(unpacked)])
    assert result.exit_code == 1 and f"MICROPY_SRC={unpacked} does not exist" in result.output
    (unpacked / "ports" / "unix").mkdir(parents=True)
    result = CliRunner().invoke(main, ["firmware", "--board", "esp32_devkitc", "--micropython-src", str(unpacked)])
    assert result.exit_code == 1 and f"MICROPY_SRC={unpacked} has no ports/esp32" in result.output


@pytest.mark.parametrize("mp,idf,message", [
    ((1, 29, 0), (5, 5, 1), "is MicroPython 1.29.0, not 1.28.0: check out tag v1.28.0"),
    ((1, 28, 0), (5, 2, 0), "is ESP-IDF v5.2.0, which MicroPython v1.28.0 does not build with"),
    ((1, 28, 0), (6, 0, 0), "is ESP-IDF v6.0.0, which MicroPython v1.28.0 does not build with"),
])
def test_versions_other_than_the_supported_ones_are_refused(tmp_path, mp, idf, message):
    src = micropython_checkout(tmp_path / "micropython", mp)
    result = CliRunner().invoke(main, ["firmware", "--board", "esp32_devkitc", "--micropython-src", str(src),
                                       "--idf-path", str(esp_idf(tmp_path / "esp-idf", idf))])
    assert result.exit_code == 1 and message in result.output


def test_unknown_variant_lists_the_boards_variants():
    result = CliRunner().invoke(main, ["firmware", "--board", "esp32_devkitc", "--variant", "SPIRAM_OCT", "--dry-run"])
    assert result.exit_code == 1
    assert ("board esp32_devkitc (ESP32_GENERIC) has no variant 'SPIRAM_OCT': SPIRAM, D2WD, UNICORE, OTA"
            in result.output)


def test_the_build_runs_in_esp_idfs_environment_without_the_callers_make_flags(tmp_path):
    """The lines run as printed, in one shell after export.sh (here a stand-in whose `make` records its arguments
    and leaves an image where MicroPython's would be), and the outer make's BOARD/PORT do not reach the inner ones."""
    fake_bin = tmp_path / "idf-bin"
    fake_bin.mkdir()
    log = tmp_path / "make.log"
    recorder = fake_bin / "make"
    recorder.write_text(f"""#!{sys.executable}
import os, sys
with open({str(log)!r}, "a") as f:
    f.write(" ".join(sys.argv[1:]) + " | MAKEFLAGS=" + os.environ.get("MAKEFLAGS", "") + "\\n")
build = [a[6:] for a in sys.argv if a.startswith("BUILD=")]
if build:
    os.makedirs(build[0], exist_ok=True)
    open(os.path.join(build[0], "firmware.bin"), "wb").write(b"\\xe9" * 4096)
""")
    recorder.chmod(recorder.stat().st_mode | stat.S_IXUSR)
    idf = esp_idf(tmp_path / "esp-idf", export=f'export PATH="{fake_bin}:$PATH"\n')
    src = micropython_checkout(tmp_path / "micropython")
    root = tmp_path / "checkout"
    (root / "boards" / "manifests").mkdir(parents=True)
    (root / "boards" / "manifests" / "esp32_devkitc.py").write_text("# stand-in\n")
    env = dict(os.environ, MAKEFLAGS=" -- BOARD=esp32_devkitc PORT=/dev/ttyUSB0")
    proc = subprocess.run([sys.executable, "-m", "bidwire_host.cli", "firmware", "--root", str(root), "--board",
                           "esp32_devkitc", "--micropython-src", str(src), "--idf-path", str(idf)],
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert log.read_text().splitlines() == [
        f"-C {src}/mpy-cross | MAKEFLAGS=",
        f"-C {src}/ports/esp32 BOARD=ESP32_GENERIC submodules | MAKEFLAGS=",
        f"-C {src}/ports/esp32 BOARD=ESP32_GENERIC BUILD={root}/build/firmware/esp32_devkitc "
        f"FROZEN_MANIFEST={root}/boards/manifests/esp32_devkitc.py | MAKEFLAGS=",
    ]
    assert f"the image: {root}/build/firmware/esp32_devkitc/firmware.bin (4,096 bytes)" in proc.stdout


def test_a_failed_build_is_reported(tmp_path):
    idf = esp_idf(tmp_path / "esp-idf", export="echo 'idf.py: not installed: run install.sh' >&2; false\n")
    result = CliRunner().invoke(main, ["firmware", "--board", "esp32_devkitc", "--idf-path", str(idf),
                                       "--micropython-src", str(micropython_checkout(tmp_path / "micropython"))])
    assert result.exit_code == 1 and "the ESP32 build failed (exit 1)" in result.output


def _manifest_tool(tmp_path):
    """MicroPython v1.28.0's own tools/manifestfile.py and extmod/asyncio, from the archive beside the repository."""
    out = tmp_path / "mp"
    with tarfile.open(SUBSET) as tar:
        top = tar.getnames()[0].split("/")[0]
        members = [m for m in tar.getmembers()
                   if m.name == f"{top}/tools/manifestfile.py" or m.name.startswith(f"{top}/extmod/asyncio/")]
        tar.extractall(out, members=members, filter="data")
    sys.path.insert(0, str(out / top / "tools"))
    try:
        import manifestfile
    finally:
        sys.path.pop(0)
    return manifestfile, out / top


@pytest.mark.parametrize("board,other", [("esp32_devkitc", "esp32_s3"), ("esp32_s3", "esp32_devkitc")])
def test_board_manifest_freezes_the_unit_and_its_own_board_only(tmp_path, board, other):
    manifestfile, mpy_dir = _manifest_tool(tmp_path)
    port = tmp_path / "ports" / "esp32"  # the port's manifest is not in the subset: a stand-in with one module
    (port / "boards").mkdir(parents=True)
    (port / "boards" / "manifest.py").write_text('module("_boot.py", base_path="..")\n')
    (port / "_boot.py").write_text("")
    lib = tmp_path / "micropython-lib"  # and micropython-lib's ssd1306 package, laid out as there
    driver = lib / "micropython" / "drivers" / "display" / "ssd1306"
    driver.mkdir(parents=True)
    (driver / "manifest.py").write_text('module("ssd1306.py")\n')
    (driver / "ssd1306.py").write_text("")
    m = manifestfile.ManifestFile(manifestfile.MODE_FREEZE, {"MPY_DIR": str(mpy_dir), "MPY_LIB_DIR": str(lib),
                                                             "PORT_DIR": str(port), "BOARD_DIR": str(port)})
    m.execute(str(REPO / "boards" / "manifests" / f"{board}.py"))
    targets = [f.target_path for f in m.files()]
    frozen = set(targets)
    assert len(frozen) == len(targets), "a module frozen twice"  # mpy-tool would name two C symbols alike
    unit = {str(p.relative_to(REPO / "firmware")) for p in (REPO / "firmware" / "bidwire").rglob("*.py")}
    assert unit <= frozen
    assert {"main.py", "_boot.py", "ssd1306.py", "boards/__init__.py", "boards/_expander_unit.py",
            f"boards/{board}.py"} <= frozen  # main.py: the ESP32 runs a frozen main.py at boot, before /main.py
    assert not {f"boards/{other}.py", "boards/unix_sim.py"} & frozen
    assert not [f for f in frozen if f.startswith("boards/sim/") or "manifest" in f]
