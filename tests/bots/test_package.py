"""The package's API: each name loads its module on first use and is that module's own object."""

from __future__ import annotations

import pytest

import bots
from bots import play, strategy, tables


def test_every_name_of_the_api_is_its_modules_object() -> None:
    # The first module that has it, as the package looks: ``ready`` is strategy's, which wraps the tables' own.
    homes: dict[str, object] = {}
    for module in (strategy, play, tables):
        for name in vars(module):
            homes.setdefault(name, module)
    for name in bots.__all__:
        assert getattr(bots, name) is getattr(homes[name], name), name
    assert set(bots.__all__) <= set(dir(bots))
    assert bots.tables is tables and bots.painted.card_of is not None


def test_a_name_the_package_does_not_have_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'solve_everything'"):
        bots.solve_everything  # noqa: B018
    assert not hasattr(bots, "numpy")
