"""Driving a game with bot actions through the rules engine (the benchmarks' simulations, the tests).

The server plays a computer's step through its services instead (games.scheduling.botplay), with the
dice of the room's seeds."""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.domain.rules import GameState, RuleSet, apply_hold, apply_roll, apply_score, apply_start, new_game

from .strategy import Action, Score, decide


def apply_action(state: GameState, seat: int, action: Action, rng: random.Random) -> GameState:
    """Carry out ``action`` for ``seat`` with the engine: set the holds and roll, or score."""
    if isinstance(action, Score):
        return apply_score(state, player=seat, box=action.box, column=action.column)
    if state.turn.dice and frozenset(action.held) != state.turn.held:
        state = apply_hold(state, player=seat, held=action.held)
    return apply_roll(state, player=seat, rng=rng)


def play_game(
    ruleset: RuleSet,
    levels: Sequence[str] = ("optimal",),
    rng: random.Random | None = None,
    *,
    decision_rng: random.Random | None = None,
) -> GameState:
    """A whole game with one bot per entry of ``levels``; dice from ``rng``, noise from ``decision_rng``."""
    rng = rng or random.Random()
    decision_rng = decision_rng or rng
    state = apply_start(new_game(ruleset, players=len(levels)))
    while not state.is_over:
        seat = state.current
        action = decide(state, seat, levels[seat], decision_rng)
        state = apply_action(state, seat, action, rng)
    return state
