"""Turn flow: every refused action has its stable code and changes nothing; scripted whole games."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence

import pytest

from games.domain import errors as E
from games.domain.rules import (
    OFFICIAL,
    TRIPLE,
    YATZY,
    Box,
    GameState,
    RuleSet,
    RuleViolation,
    apply_hold,
    apply_remove,
    apply_roll,
    apply_rolled,
    apply_score,
    apply_start,
    new_game,
)

Script = Sequence[tuple[Sequence[int], str, int]]


def started(ruleset: RuleSet = OFFICIAL, players: int = 2) -> GameState:
    return apply_start(new_game(ruleset, players))


def rolled(state: GameState, faces: Sequence[int]) -> GameState:
    return apply_rolled(state, player=state.current, faces=list(faces))


def score(state: GameState, box: str, column: int = 0) -> GameState:
    return apply_score(state, player=state.current, box=box, column=column)


def assert_refused(code: str, state: GameState, action: Callable[[GameState], object]) -> None:
    """``action(state)`` raises RuleViolation(code) and leaves ``state`` exactly as it was."""
    snapshot = copy.deepcopy(state)
    with pytest.raises(RuleViolation) as refused:
        action(state)
    assert refused.value.code == code, refused.value
    assert refused.value.message
    assert state == snapshot


def play_script(state: GameState, script: Script) -> GameState:
    """For each (dice, box, column): roll exactly those dice and score them."""
    for faces, box, column in script:
        state = score(rolled(state, faces), box, column)
    return state


def fill_every_box(state: GameState, dice: Sequence[int] = (1, 2, 3, 3, 6)) -> GameState:
    """Play until the game is over, each player scoring the first open box (no five of a kind)."""
    while not state.is_over:
        state = rolled(state, dice)
        option = state.options()[0]
        state = score(state, option.box.value, option.column)
    return state


# ---------------------------------------------------------------------------------------------
# Refused actions
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [0, 9, -1, 100])
def test_a_game_needs_one_to_eight_players(players: int) -> None:
    with pytest.raises(RuleViolation) as refused:
        new_game(OFFICIAL, players)
    assert refused.value.code == E.BAD_PLAYERS


@pytest.mark.parametrize("players", [1, 8])
def test_one_and_eight_players_are_accepted(players: int) -> None:
    assert new_game(OFFICIAL, players).players == players


def test_starting_twice_is_refused() -> None:
    assert_refused(E.ALREADY_STARTED, started(), apply_start)


def test_nothing_can_happen_before_the_game_starts() -> None:
    state = new_game(OFFICIAL, 2)
    assert_refused(E.GAME_NOT_STARTED, state, lambda s: apply_roll(s, player=0, rng=random.Random(1)))
    assert_refused(E.GAME_NOT_STARTED, state, lambda s: apply_rolled(s, player=0, faces=[1, 2, 3, 4, 5]))
    assert_refused(E.GAME_NOT_STARTED, state, lambda s: apply_hold(s, player=0, held=[0]))
    assert_refused(E.GAME_NOT_STARTED, state, lambda s: apply_score(s, player=0, box="chance"))
    assert state.options() == ()


def test_a_fourth_roll_is_refused() -> None:
    state = started()
    for _ in range(3):
        state = apply_roll(state, player=0, rng=random.Random(7))
    assert state.turn.rolls_left == 0
    assert_refused(E.NO_ROLLS_LEFT, state, lambda s: apply_roll(s, player=0, rng=random.Random(8)))
    assert_refused(E.NO_ROLLS_LEFT, state, lambda s: apply_rolled(s, player=0, faces=[1, 1, 1, 1, 1]))


def test_after_the_third_roll_scoring_is_the_only_action_left() -> None:
    state = rolled(rolled(rolled(started(), [1, 2, 3, 4, 5]), [1, 2, 3, 4, 5]), [6, 6, 6, 6, 6])
    assert_refused(E.NO_ROLLS_LEFT, state, lambda s: apply_hold(s, player=0, held=[0]))
    state = score(state, "yahtzee")
    assert state.cards[0].get(Box.YAHTZEE) == 50


def test_holding_before_the_first_roll_is_refused() -> None:
    assert_refused(E.NOT_ROLLED, started(), lambda s: apply_hold(s, player=0, held=[0, 1]))


@pytest.mark.parametrize("index", [5, -1, "1", True, False, 1.0, None], ids=repr)
def test_holding_an_index_outside_0_to_4_is_refused(index: object) -> None:
    state = rolled(started(), [1, 2, 3, 4, 5])
    assert_refused(E.BAD_DIE_INDEX, state, lambda s: apply_hold(s, player=0, held=[0, index]))  # type: ignore[list-item]


def test_rolling_with_all_five_held_is_refused() -> None:
    state = apply_hold(rolled(started(), [1, 2, 3, 4, 5]), player=0, held=range(5))
    assert_refused(E.ALL_HELD, state, lambda s: apply_roll(s, player=0, rng=random.Random(3)))
    assert_refused(E.ALL_HELD, state, lambda s: apply_rolled(s, player=0, faces=[]))
    # Scoring the held dice is still fine.
    assert score(state, "large_straight").cards[0].get(Box.LARGE_STRAIGHT) == 40


@pytest.mark.parametrize("faces", [[1, 2, 3, 4], [1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4], [1, 2, 3, 4, 7]])
def test_a_first_roll_needs_five_faces_from_1_to_6(faces: list[int]) -> None:
    assert_refused(E.BAD_DICE, started(), lambda s: apply_rolled(s, player=0, faces=faces))


def test_scoring_before_rolling_is_refused() -> None:
    assert_refused(E.NOT_ROLLED, started(), lambda s: apply_score(s, player=0, box="chance"))


def test_scoring_a_filled_box_is_refused() -> None:
    state = started(players=1)
    state = rolled(score(rolled(state, [2, 2, 3, 3, 3]), "chance"), [6, 6, 5, 5, 1])
    assert_refused(E.BOX_FILLED, state, lambda s: apply_score(s, player=0, box="chance"))


def test_forced_joker_allows_only_the_matching_upper_box() -> None:
    state = rolled(score(rolled(started(players=1), [4, 4, 4, 4, 4]), "yahtzee"), [4, 4, 4, 4, 4])
    for box in ("chance", "three_of_a_kind", "full_house", "large_straight", "ones", "sixes"):
        assert_refused(E.JOKER_FORBIDS, state, lambda s, box=box: apply_score(s, player=0, box=box))
    after = score(state, "fours")
    assert after.cards[0].get(Box.FOURS) == 20
    assert after.totals(0).yahtzee_bonus == 100


def test_triple_open_yahtzee_box_forbids_every_other_box() -> None:
    state = rolled(score(rolled(started(TRIPLE, players=1), [2] * 5), "yahtzee", 0), [2] * 5)
    assert_refused(E.JOKER_FORBIDS, state, lambda s: apply_score(s, player=0, box="twos", column=0))
    assert_refused(E.JOKER_FORBIDS, state, lambda s: apply_score(s, player=0, box="chance", column=2))
    assert_refused(E.BOX_FILLED, state, lambda s: apply_score(s, player=0, box="yahtzee", column=0))
    after = score(state, "yahtzee", 2)
    assert after.cards[0].get(Box.YAHTZEE, 2) == 150
    assert after.cards[0].yahtzee_bonus == (0, 0, 300)


@pytest.mark.parametrize("box", ["bogus", "", "Chance", "one_pair", "two_pairs"])
def test_an_unknown_box_is_refused(box: str) -> None:
    state = rolled(started(), [1, 2, 3, 4, 5])
    assert_refused(E.UNKNOWN_BOX, state, lambda s: apply_score(s, player=0, box=box))


def test_yatzy_boxes_are_known_in_yatzy() -> None:
    state = score(rolled(started(YATZY), [3, 3, 5, 5, 5]), "two_pairs")
    assert state.cards[0].get(Box.TWO_PAIRS) == 16


@pytest.mark.parametrize(
    ("ruleset", "column"),
    [(OFFICIAL, 1), (OFFICIAL, -1), (OFFICIAL, True), (OFFICIAL, "0"), (TRIPLE, 3), (TRIPLE, -1), (TRIPLE, None)],
    ids=repr,
)
def test_a_bad_column_is_refused(ruleset: RuleSet, column: object) -> None:
    state = rolled(started(ruleset), [1, 2, 3, 4, 5])
    assert_refused(E.BAD_COLUMN, state, lambda s: apply_score(s, player=0, box="chance", column=column))  # type: ignore[arg-type]


def test_nothing_can_happen_after_the_game_ended() -> None:
    state = fill_every_box(started(players=2))
    assert state.is_over
    for seat in (0, 1):
        assert_refused(E.GAME_OVER, state, lambda s, seat=seat: apply_roll(s, player=seat, rng=random.Random(0)))
        assert_refused(E.GAME_OVER, state, lambda s, seat=seat: apply_hold(s, player=seat, held=[0]))
        assert_refused(E.GAME_OVER, state, lambda s, seat=seat: apply_score(s, player=seat, box="chance"))
    assert state.options() == ()


def test_acting_out_of_turn_is_refused() -> None:
    state = started(players=3)
    assert_refused(E.NOT_YOUR_TURN, state, lambda s: apply_roll(s, player=1, rng=random.Random(0)))
    assert_refused(E.NOT_YOUR_TURN, state, lambda s: apply_roll(s, player=7, rng=random.Random(0)))
    state = rolled(state, [1, 2, 3, 4, 5])
    assert_refused(E.NOT_YOUR_TURN, state, lambda s: apply_hold(s, player=2, held=[0]))
    assert_refused(E.NOT_YOUR_TURN, state, lambda s: apply_score(s, player=1, box="chance"))
    state = score(state, "chance")
    assert state.current == 1
    assert_refused(E.NOT_YOUR_TURN, state, lambda s: apply_roll(s, player=0, rng=random.Random(0)))


# ---------------------------------------------------------------------------------------------
# Dice, holds and turn order
# ---------------------------------------------------------------------------------------------


def test_the_first_roll_rolls_all_five_dice_in_range() -> None:
    for seed in range(50):
        state = apply_roll(started(), player=0, rng=random.Random(seed))
        assert len(state.turn.dice) == 5 and all(1 <= d <= 6 for d in state.turn.dice)
        assert state.turn.rolls_used == 1 and state.turn.rolls_left == 2


def test_holding_keeps_held_dice_unchanged_across_a_roll() -> None:
    state = apply_hold(rolled(started(), [1, 2, 3, 4, 5]), player=0, held=[1, 3])
    assert state.turn.dice == (1, 2, 3, 4, 5)
    # The new faces go to the unheld dice in die order.
    assert rolled(state, [6, 6, 6]).turn.dice == (6, 2, 6, 4, 6)
    for seed in range(50):
        after = apply_roll(state, player=0, rng=random.Random(seed))
        assert (after.turn.dice[1], after.turn.dice[3]) == (2, 4)
        assert after.turn.rolls_used == 2


def test_holds_are_replaced_not_added() -> None:
    state = apply_hold(rolled(started(), [1, 2, 3, 4, 5]), player=0, held=[0, 1, 2])
    state = apply_hold(state, player=0, held=[4])
    assert state.turn.held == frozenset({4})
    assert rolled(state, [6, 6, 6, 6]).turn.dice == (6, 6, 6, 6, 5)


def test_scratching_zero_in_an_allowed_box_is_legal() -> None:
    state = score(rolled(started(), [1, 2, 3, 4, 6]), "yahtzee")
    assert state.cards[0].get(Box.YAHTZEE) == 0


def test_scoring_passes_the_turn_round_the_seats_and_clears_the_dice() -> None:
    state = started(players=3)
    for expected_seat in (0, 1, 2, 0, 1):
        assert state.current == expected_seat
        state = score(rolled(state, [1, 2, 3, 4, 6]), "chance" if state.turns_played < 3 else "ones")
        assert state.turn.dice == () and state.turn.held == frozenset() and state.turn.rolls_used == 0
    assert state.turns_played == 5


def test_apply_remove_skips_a_removed_seat() -> None:
    state = apply_remove(started(players=3), seat=1)
    state = score(rolled(state, [1, 2, 3, 4, 6]), "chance")
    assert state.current == 2
    assert_refused(E.NOT_YOUR_TURN, state, lambda s: apply_roll(s, player=1, rng=random.Random(0)))
    state = score(rolled(state, [1, 2, 3, 4, 6]), "chance")
    assert state.current == 0


def test_removing_the_current_seat_passes_the_turn_and_clears_the_dice() -> None:
    state = apply_hold(rolled(started(players=3), [1, 2, 3, 4, 5]), player=0, held=[0])
    state = apply_remove(state, seat=0)
    assert state.current == 1
    assert state.turn.dice == () and state.turn.rolls_used == 0 and state.turn.held == frozenset()


def test_removing_a_seat_twice_or_a_missing_seat_is_refused() -> None:
    state = apply_remove(started(players=2), seat=1)
    assert_refused(E.BAD_PLAYERS, state, lambda s: apply_remove(s, seat=1))
    assert_refused(E.BAD_PLAYERS, state, lambda s: apply_remove(s, seat=2))
    assert_refused(E.BAD_PLAYERS, state, lambda s: apply_remove(s, seat=-1))


def test_the_game_ends_when_the_only_remaining_active_player_finishes() -> None:
    state = started(players=2)
    # Seat 1 scores big on its only turn, then leaves; seat 0 finishes alone.
    state = score(rolled(state, [1, 2, 3, 4, 6]), "ones")
    state = score(rolled(state, [6, 6, 6, 6, 6]), "yahtzee")
    state = apply_remove(state, seat=1)
    assert state.current == 0 and not state.is_over
    turns = 1
    while not state.is_over:
        assert state.current == 0
        option = rolled(state, [1, 2, 3, 4, 6]).options()[0]
        state = score(rolled(state, [1, 2, 3, 4, 6]), option.box.value, option.column)
        turns += 1
    assert turns == 13
    assert state.cards[0].filled == 13 and state.cards[1].filled == 1
    assert state.winners() == (0,)
    assert_refused(E.GAME_OVER, state, lambda s: apply_roll(s, player=0, rng=random.Random(0)))


def test_equal_totals_share_the_win() -> None:
    state = fill_every_box(started(players=3))
    assert state.winners() == (0, 1, 2)


# ---------------------------------------------------------------------------------------------
# Scripted perfect games
# ---------------------------------------------------------------------------------------------

UPPER_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")


def test_a_perfect_official_game_without_extra_yahtzees_totals_375() -> None:
    # Every five of a kind is scored while the Yahtzee box is still open (plain table, no joker),
    # and the Yahtzee box itself comes last.
    script: list[tuple[Sequence[int], str, int]] = [([v] * 5, name, 0) for v, name in enumerate(UPPER_NAMES, 1)]
    script += [
        ([6] * 5, "three_of_a_kind", 0),
        ([6] * 5, "four_of_a_kind", 0),
        ([6] * 5, "chance", 0),
        ([2, 3, 2, 3, 3], "full_house", 0),
        ([6, 1, 3, 2, 4], "small_straight", 0),
        ([5, 4, 3, 2, 1], "large_straight", 0),
        ([5] * 5, "yahtzee", 0),
    ]
    state = play_script(started(players=1), script)
    assert state.is_over and state.turns_played == 13
    totals = state.totals(0)
    assert (totals.upper, totals.upper_bonus, totals.lower, totals.yahtzee_bonus) == (105, 35, 235, 0)
    assert totals.grand_total == 375
    assert state.winners() == (0,)


def test_a_perfect_official_game_with_every_extra_yahtzee_totals_1575() -> None:
    script: list[tuple[Sequence[int], str, int]] = [([6] * 5, "yahtzee", 0)]
    script += [([v] * 5, name, 0) for v, name in enumerate(UPPER_NAMES, 1)]
    script += [
        ([6] * 5, box, 0)
        for box in ("three_of_a_kind", "four_of_a_kind", "chance", "full_house", "small_straight", "large_straight")
    ]
    state = play_script(started(players=1), script)
    totals = state.totals(0)
    assert (totals.upper, totals.upper_bonus, totals.lower, totals.yahtzee_bonus) == (105, 35, 235, 1200)
    assert totals.grand_total == 1575


def test_a_perfect_yatzy_game_totals_374() -> None:
    script: list[tuple[Sequence[int], str, int]] = [([v] * 5, name, 0) for v, name in enumerate(UPPER_NAMES, 1)]
    script += [
        ([6, 6, 6, 6, 6], "chance", 0),
        ([6, 6, 5, 5, 4], "two_pairs", 0),
        ([6, 6, 6, 5, 5], "full_house", 0),
        ([6, 6, 6, 6, 6], "one_pair", 0),
        ([6, 6, 6, 6, 6], "three_of_a_kind", 0),
        ([6, 6, 6, 6, 6], "four_of_a_kind", 0),
        ([1, 2, 3, 4, 5], "small_straight", 0),
        ([2, 3, 4, 5, 6], "large_straight", 0),
        ([1, 1, 1, 1, 1], "yahtzee", 0),
    ]
    state = play_script(started(YATZY, players=1), script)
    assert state.is_over
    totals = state.totals(0)
    assert (totals.upper, totals.upper_bonus, totals.lower, totals.yahtzee_bonus) == (105, 50, 219, 0)
    assert totals.grand_total == 374


def test_a_perfect_triple_game_multiplies_every_column_and_pays_the_yahtzee_column_bonuses() -> None:
    script: list[tuple[Sequence[int], str, int]] = []
    for k in range(3):
        script += [([v] * 5, name, k) for v, name in enumerate(UPPER_NAMES, 1)]
        script += [
            ([6] * 5, "three_of_a_kind", k),
            ([6] * 5, "four_of_a_kind", k),
            ([6] * 5, "chance", k),
            ([3, 3, 3, 2, 2], "full_house", k),
            ([3, 4, 5, 6, 6], "small_straight", k),
            ([2, 3, 4, 5, 6], "large_straight", k),
        ]
    # The Yahtzee boxes last: the second and third five of a kind go to an open Yahtzee box
    # while another one holds 50·k, earning 100·k each.
    script += [([1] * 5, "yahtzee", 0), ([2] * 5, "yahtzee", 1), ([3] * 5, "yahtzee", 2)]
    state = play_script(started(TRIPLE, players=1), script)
    assert state.is_over and state.turns_played == 39
    columns = state.totals(0).columns
    for k, column in enumerate(columns):
        mult = k + 1
        assert (column.upper, column.upper_bonus, column.lower) == (105 * mult, 35 * mult, 235 * mult)
    assert [c.yahtzee_bonus for c in columns] == [0, 200, 300]
    assert state.totals(0).grand_total == 375 * 6 + 500


def test_a_removed_seat_can_be_reinstated_with_its_scores_and_plays_again() -> None:
    from games.domain.rules import OFFICIAL, apply_reinstate, apply_remove, apply_score, new_game
    from games.domain.rules.state import apply_rolled, apply_start

    state = apply_start(new_game(OFFICIAL, 3))
    state = apply_rolled(state, player=0, faces=[1, 1, 1, 2, 2])
    state = apply_score(state, player=0, box="full_house")
    state = apply_remove(state, seat=0)
    assert state.current == 1 and not state.active[0]
    with pytest.raises(RuleViolation):
        apply_reinstate(state, seat=1)  # still in the game
    back = apply_reinstate(state, seat=0)
    assert back.active == (True, True, True) and back.current == 1
    assert dict(back.cards[0].columns[0])["full_house"] == 25
    for seat in (1, 2):
        back = apply_rolled(back, player=seat, faces=[6, 6, 6, 6, 5])
        back = apply_score(back, player=seat, box="chance")
    assert back.current == 0


def test_a_seat_that_left_with_a_full_card_is_not_reinstated_and_says_why() -> None:
    """Ann filled her last box and left while Ben still had a turn: nothing of hers is left to play."""
    from games.domain import errors
    from games.domain.rules import OFFICIAL, apply_reinstate, apply_remove, apply_score, new_game
    from games.domain.rules.state import apply_rolled, apply_start

    state = apply_start(new_game(OFFICIAL, 2))
    for box in OFFICIAL.boxes:
        for seat in (0, 1):
            if state.cards[seat].filled < OFFICIAL.turns_per_player and (seat, box) != (1, OFFICIAL.boxes[-1]):
                state = apply_rolled(state, player=seat, faces=[1, 2, 3, 4, 6])
                state = apply_score(state, player=seat, box=box.value)
    assert state.cards[0].filled == OFFICIAL.turns_per_player and not state.is_over and state.current == 1
    state = apply_remove(state, seat=0)
    with pytest.raises(RuleViolation) as refused:
        apply_reinstate(state, seat=0)
    assert refused.value.code == errors.CARD_FULL


def test_options_kept_for_equal_cards_and_dice_are_those_worked_out_afresh() -> None:
    """A state's options are kept by the card's and dice's values and the rule set's identity: an
    equal card decoded afresh gets the same options, and another rule set (even an equal-looking
    one) gets its own, as ``score_options`` works them out."""
    from dataclasses import replace

    from games.domain.rules import Scorecard, TurnState, score_options

    state = score(rolled(started(OFFICIAL), [3, 3, 3, 5, 5]), "full_house")
    state = score(rolled(state, [1, 2, 3, 4, 6]), "chance")
    state = rolled(state, [2, 2, 4, 4, 6])
    card = state.cards[state.current]
    expected = score_options(OFFICIAL, card.as_columns(), state.turn.dice, state.turn.colours)
    assert state.options() == expected

    # The same values in new objects, as a state read again from its row would have them.
    fresh_card = Scorecard(columns=tuple(tuple(column) for column in card.columns), yahtzee_bonus=card.yahtzee_bonus)
    fresh = replace(
        state,
        cards=tuple(fresh_card if i == state.current else c for i, c in enumerate(state.cards)),
        turn=TurnState(dice=tuple(state.turn.dice), held=state.turn.held, rolls_used=state.turn.rolls_used),
    )
    assert fresh.cards[fresh.current] is not card
    assert fresh.options() is state.options()

    # A rule set that differs only in its multipliers is asked on its own.
    doubled = replace(OFFICIAL, multipliers=(2,))
    other = replace(state, ruleset=doubled)
    assert other.options() == score_options(doubled, card.as_columns(), state.turn.dice, state.turn.colours)
    assert [o.points for o in other.options()] == [2 * o.points for o in state.options()]
