"""`bidwire firmware` (`make firmware`): the ESP32 image with the unit's firmware frozen in, built by MicroPython's
own ports/esp32 build (ESP-IDF, idf.py) from a full checkout of MicroPython v1.28.0 — and what `bidwire deploy`
needs to flash it (the chip and the offset the image goes to).

The frozen modules are named by boards/manifests/<board>.py, in MicroPython's manifest form: the port's own
manifest, the unit (firmware/manifest_unit.py) and the board's modules. Frozen bytecode runs from flash, so the
heap is left to the unit's data (docs/benchmarks.md). The build is four shell lines (ESP-IDF's export.sh, then
MicroPython's `make`s as its ports/esp32/README.md gives them), printed before they run, and all a dry run prints.
"""
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import NamedTuple

MICROPYTHON = (1, 28, 0)
MICROPYTHON_TAG = "v1.28.0"
# ports/esp32/README.md at v1.28.0: "The current recommended version of ESP-IDF for MicroPython is v5.5.1.
# MicroPython also supports v5.3, v5.4, v5.4.1 and v5.4.2."
IDF_RECOMMENDED = "v5.5.1"
IDF_SUPPORTED = ((5, 3), (5, 5))  # oldest and newest major.minor


class Esp32Board(NamedTuple):
    micropython: str  # the board in MicroPython's ports/esp32/boards/
    chip: str  # esptool's --chip
    flash_offset: str  # where firmware.bin (bootloader, partition table, app) goes: the board's board.json
    variants: tuple  # BOARD_VARIANT values the MicroPython board has (mpconfigvariant_*.cmake)


BOARDS = {
    "esp32_devkitc": Esp32Board("ESP32_GENERIC", "esp32", "0x1000", ("SPIRAM", "D2WD", "UNICORE", "OTA")),
    "esp32_s3": Esp32Board("ESP32_GENERIC_S3", "esp32s3", "0x0", ("SPIRAM_OCT",)),
}


class FirmwareError(Exception):
    """Something to install or fix before the image can be built; the message says what."""


def board(name):
    if name not in BOARDS:
        raise FirmwareError(f"no ESP32 image for board {name!r}: make firmware builds {', '.join(BOARDS)}")
    return BOARDS[name]


def build_dir(root, name, variant=None):
    return Path(root) / "build" / "firmware" / (f"{name}-{variant}" if variant else name)


def image_path(root, name, variant=None):
    """The image `make firmware` leaves and `make deploy` flashes."""
    return build_dir(root, name, variant) / "firmware.bin"


def manifest_path(root, name):
    return Path(root) / "boards" / "manifests" / f"{name}.py"


def _version_h(src):
    """MicroPython's version from py/mpconfig.h, or None."""
    try:
        text = (Path(src) / "py" / "mpconfig.h").read_text()
    except OSError:
        return None
    parts = [re.search(rf"#define MICROPY_VERSION_{p} (\d+)", text) for p in ("MAJOR", "MINOR", "MICRO")]
    return tuple(int(m.group(1)) for m in parts) if all(parts) else None


def _idf_version(idf):
    """ESP-IDF's (major, minor, patch) from tools/cmake/version.cmake, or None."""
    try:
        text = (Path(idf) / "tools" / "cmake" / "version.cmake").read_text()
    except OSError:
        return None
    parts = [re.search(rf"set\(IDF_VERSION_{p} (\d+)\)", text) for p in ("MAJOR", "MINOR", "PATCH")]
    return tuple(int(m.group(1)) for m in parts) if all(parts) else None


def _dotted(version):
    return ".".join(map(str, version))


def source_problem(src):
    """Why `src` cannot build an ESP32 image, or None."""
    get = (f"a full checkout of MicroPython {MICROPYTHON_TAG} (git clone -b {MICROPYTHON_TAG} "
           "https://github.com/micropython/micropython.git), given as MICROPY_SRC=<that folder>")
    if not src:
        return f"MICROPY_SRC is not set: the ESP32 build needs {get}"
    src = Path(src)
    if src.is_file():
        return (f"MICROPY_SRC={src} is an archive; the one beside the repository (shared/micropython/) is the "
                f"unix-port subset, which has no ports/esp32: the ESP32 build needs {get}")
    if not src.is_dir():
        return f"MICROPY_SRC={src} does not exist: the ESP32 build needs {get}"
    if not (src / "ports" / "esp32" / "Makefile").is_file():
        return (f"MICROPY_SRC={src} has no ports/esp32 (the unix-port subset in shared/micropython/ has none): "
                f"the ESP32 build needs {get}")
    found = _version_h(src)
    if found != MICROPYTHON:
        return (f"MICROPY_SRC={src} is MicroPython {_dotted(found) if found else '(version unknown)'}, not "
                f"{_dotted(MICROPYTHON)}: check out tag {MICROPYTHON_TAG} there (git -C {src} checkout "
                f"{MICROPYTHON_TAG}), the release the firmware is built and measured with")
    return None


