"""Expected scores of the exact tables: published values and hand-computable end games."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bots import tables
from bots.solver import reachable_uppers
from games.domain.rules import FREE_JOKER, OFFICIAL, YATZY, YETI, Box

from .conftest import NO_BONUS


@pytest.mark.parametrize(
    ("ruleset", "expected"),
    [
        (OFFICIAL, 254.5877287),  # published optimal solitaire Yahtzee value
        (FREE_JOKER, 254.5896095),  # Verhoeff's free-choice joker value
        (NO_BONUS, 245.8707745),  # neither Yahtzee bonus nor joker
        # Regression values (no published reference for these exact rules):
        (YETI, 245.9047284),  # no bonus or joker, five of a kind also a Full House
        (YATZY, 248.4399894),  # Scandinavian Yatzy as games.domain.rules scores it
    ],
    ids=lambda x: getattr(x, "name", ""),
)
def test_start_value(ruleset, expected: float) -> None:
    table = tables.table(ruleset)
    assert table.start_value == pytest.approx(expected, abs=1e-6)
    # Re-solving the first turn from the stored table gives the same value.
    assert table.turn(0, 0, 0).value == pytest.approx(table.start_value, abs=1e-9)


@pytest.mark.parametrize("ruleset", [OFFICIAL, YATZY], ids=lambda r: r.name)
def test_turn_solution_matches_table(ruleset) -> None:
    table = tables.table(ruleset)
    model = table.model
    reach = reachable_uppers(model)
    upper = sum(1 << i for i, f in enumerate(model.upper_face) if f)
    rng = random.Random(3)
    for _ in range(40):
        mask = rng.getrandbits(model.n_boxes) & (model.full_mask - 1)
        up = int(rng.choice(reach[mask & upper]))
        flag = rng.randrange(model.flags) if mask >> model.yahtzee & 1 else 0
        assert table.turn(mask, up, flag).value == pytest.approx(table.value(mask, up, flag), abs=1e-9)


def _last_box(table, box: Box) -> int:
    return table.model.full_mask ^ table.model.bit(box)


def test_last_turn_yahtzee() -> None:
    table = tables.table(OFFICIAL)
    # P(five of a kind within three rolls, keeping the most common face) = 347897/7558272.
    assert table.value(_last_box(table, Box.YAHTZEE), 0, 0) == pytest.approx(50 * 347897 / 7558272, abs=1e-12)


def test_last_turn_sixes_and_upper_bonus() -> None:
    table = tables.table(OFFICIAL)
    mask = _last_box(table, Box.SIXES)
    p = 1 - (5 / 6) ** 3  # each die ends a six when sixes are kept
    assert table.value(mask, 0, 0) == pytest.approx(30 * p, abs=1e-12)
    # With 33 in the upper section only five sixes reach 63; with 57 one six does; at 63 no more bonus.
    assert table.value(mask, 33, 0) == pytest.approx(30 * p + 35 * p**5, abs=1e-12)
    assert table.value(mask, 57, 0) == pytest.approx(30 * p + 35 * (1 - (1 - p) ** 5), abs=1e-12)
    assert table.value(mask, 63, 0) == pytest.approx(30 * p, abs=1e-12)


def test_last_turn_chance() -> None:
    # Chance alone: reroll dice below 5 after the first roll, below 4 after the second.
    one = 3.5
    two = (4 + 5 + 6) / 6 + 3 / 6 * one  # keep 4+ with one roll left
    three = (5 + 6) / 6 + 4 / 6 * two  # keep 5+ with two rolls left
    table = tables.table(OFFICIAL)
    assert table.value(_last_box(table, Box.CHANCE), 0, 0) == pytest.approx(5 * three, abs=1e-12)


def test_yahtzee_flag_adds_bonus_expectation() -> None:
    table = tables.table(OFFICIAL)
    model = table.model
    mask = model.bit(Box.YAHTZEE)
    assert table.value(mask, 0, 1) > table.value(mask, 0, 0) + 5
    assert tables.table(YETI).model.flags == 1


def test_values_are_finite_where_reachable() -> None:
    table = tables.table(OFFICIAL)
    assert np.isfinite(table.values).all()
    assert table.values.max() < 1000
