"""Whole games through the rules engine: every bot action must be legal."""

from __future__ import annotations

import random
import statistics

import pytest

from bots import Roll, Score, choice_loss, decide, options
from bots.play import apply_action, play_game
from games.domain.rules import (
    DICE,
    FREE_JOKER,
    OFFICIAL,
    PAINTED,
    TRIPLE,
    YATZY,
    YETI,
    GameState,
    RuleSet,
    apply_hold,
    apply_rolled,
    apply_score,
    apply_start,
    new_game,
)

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


def loaded_faces(ruleset: RuleSet, state: GameState, rng: random.Random) -> list[int]:
    """The new faces of a roll whose dice mostly show one value (and in Painted one colour): many
    a five of a kind, so the game reaches the jokers, the bonuses and the zeros they force."""
    count = DICE - len(state.turn.held) if state.turn.dice else DICE
    value, colour = rng.randint(1, 6), rng.randrange(max(1, ruleset.colours))
    faces = []
    for _ in range(count):
        v = value if rng.random() < 0.75 else rng.randint(1, 6)
        c = colour if rng.random() < 0.5 else rng.randrange(max(1, ruleset.colours))
        faces.append(6 * c + v)
    return faces


@pytest.mark.parametrize("ruleset", [OFFICIAL, FREE_JOKER, YETI, YATZY, TRIPLE, PAINTED], ids=lambda r: r.name)
def test_on_loaded_dice_every_level_plays_only_legal_moves_and_the_coach_judges_each(ruleset: RuleSet) -> None:
    rng = random.Random(f"loaded-{ruleset.name}")
    state = apply_start(new_game(ruleset, players=3))
    levels = ("optimal", "casual", "beginner")
    bonuses = 0
    while not state.is_over:
        seat = state.current
        action = decide(state, seat, levels[seat], rng)
        if state.turn.dice:
            assert choice_loss(state, action, found=options(state, seat)) >= 0
        if isinstance(action, Score):
            legal = {(o.box.value, o.column) for o in state.options() if o.legal}
            assert (action.box, action.column) in legal, (action, state.turn, state.cards[seat])
            before = sum(state.cards[seat].yahtzee_bonus)
            state = apply_score(state, player=seat, box=action.box, column=action.column)
            bonuses += sum(state.cards[seat].yahtzee_bonus) > before
        else:
            assert state.turn.rolls_left > 0 and len(action.held) < DICE and (state.turn.dice or not action.held)
            if state.turn.dice and frozenset(action.held) != state.turn.held:
                state = apply_hold(state, player=seat, held=action.held)
            state = apply_rolled(state, player=seat, faces=loaded_faces(ruleset, state, rng))
    assert all(card.filled == ruleset.turns_per_player for card in state.cards)
    assert bonuses > 0 or not ruleset.yahtzee_bonus  # the dice did reach the jokers


def test_triple_games_are_legal() -> None:
    state = play_game(TRIPLE, ("optimal", "casual"), rng=random.Random(5))
    assert all(card.filled == 39 for card in state.cards)


def test_optimal_beats_casual_on_average() -> None:
    optimal = [play_game(OFFICIAL, rng=random.Random(s)).totals(0).grand_total for s in range(60)]
    casual = [play_game(OFFICIAL, ("beginner",), rng=random.Random(s)).totals(0).grand_total for s in range(60)]
    assert statistics.mean(optimal) > statistics.mean(casual)
    assert 180 < statistics.mean(optimal) < 330