def idf_problem(idf):
    """Why `idf` is not an ESP-IDF MicroPython v1.28.0 builds with, or None."""
    install = (f"install ESP-IDF {IDF_RECOMMENDED}, the version MicroPython {MICROPYTHON_TAG} recommends "
               f"(it also supports v5.3, v5.4, v5.4.1 and v5.4.2): git clone -b {IDF_RECOMMENDED} --recursive "
               "https://github.com/espressif/esp-idf.git ~/esp-idf && ~/esp-idf/install.sh esp32,esp32s3; "
               "then point IDF_PATH at it (make firmware ... IDF_PATH=~/esp-idf)")
    if not idf:
        return f"IDF_PATH is not set: {install}"
    if not (Path(idf) / "export.sh").is_file():
        return f"IDF_PATH={idf} has no export.sh, so it is not ESP-IDF: {install}"
    found = _idf_version(idf)
    if found is None or not IDF_SUPPORTED[0] <= found[:2] <= IDF_SUPPORTED[1]:
        return (f"IDF_PATH={idf} is ESP-IDF {'v' + _dotted(found) if found else '(version unknown)'}, which "
                f"MicroPython {MICROPYTHON_TAG} does not build with: {install}")
    return None


def commands(root, name, src, idf, variant=None):
    """The build, as the shell lines that run it: ESP-IDF's environment, mpy-cross, the port's submodules (among
    them micropython-lib, which the manifests' require() reads), then the image (ports/esp32/README.md)."""
    b = board(name)
    if variant is not None and variant not in b.variants:
        raise FirmwareError(f"board {name} ({b.micropython}) has no variant {variant!r}: "
                            f"{', '.join(b.variants)}, or none")
    src = Path(src).absolute() if src else "$MICROPY_SRC"
    idf = Path(idf).absolute() if idf else "$IDF_PATH"
    port = f"{src}/ports/esp32"
    board_args = [f"BOARD={b.micropython}"] + ([f"BOARD_VARIANT={variant}"] if variant else [])
    out = build_dir(root, name, variant).absolute()

    def q(word):  # placeholders stay expandable for a reader who pastes the lines
        return str(word) if str(word).startswith("$") else shlex.quote(str(word))
    return [
        f". {q(f'{idf}/export.sh')}",
        f"make -C {q(f'{src}/mpy-cross')}",
        f"make -C {q(port)} {' '.join(board_args)} submodules",
        f"make -C {q(port)} {' '.join(board_args)} BUILD={q(out)} "
        f"FROZEN_MANIFEST={q(manifest_path(root, name).absolute())}",
    ]


def build(root, name, src=None, idf=None, variant=None, dry_run=False, echo=print):
    """Build the image (or, dry, print how); return its path."""
    lines = commands(root, name, src, idf, variant)
    image = image_path(root, name, variant)
    problems = list(filter(None, (source_problem(src), idf_problem(idf))))
    if not manifest_path(root, name).is_file():
        problems.append(f"no {manifest_path(root, name)}: the board's frozen modules are listed there")
    b = board(name)
    if dry_run:
        echo(f"# make firmware BOARD={name}: MicroPython's {b.micropython}{'-' + variant if variant else ''} "
             f"build with the unit frozen in; dry run, none run")
        for problem in problems:
            echo(f"# not ready yet: {problem}")
        for line in lines:
            echo(line)
        echo(f"# the image: {image} (make deploy flashes it at {b.flash_offset} with esptool --chip {b.chip})")
        return image
    if problems:
        raise FirmwareError("make firmware cannot build the ESP32 image:\n" + "\n".join(f"- {p}" for p in problems))
    for line in lines:
        echo(line)
    # Not the caller's make flags: `make firmware BOARD=... PORT=...` would hand BOARD and PORT (the serial port, to
    # MicroPython's Makefile) to the inner makes through MAKEFLAGS.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    proc = subprocess.run(["bash", "-e", "-c", "\n".join(lines)], env=env)
    if proc.returncode != 0:
        raise FirmwareError(f"the ESP32 build failed (exit {proc.returncode}); its output above says where. "
                            "MicroPython's Build-Troubleshooting wiki page covers the usual causes")
    if not image.is_file():
        raise FirmwareError(f"the build ended without {image}")
    echo(f"the image: {image} ({image.stat().st_size:,} bytes); flash it with make deploy PORT=... CONFIG=...")
    return image
