import pytest
from collector_kit import write_keyring


@pytest.fixture
def data(tmp_path):
    """A collector's data directory holding the test units' keyring (tests/host/collector_kit.py)."""
    write_keyring(tmp_path / "keyring.json")
    return tmp_path
