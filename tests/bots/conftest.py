"""Solved tables for the bot tests: built once into the disk cache, then loaded (no database).

The cache is the default one (``var/bots/`` or ``$YAHTZEE_BOT_CACHE``): the first run builds
every table (about half a minute on two cores), later runs load them in milliseconds.
"""

from __future__ import annotations

import dataclasses

import pytest

from bots import tables
from bots.solver import Table
from games.domain.rules import FREE_JOKER, OFFICIAL, YATZY, YETI, JokerMode

# Neither Yahtzee bonus nor joker, otherwise official (yeti also counts five of a kind as a Full House).
NO_BONUS = dataclasses.replace(OFFICIAL, name="no_bonus", label="No bonus", yahtzee_bonus=0, joker=JokerMode.NONE)
EXACT = (OFFICIAL, FREE_JOKER, YETI, YATZY, NO_BONUS)


@pytest.fixture(scope="session", autouse=True)
def solved() -> dict[str, Table]:
    """Every exactly solved rule set of the tests, by name."""
    tables.build_all(EXACT)
    return {rs.name: tables.table(rs) for rs in EXACT}
