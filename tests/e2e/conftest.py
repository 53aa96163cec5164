import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/collector_proc.py

import vunit  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def unit_build():
    vunit.build()
