import pytest


@pytest.fixture(autouse=True)
def _fresh(fresh_transport: None) -> None:
    """Every socket test leaves the transport as new (tests/conftest.py: ``fresh_transport``)."""
