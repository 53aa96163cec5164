import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/collector_proc.py

import vunit  # noqa: E402
from hubkit import Hub, Pg  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def unit_build():
    vunit.build()


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A hub with two workers on a throwaway PostgreSQL cluster, one per test module (tests/hubkit.py)."""
    with Pg() as cluster:
        h = Hub(cluster.dsn, tmp_path_factory.mktemp("hub")).start()
        try:
            yield h
        finally:
            h.stop()
