import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/hubkit.py

from hubkit import Hub, Pg  # noqa: E402


@pytest.fixture(scope="session")
def pg():
    with Pg() as cluster:
        yield cluster


@pytest.fixture(scope="module")
def hub(pg):
    with tempfile.TemporaryDirectory(prefix="bidwire-hub-") as folder:
        h = Hub(pg.dsn, folder).start()
        try:
            yield h
        finally:
            h.stop()
