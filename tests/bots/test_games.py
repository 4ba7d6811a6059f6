"""Whole games through the rules engine: every bot action must be legal."""

from __future__ import annotations

import random
import statistics

import pytest

from bots import Roll, Score, decide
from bots.play import apply_action, play_game
from games.domain.rules import FREE_JOKER, OFFICIAL, TRIPLE, YATZY, YETI, apply_start, new_game

from .conftest import NO_BONUS


@pytest.mark.parametrize("ruleset", [OFFICIAL, FREE_JOKER, YETI, YATZY, NO_BONUS], ids=lambda r: r.name)
def test_optimal_games_are_legal(ruleset) -> None:
    for seed in range(4):
        state = play_game(ruleset, rng=random.Random(seed))
        assert state.is_over
        assert state.cards[0].filled == len(ruleset.boxes)


def test_every_action_is_legal_step_by_step() -> None:
    rng = random.Random(11)
    state = apply_start(new_game(OFFICIAL, players=3))
    levels = ("optimal", "casual", "beginner")
    while not state.is_over:
        seat = state.current
        action = decide(state, seat, levels[seat], rng)
        if isinstance(action, Score):
            legal = {(o.box.value, o.column) for o in state.options() if o.legal}
            assert (action.box, action.column) in legal
        else:
            assert isinstance(action, Roll) and state.turn.rolls_left > 0
            assert len(action.held) < 5 and (state.turn.dice or not action.held)
        state = apply_action(state, seat, action, rng)
    assert all(card.filled == 13 for card in state.cards)


def test_triple_games_are_legal() -> None:
    state = play_game(TRIPLE, ("optimal", "casual"), rng=random.Random(5))
    assert all(card.filled == 39 for card in state.cards)


def test_optimal_beats_casual_on_average() -> None:
    optimal = [play_game(OFFICIAL, rng=random.Random(s)).totals(0).grand_total for s in range(60)]
    casual = [play_game(OFFICIAL, ("beginner",), rng=random.Random(s)).totals(0).grand_total for s in range(60)]
    assert statistics.mean(optimal) > statistics.mean(casual)
    assert 180 < statistics.mean(optimal) < 330
