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


def test_a_build_keeps_its_time_beside_the_tables_for_the_next_estimate(empty_cache, monkeypatch) -> None:
    assert tables.build_seconds(OFFICIAL) == tables.BUILD_SECONDS["official"]
    assert tables.build_seconds(TRIPLE) == tables.BUILD_SECONDS["triple"]
    times = iter([100.0, 103.25])
    monkeypatch.setattr(tables.time, "perf_counter", lambda: next(times))
    monkeypatch.setattr(tables, "build_values", lambda model, threads=1: np.zeros(model.shape))
    try:
        tables.table(OFFICIAL, build=True)
    finally:
        tables.forget()  # the zeros are no table for the other tests
    assert (empty_cache / tables.TIMES_FILE).exists()
    assert tables.build_seconds(OFFICIAL) == 3.2  # kept to a tenth
    assert tables.build_seconds(TRIPLE) == 3.2  # the same table
    assert tables.build_seconds("yatzy") == tables.BUILD_SECONDS["yatzy"]


def test_a_damaged_times_file_falls_back_to_the_defaults(empty_cache) -> None:
    (empty_cache / tables.TIMES_FILE).write_text("{not json")
    assert tables.build_seconds(OFFICIAL) == tables.BUILD_SECONDS["official"]
    (empty_cache / tables.TIMES_FILE).write_text(f'{{"{tables.cache_path(OFFICIAL).stem}": "fast"}}')
    assert tables.build_seconds(OFFICIAL) == tables.BUILD_SECONDS["official"]
    (empty_cache / tables.TIMES_FILE).write_text("[1, 2]")
    assert tables.build_seconds(OFFICIAL) == tables.BUILD_SECONDS["official"]


def test_a_variant_rule_set_reads_its_own_model_not_the_presets(empty_cache) -> None:
    from dataclasses import replace

    assert tables._model(OFFICIAL) is tables._model("official")  # the presets' models are kept by name
    variant = replace(OFFICIAL, upper_bonus=50)  # same name, other scores
    assert tables._model(variant).fingerprint() != tables._model(OFFICIAL).fingerprint()
    assert tables.cache_path(variant) != tables.cache_path(OFFICIAL)
    assert tables.build_seconds(replace(variant, name="house")) == tables.UNKNOWN_BUILD_SECONDS
