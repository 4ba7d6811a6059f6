"""Every worked example of docs/rules.md, one named test each."""

from __future__ import annotations

from games.domain.rules import (
    FREE_JOKER,
    OFFICIAL,
    TRIPLE,
    YATZY,
    YETI,
    Box,
    RuleSet,
    ScoreOption,
    plain_score,
    score_options,
)


def card(ruleset: RuleSet, **filled: int) -> list[dict[Box, int]]:
    """A one-column card with the named boxes filled (Fours=12 style keywords)."""
    return [{Box(name): points for name, points in filled.items()}] + [{} for _ in range(ruleset.columns - 1)]


def options(ruleset: RuleSet, filled: list[dict[Box, int]], dice: tuple[int, ...]) -> dict[Box, ScoreOption]:
    return {o.box: o for o in score_options(ruleset, filled, dice) if o.column == 0}


def legal(ruleset: RuleSet, filled: list[dict[Box, int]], dice: tuple[int, ...]) -> set[Box]:
    return {box for box, o in options(ruleset, filled, dice).items() if o.legal}


def test_official_3_3_3_5_6() -> None:
    dice = (3, 3, 3, 5, 6)
    assert plain_score(OFFICIAL, Box.THREES, dice) == 9
    assert plain_score(OFFICIAL, Box.FIVES, dice) == 5
    assert plain_score(OFFICIAL, Box.THREE_OF_A_KIND, dice) == 20
    assert plain_score(OFFICIAL, Box.FOUR_OF_A_KIND, dice) == 0
    assert plain_score(OFFICIAL, Box.CHANCE, dice) == 20


def test_official_4_4_4_4_5() -> None:
    dice = (4, 4, 4, 4, 5)
    assert plain_score(OFFICIAL, Box.THREE_OF_A_KIND, dice) == 21
    assert plain_score(OFFICIAL, Box.FOUR_OF_A_KIND, dice) == 21
    assert plain_score(OFFICIAL, Box.FULL_HOUSE, dice) == 0


def test_official_1_2_3_4_6_is_a_small_straight_only() -> None:
    dice = (1, 2, 3, 4, 6)
    assert plain_score(OFFICIAL, Box.SMALL_STRAIGHT, dice) == 30
    assert plain_score(OFFICIAL, Box.LARGE_STRAIGHT, dice) == 0


def test_official_2_2_3_3_3() -> None:
    dice = (2, 2, 3, 3, 3)
    assert plain_score(OFFICIAL, Box.FULL_HOUSE, dice) == 25
    assert plain_score(OFFICIAL, Box.THREE_OF_A_KIND, dice) == 13


def test_forced_joker_allows_only_the_matching_upper_box() -> None:
    filled = card(OFFICIAL, yahtzee=50)
    opts = options(OFFICIAL, filled, (4, 4, 4, 4, 4))
    assert legal(OFFICIAL, filled, (4, 4, 4, 4, 4)) == {Box.FOURS}
    assert (opts[Box.FOURS].points, opts[Box.FOURS].bonus) == (20, 100)
    assert "Fours" in opts[Box.CHANCE].reason


def test_forced_joker_with_a_zero_yahtzee_box_gives_lower_jokers_but_no_bonus() -> None:
    filled = card(OFFICIAL, yahtzee=0, fours=12)
    opts = options(OFFICIAL, filled, (4, 4, 4, 4, 4))
    lower = {
        Box.THREE_OF_A_KIND,
        Box.FOUR_OF_A_KIND,
        Box.FULL_HOUSE,
        Box.SMALL_STRAIGHT,
        Box.LARGE_STRAIGHT,
        Box.CHANCE,
    }
    assert legal(OFFICIAL, filled, (4, 4, 4, 4, 4)) == lower
    assert opts[Box.LARGE_STRAIGHT].points == 40
    assert opts[Box.FULL_HOUSE].points == 25
    assert all(o.bonus == 0 for o in opts.values())


def test_forced_joker_with_everything_else_filled_scratches_an_upper_box_with_the_bonus() -> None:
    lower = {
        "three_of_a_kind": 20,
        "four_of_a_kind": 0,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
        "chance": 22,
    }
    filled = card(OFFICIAL, yahtzee=50, fours=16, threes=9, fives=15, sixes=18, **lower)
    opts = options(OFFICIAL, filled, (4, 4, 4, 4, 4))
    assert legal(OFFICIAL, filled, (4, 4, 4, 4, 4)) == {Box.ONES, Box.TWOS}
    assert [(opts[b].points, opts[b].bonus) for b in (Box.ONES, Box.TWOS)] == [(0, 100), (0, 100)]


def test_free_joker_allows_every_open_box_with_the_bonus() -> None:
    filled = card(FREE_JOKER, yahtzee=50)
    opts = options(FREE_JOKER, filled, (4, 4, 4, 4, 4))
    assert legal(FREE_JOKER, filled, (4, 4, 4, 4, 4)) == set(FREE_JOKER.boxes) - {Box.YAHTZEE}
    assert opts[Box.FULL_HOUSE].points == 0
    assert opts[Box.SMALL_STRAIGHT].points == 0
    assert opts[Box.FOURS].points == 20
    assert opts[Box.CHANCE].points == 20
    assert {o.bonus for o in opts.values()} == {100}


def test_yeti_five_sixes_is_a_full_house_with_no_bonus() -> None:
    filled = card(YETI, yahtzee=50)
    opts = options(YETI, filled, (6, 6, 6, 6, 6))
    assert opts[Box.FULL_HOUSE].points == 25
    assert opts[Box.CHANCE].points == 30
    assert all(o.legal and o.bonus == 0 for o in opts.values())


def test_yatzy_3_3_5_5_5() -> None:
    dice = (3, 3, 5, 5, 5)
    assert plain_score(YATZY, Box.ONE_PAIR, dice) == 10
    assert plain_score(YATZY, Box.TWO_PAIRS, dice) == 16
    assert plain_score(YATZY, Box.THREE_OF_A_KIND, dice) == 15
    assert plain_score(YATZY, Box.FULL_HOUSE, dice) == 21


def test_yatzy_1_2_3_4_5() -> None:
    dice = (1, 2, 3, 4, 5)
    assert plain_score(YATZY, Box.SMALL_STRAIGHT, dice) == 15
    assert plain_score(YATZY, Box.LARGE_STRAIGHT, dice) == 0
    assert plain_score(YATZY, Box.CHANCE, dice) == 15


def test_triple_plain_fours_12_in_column_3_scores_36() -> None:
    opts = {(o.box, o.column): o for o in score_options(TRIPLE, [{}, {}, {}], (4, 4, 4, 1, 2))}
    assert opts[(Box.FOURS, 0)].points == 12
    assert opts[(Box.FOURS, 2)].points == 36


def test_a_boolean_is_not_a_die_face() -> None:
    import pytest

    from games.domain.rules import RuleViolation, apply_rolled, apply_start, new_game

    state = apply_start(new_game(OFFICIAL, 1))
    with pytest.raises(RuleViolation) as caught:
        apply_rolled(state, player=0, faces=[True, 2, 3, 4, 5])
    assert caught.value.code == "bad_dice"
