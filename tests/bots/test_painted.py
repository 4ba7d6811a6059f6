"""The Painted Yahtzee bot: its fast scoring agrees with the rules, its choices in clear positions,
and whole games through the engine."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from bots import Roll, Score, choice_loss, decide, expected_score, hint, options, play_game, ready, tables
from bots import painted as P
from games.domain.rules import (
    PAINTED,
    Box,
    GameState,
    Scorecard,
    TurnState,
    apply_start,
    new_game,
    score_options,
)

RED, YELLOW, GREEN, BLUE, PURPLE = range(5)


def position(
    dice: tuple[int, ...], colours: tuple[int, ...], filled: dict[Box, int] | None = None, rolls_used: int = 1
) -> GameState:
    state = apply_start(new_game(PAINTED, players=1))
    card = Scorecard(columns=(tuple((filled or {}).items()),), yahtzee_bonus=(0,))
    return dataclasses.replace(state, cards=(card,), turn=TurnState(dice=dice, rolls_used=rolls_used, colours=colours))


def all_but(*open_boxes: Box) -> dict[Box, int]:
    return {b: 0 for b in PAINTED.boxes if b not in open_boxes}


def random_card(rng: random.Random) -> dict[Box, int]:
    filled = {b: rng.choice([0, 3, 8, 12, 25]) for b in PAINTED.boxes if rng.random() < 0.5}
    if Box.YAHTZEE in filled:
        filled[Box.YAHTZEE] = rng.choice([0, 50])
    if len(filled) == 23:
        filled.pop(Box.CHANCE)
    return filled


def test_painted_needs_no_table_and_is_always_ready() -> None:
    assert ready(PAINTED) and ready("painted")
    assert not tables.needs_table(PAINTED) and tables.needs_table("official")
    with pytest.raises(ValueError, match="no solved table"):
        tables.table(PAINTED)
    assert "painted" not in tables.build_all(["painted"])


def test_the_fast_scoring_agrees_with_the_rules_on_random_hands_and_cards() -> None:
    """``Card.best`` (lookup tables, additive keys) against the engine's ``score_options``, hand by hand."""
    rng = random.Random(11)
    for _ in range(60):
        card = P.Card(PAINTED, random_card(rng))
        faces = np.array([[rng.randrange(30) for _ in range(5)] for _ in range(200)])
        # Plenty of five of a kinds and flushes too.
        faces[:20] = faces[:20, :1] % 6 + 6 * np.array([rng.randrange(5) for _ in range(5)])
        faces[20:40] = faces[20:40] % 6 + 6 * PURPLE
        values, colours = faces % 6 + 1, faces // 6
        f = P.Features(values, colours)
        got = card.best(f.vkey, f.ckey, f.csum, f.total)
        for row in range(len(faces)):
            dice = tuple(int(v) for v in values[row])
            cols = tuple(int(c) for c in colours[row])
            exact = card.exact_best(dice, cols)
            if np.isnan(got[row]):
                assert card.yahtzee is not None and len(set(dice)) == 1
            else:
                assert got[row] == pytest.approx(exact), (dice, cols, card.column)


def test_a_keep_of_four_is_worth_the_exact_mean_over_the_30_outcomes_of_the_fifth_die() -> None:
    state = position((2, 2, 5, 6, 6), (RED, RED, RED, BLUE, BLUE), {Box.YAHTZEE: 50, Box.TWOS: 4})
    card = P.card_of(state, 0)
    values = {held: value for held, _, value in P.keep_values(state, 0)}
    held = (0, 1, 3, 4)
    exact = np.mean(
        [
            card.exact_best(
                [2, 2, f % 6 + 1, 6, 6],
                [RED, RED, f // 6, BLUE, BLUE],
            )
            for f in range(30)
        ]
    )
    assert values[held] == pytest.approx(exact)


def test_it_scores_a_flush_at_once() -> None:
    state = position((1, 2, 3, 4, 6), (PURPLE,) * 5)
    action = decide(state, 0)
    assert action == Score("flush", 0)


def test_it_takes_a_rainbow_after_the_last_roll() -> None:
    state = position((1, 2, 4, 4, 6), (RED, YELLOW, GREEN, BLUE, PURPLE), rolls_used=3)
    assert decide(state, 0) == Score("rainbow", 0)


def test_it_keeps_four_of_a_colour_when_only_the_flush_and_chance_are_open() -> None:
    state = position((5, 1, 3, 2, 6), (PURPLE, RED, PURPLE, PURPLE, PURPLE), all_but(Box.FLUSH, Box.CHANCE), 2)
    action = decide(state, 0)
    assert action == Roll((0, 2, 3, 4))


def test_the_forced_joker_is_respected() -> None:
    state = position((4,) * 5, (RED, RED, BLUE, GREEN, GREEN), {Box.YAHTZEE: 50}, rolls_used=3)
    assert decide(state, 0) == Score("fours", 0)
    found = options(state, 0)
    assert [o.action for o in found] == [Score("fours", 0)] and found[0].points == 120


def test_every_option_is_legal_and_distinct_and_the_hint_is_the_best_few() -> None:
    state = position((3, 3, 3, 5, 6), (RED, RED, BLUE, BLUE, GREEN))
    found = options(state, 0)
    legal = {o.box.value for o in score_options(PAINTED, [{}], state.turn.dice, state.turn.colours) if o.legal}
    scores = [o.action for o in found if isinstance(o.action, Score)]
    keeps = [o.action for o in found if isinstance(o.action, Roll)]
    assert {a.box for a in scores} == legal and len(scores) == 23
    # 2^5 - 1 strict subsets, minus repeats: the two red 3s are the same die twice.
    assert len(keeps) == len(set(keeps)) == 23
    assert [o.expected for o in found] == sorted((o.expected for o in found), reverse=True)
    assert hint(state, 0, top=3) == found[:3]
    assert choice_loss(state, found[0].action) == 0
    assert all(choice_loss(state, o.action) >= 0 for o in found)
    # Keeping the same (value, colour) dice by other indices costs the same.
    assert choice_loss(state, Roll((1,))) == choice_loss(state, Roll((0,)))
    assert expected_score(state, 0) == found[0].expected


def test_decisions_are_deterministic() -> None:
    state = position((2, 5, 5, 1, 6), (GREEN, YELLOW, GREEN, BLUE, RED), {Box.FIVES: 15, Box.RED: 9})
    assert len({decide(state, 0, rng=random.Random(seed)) for seed in range(5)}) == 1


def test_start_of_turn_and_bad_seats() -> None:
    state = apply_start(new_game(PAINTED, players=2))
    assert decide(state, 0) == Roll()
    assert expected_score(state, 1) == pytest.approx(sum(P.PAR.values()))
    with pytest.raises(ValueError, match="turn"):
        options(state, 1)


@pytest.mark.parametrize("level", ["optimal", "casual", "beginner"])
def test_whole_games_at_every_level_fill_all_23_boxes(level: str) -> None:
    state = play_game(PAINTED, (level, level), random.Random(f"painted-{level}"))
    assert state.is_over
    for seat in range(2):
        assert {b for b, _ in state.cards[seat].columns[0]} == set(PAINTED.boxes)
        assert state.totals(seat).grand_total > 150


def test_four_bot_games_all_score_well() -> None:
    # The bot's mean is about 450 (bench/bot.py); a greedy player's about 320.
    rng = random.Random(5)
    bot = [play_game(PAINTED, ("optimal",), rng).totals(0).grand_total for _ in range(4)]
    assert min(bot) > 250
