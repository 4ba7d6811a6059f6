"""Decisions in hand-checked positions, and the coach's hints and losses."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bots import LEVELS, Roll, Score, choice_loss, decide, expected_score, hint, options, review, tables
from games.domain.rules import (
    FREE_JOKER,
    OFFICIAL,
    TRIPLE,
    YATZY,
    YETI,
    Box,
    GameState,
    RuleSet,
    Scorecard,
    TurnState,
    apply_rolled,
    apply_start,
    new_game,
)


def position(
    ruleset: RuleSet, dice: tuple[int, ...], filled: dict[Box, int] | None = None, rolls_used: int = 1
) -> GameState:
    """Seat 0 to play with ``dice`` after ``rolls_used`` rolls and ``filled`` boxes on its card."""
    state = apply_start(new_game(ruleset, players=1))
    card = Scorecard(columns=(tuple((filled or {}).items()),), yahtzee_bonus=(0,))
    return dataclasses.replace(state, cards=(card,), turn=TurnState(dice=dice, rolls_used=rolls_used))


def kept(state: GameState, action) -> tuple[int, ...]:
    assert isinstance(action, Roll)
    return tuple(sorted(state.turn.dice[i] for i in action.held))


def test_turn_start_rolls_everything() -> None:
    state = apply_start(new_game(OFFICIAL, players=2))
    assert decide(state, 0) == Roll(())
    [only] = hint(state, 0)
    assert only.action == Roll(()) and only.expected == pytest.approx(254.5877287, abs=1e-6)
    assert choice_loss(state, Roll()) == 0.0
    with pytest.raises(ValueError, match="turn"):
        decide(state, 1)


@pytest.mark.parametrize("rolls_used", [1, 2, 3])
def test_yahtzee_with_every_box_open_scores_yahtzee(rolls_used: int) -> None:
    state = position(OFFICIAL, (4, 4, 4, 4, 4), rolls_used=rolls_used)
    assert decide(state, 0) == Score("yahtzee", 0)


def test_six_sixes_on_the_first_roll_keeps_all() -> None:
    state = position(OFFICIAL, (6, 6, 6, 6, 6))
    best = hint(state, 0)[0]
    assert best.action == Score("yahtzee", 0) and best.points == 50
    assert best.dice == (6, 6, 6, 6, 6)


def test_opening_1_2_3_4_6_keeps_the_small_straight() -> None:
    state = position(OFFICIAL, (1, 2, 3, 4, 6))
    assert kept(state, decide(state, 0)) in {(1, 2, 3, 4), (2, 3, 4)}
    assert kept(state, decide(state, 0)) == (1, 2, 3, 4)


def test_opening_large_straight_is_scored() -> None:
    state = position(OFFICIAL, (2, 3, 4, 5, 6))
    assert decide(state, 0) == Score("large_straight", 0)


def test_forced_joker_takes_the_upper_box() -> None:
    filled = {Box.YAHTZEE: 50}
    for rolls_used in (1, 3):
        state = position(OFFICIAL, (1, 1, 1, 1, 1), filled, rolls_used)
        assert decide(state, 0) == Score("ones", 0)
        # Ones is the only legal box, so it is the only scoring option.
        assert [o.action for o in options(state, 0) if isinstance(o.action, Score)] == [Score("ones", 0)]
        assert [o.points for o in options(state, 0) if isinstance(o.action, Score)] == [105]


def test_forced_joker_in_the_lower_section() -> None:
    # Yahtzee 50 and Fours filled: five fours are a joker, Large Straight 40 + bonus 100 is best.
    state = position(OFFICIAL, (4, 4, 4, 4, 4), {Box.YAHTZEE: 50, Box.FOURS: 12}, rolls_used=3)
    assert decide(state, 0) == Score("large_straight", 0)
    scores = {o.action.box: o.points for o in options(state, 0)}
    assert scores["large_straight"] == 140 and scores["full_house"] == 125
    assert "ones" not in scores  # the joker forbids the upper boxes


def test_free_joker_allows_every_box() -> None:
    state = position(FREE_JOKER, (4, 4, 4, 4, 4), {Box.YAHTZEE: 50}, rolls_used=3)
    scores = {o.action.box: o.points for o in options(state, 0)}
    assert len(scores) == 12
    assert scores["full_house"] == 100 and scores["fours"] == 120


def test_forced_joker_with_every_lower_box_filled_scratches_an_upper_box_for_the_bonus() -> None:
    lower = {
        Box.THREE_OF_A_KIND: 20,
        Box.FOUR_OF_A_KIND: 0,
        Box.FULL_HOUSE: 25,
        Box.SMALL_STRAIGHT: 30,
        Box.LARGE_STRAIGHT: 40,
        Box.CHANCE: 22,
    }
    filled = {Box.YAHTZEE: 50, Box.THREES: 9, Box.FOURS: 16, Box.FIVES: 15, Box.SIXES: 18, **lower}
    for rolls_used in (1, 3):
        state = position(OFFICIAL, (4, 4, 4, 4, 4), filled, rolls_used)
        scores = {o.action.box: (o.points, o.bonus) for o in options(state, 0) if isinstance(o.action, Score)}
        assert scores == {"ones": (100, 100), "twos": (100, 100)}
        assert decide(state, 0) in (Score("ones", 0), Score("twos", 0))


def test_triple_an_extra_yahtzee_goes_in_an_open_yahtzee_box_with_its_columns_bonus() -> None:
    state = apply_start(new_game(TRIPLE, players=1))
    card = Scorecard(columns=(((Box.YAHTZEE, 50),), (), ()), yahtzee_bonus=(0, 0, 0))
    for rolls_used in (1, 3):
        state = dataclasses.replace(state, cards=(card,), turn=TurnState(dice=(4,) * 5, rolls_used=rolls_used))
        scores = {
            (o.action.box, o.action.column): (o.points, o.bonus)
            for o in options(state, 0)
            if isinstance(o.action, Score)
        }
        assert scores == {("yahtzee", 1): (300, 200), ("yahtzee", 2): (450, 300)}
        assert decide(state, 0) == Score("yahtzee", 2)


def test_triple_an_extra_yahtzee_earns_no_bonus_once_a_yahtzee_box_holds_a_zero_and_none_is_open() -> None:
    state = apply_start(new_game(TRIPLE, players=1))
    card = Scorecard(
        columns=(((Box.YAHTZEE, 50),), ((Box.YAHTZEE, 0),), ((Box.YAHTZEE, 150), (Box.FOURS, 60))),
        yahtzee_bonus=(0, 0, 300),
    )
    state = dataclasses.replace(state, cards=(card,), turn=TurnState(dice=(4,) * 5, rolls_used=3))
    scores = {(o.action.box, o.action.column): (o.points, o.bonus) for o in options(state, 0)}
    assert scores == {("fours", 0): (20, 0), ("fours", 1): (40, 0)}
    assert decide(state, 0) in (Score("fours", 0), Score("fours", 1))


@pytest.mark.parametrize("ruleset", [YETI, YATZY], ids=lambda r: r.name)
def test_without_a_joker_an_extra_five_of_a_kind_may_go_anywhere_for_its_plain_score(ruleset: RuleSet) -> None:
    state = position(ruleset, (6, 6, 6, 6, 6), {Box.YAHTZEE: 50}, rolls_used=3)
    scores = {o.action.box: (o.points, o.bonus) for o in options(state, 0)}
    assert len(scores) == len(ruleset.boxes) - 1
    assert all(bonus == 0 for _, bonus in scores.values())
    assert scores["sixes"] == (30, 0) and scores["chance"] == (30, 0)
    assert scores["full_house"] == ((25, 0) if ruleset is YETI else (0, 0))
    assert scores["large_straight"] == (0, 0)
    assert decide(state, 0).box in scores


def test_chance_alone_keeps_what_beats_a_reroll() -> None:
    others = {b: 0 for b in OFFICIAL.boxes if b is not Box.CHANCE}
    # Two rolls left: a 4 is worth less than a fresh die (4.25).
    state = position(OFFICIAL, (6, 4, 6, 5, 6), others)
    assert kept(state, decide(state, 0)) == (5, 6, 6, 6)
    # One roll left: a 4 beats a fresh die (3.5), so score now; a 1 does not.
    assert decide(position(OFFICIAL, (6, 4, 6, 5, 6), others, 2), 0) == Score("chance", 0)
    state = position(OFFICIAL, (6, 1, 6, 5, 6), others, 2)
    assert decide(state, 0) == Roll((0, 2, 3, 4))


def test_upper_bonus_within_reach() -> None:
    # Only Sixes and Four of a Kind open, 57 in the upper section: one six earns the 35 bonus now.
    filled = {b: 0 for b in OFFICIAL.boxes if b not in (Box.SIXES, Box.FOUR_OF_A_KIND)}
    filled.update({Box.ONES: 2, Box.TWOS: 10, Box.THREES: 15, Box.FOURS: 20, Box.FIVES: 10})
    state = position(OFFICIAL, (6, 2, 2, 3, 1), filled, rolls_used=3)
    assert decide(state, 0) == Score("sixes", 0)
    table = tables.table(OFFICIAL)
    last_4k = table.value(table.model.full_mask ^ table.model.bit(Box.FOUR_OF_A_KIND), 63, 0)
    sixes = next(o for o in options(state, 0) if o.action == Score("sixes", 0))
    assert sixes.points == 6
    assert sixes.expected == pytest.approx(57 + 6 + 35 + last_4k, abs=1e-9)


def test_hint_lists_boxes_only_after_the_last_roll() -> None:
    state = position(OFFICIAL, (1, 3, 3, 5, 6), rolls_used=3)
    found = hint(state, 0, top=5)
    assert len(found) == 5 and all(isinstance(o.action, Score) for o in found)
    assert [o.expected for o in found] == sorted((o.expected for o in found), reverse=True)
    with_rolls = options(position(OFFICIAL, (1, 3, 3, 5, 6)), 0)
    assert any(isinstance(o.action, Roll) for o in with_rolls)
    assert any(isinstance(o.action, Score) for o in with_rolls)
    # 1-3-3-5-6 has 2*3*2*2 sub-multisets; all but "keep all five" are rolls; plus 13 boxes.
    assert len(with_rolls) == 23 + 13


def test_choice_loss() -> None:
    state = position(OFFICIAL, (4, 4, 4, 4, 4), rolls_used=3)
    assert choice_loss(state, Score("yahtzee", 0)) == 0.0
    assert choice_loss(state, Score("chance", 0)) > 30
    state = position(OFFICIAL, (1, 2, 3, 4, 6))
    best = hint(state, 0)[0]
    assert choice_loss(state, best.action) == 0.0
    # The same keep through other dice indices is the same choice.
    worse = choice_loss(state, Roll((1, 2, 3)))
    assert worse == pytest.approx(best.expected - next(o.expected for o in options(state, 0) if o.dice == (2, 3, 4)))
    with pytest.raises(ValueError):
        choice_loss(state, Roll((0, 1, 2, 3, 4)))
    with pytest.raises(ValueError):
        choice_loss(position(OFFICIAL, (1, 1, 1, 1, 1), {Box.YAHTZEE: 50}), Score("chance", 0))
    summary = review([(state, best.action), (state, Roll((1, 2, 3)))])
    assert summary.choices == 2 and summary.mistakes == 1
    assert summary.total_loss == pytest.approx(worse) and summary.worst == ((1, worse),)


def test_expected_score_of_waiting_seat() -> None:
    state = apply_start(new_game(OFFICIAL, players=2))
    state = apply_rolled(state, player=0, faces=[6, 6, 6, 6, 6])
    assert expected_score(state, 1) == pytest.approx(254.5877287, abs=1e-6)
    assert expected_score(state, 0) == pytest.approx(hint(state, 0)[0].expected)


def test_weaker_levels_are_seeded_and_usually_sensible() -> None:
    state = position(OFFICIAL, (2, 3, 4, 5, 6))
    first = [decide(state, 0, "casual", random.Random(i)) for i in range(50)]
    again = [decide(state, 0, "casual", random.Random(i)) for i in range(50)]
    assert first == again
    assert first.count(Score("large_straight", 0)) > 25
    assert len(set(first)) > 1 or len(set(decide(state, 0, "beginner", random.Random(i)) for i in range(50))) > 1
    assert set(LEVELS) >= {"optimal", "casual"}
    with pytest.raises(ValueError):
        decide(state, 0, "genius")


def test_triple_uses_every_column() -> None:
    state = apply_start(new_game(TRIPLE, players=1))
    state = apply_rolled(state, player=0, faces=[5, 5, 5, 5, 5])
    best = hint(state, 0)[0]
    # A first Yahtzee goes in the x3 column.
    assert best.action == Score("yahtzee", 2) and best.points == 150
    assert choice_loss(state, Score("yahtzee", 0)) > 0


def test_not_ready_raises_instead_of_building(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(tables.CACHE_ENV, str(tmp_path))
    saved = dict(tables._tables)
    tables.forget()
    try:
        state = position(OFFICIAL, (1, 2, 3, 4, 6))
        with pytest.raises(tables.TableNotReady):
            decide(state, 0, build=False)
    finally:
        tables._tables.update(saved)


def test_choice_loss_reads_the_options_it_is_given() -> None:
    state = position(OFFICIAL, (1, 2, 3, 4, 6))
    found = options(state, 0)
    for option in found[:3] + found[-3:]:
        assert choice_loss(state, option.action, found=found) == choice_loss(state, option.action)
