"""The disk cache: ready(), load without building, TableNotReady, file naming."""

from __future__ import annotations

import numpy as np
import pytest

from bots import tables
from games.domain.rules import OFFICIAL, TRIPLE


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(tables.CACHE_ENV, str(tmp_path))
    saved = dict(tables._tables)
    tables.forget()
    yield tmp_path
    tables._tables.update(saved)


def test_default_cache_dir(monkeypatch) -> None:
    monkeypatch.delenv(tables.CACHE_ENV, raising=False)
    assert tables.cache_dir().parts[-2:] == ("var", "bots")


def test_missing_table_is_not_built_on_request(empty_cache) -> None:
    assert not tables.ready(OFFICIAL)
    assert not tables.ready("triple")
    with pytest.raises(tables.TableNotReady):
        tables.table(OFFICIAL, build=False)
    assert list(empty_cache.iterdir()) == []


def test_saved_table_loads(empty_cache, solved) -> None:
    path = tables.cache_path(OFFICIAL)
    assert path.parent == empty_cache
    tables._save(solved["official"].values, path)
    assert tables.ready(OFFICIAL)
    # Triple's column scores like official: same file.
    assert tables.cache_path(TRIPLE) == path and tables.ready(TRIPLE)
    loaded = tables.table(OFFICIAL, build=False)
    assert loaded is not solved["official"]
    assert np.array_equal(loaded.values, solved["official"].values)
    assert tables.table("official", build=False) is loaded


def test_corrupt_file_is_ignored(empty_cache) -> None:
    path = tables.cache_path(OFFICIAL)
    path.write_bytes(b"not a table")
    with pytest.raises(tables.TableNotReady):
        tables.table(OFFICIAL, build=False)
