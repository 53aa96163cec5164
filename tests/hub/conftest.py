import tempfile

import pytest
from hubkit import Hub, Pg


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
