"""Painted Yahtzee: coloured dice, ten colour boxes, the official joker beside them.

The scores below are an independent reading of the ``painted`` section of the rules (written
from the dice's (value, colour) pairs, not with the engine's counters), checked over every
distinct roll of five coloured dice: all C(34, 5) = 278,256 multisets of the 30 faces.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.domain.rules import (
    COLOUR_BOXES,
    COLOURS,
    OFFICIAL,
    PAINTED,
    Box,
    GameState,
    RuleViolation,
    Scorecard,
    apply_hold,
    apply_roll,
    apply_rolled,
    apply_score,
    apply_start,
    face_colour,
    face_value,
    new_game,
    plain_score,
    score_options,
)
from games.domain.rules.codec import state_from_dict, state_to_dict

RED, YELLOW, GREEN, BLUE, PURPLE = range(5)
NAME = {"red": RED, "yellow": YELLOW, "green": GREEN, "blue": BLUE, "purple": PURPLE}
UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
LOWER = ("three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "yahtzee", "chance")
COLOUR_IDS = ("red", "yellow", "green", "blue", "purple", "four_colour", "painted_house", "rainbow", "flush", "palette")


def roll(*pairs: tuple[int, str]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(v for v, _ in pairs), tuple(NAME[c] for _, c in pairs)


def scores(dice: Sequence[int], colours: Sequence[int]) -> dict[str, int]:
    # A Box is a StrEnum: it equals, and hashes as, its name ("red"), so it is the key as it is
    # (o.box.value, an enum property, cost a second over the 278,256 rolls below).
    return {o.box: o.points for o in score_options(PAINTED, [{}], dice, colours)}


# --- the rule set itself ---------------------------------------------------------------------


def test_painted_has_the_official_thirteen_then_the_ten_colour_boxes_in_order() -> None:
    assert [b.value for b in PAINTED.boxes] == [*UPPER, *[b.value for b in OFFICIAL.lower_boxes], *COLOUR_IDS]
    assert [b.value for b in COLOUR_BOXES] == list(COLOUR_IDS)
    assert [b.value for b in PAINTED.colour_boxes] == list(COLOUR_IDS)
    assert PAINTED.turns_per_player == 23
    assert PAINTED.outcomes == 30 and OFFICIAL.outcomes == 6
    assert COLOURS == ("red", "yellow", "green", "blue", "purple")
    assert (PAINTED.upper_bonus, PAINTED.upper_bonus_threshold, PAINTED.yahtzee_bonus) == (35, 63, 100)


# --- the worked examples of the rules ---------------------------------------------------------


def test_worked_example_two_colours_and_a_green() -> None:
    got = scores(*roll((3, "red"), (3, "red"), (3, "blue"), (5, "blue"), (6, "green")))
    expected = {"red": 6, "blue": 8, "green": 6, "painted_house": 0, "rainbow": 0, "three_of_a_kind": 20}
    assert {k: got[k] for k in expected} == expected
    assert got["palette"] == 20


def test_worked_example_rainbow_is_not_a_straight() -> None:
    got = scores(*roll((1, "red"), (2, "yellow"), (4, "green"), (4, "blue"), (6, "purple")))
    assert (got["rainbow"], got["large_straight"], got["small_straight"]) == (40, 0, 0)


def test_worked_example_painted_house_is_not_a_full_house() -> None:
    got = scores(*roll((2, "red"), (2, "red"), (5, "red"), (6, "blue"), (6, "blue")))
    assert (got["painted_house"], got["red"], got["full_house"]) == (25, 9, 0)


def _card(filled: dict[str, int]) -> list[dict[Box, int]]:
    return [{Box(k): v for k, v in filled.items()}]


def test_worked_example_flush_takes_a_purple_five_of_a_kind_with_the_bonus() -> None:
    lower_filled = {b: 0 for b in LOWER if b != "yahtzee"}
    card = _card({"yahtzee": 50, "fives": 25, **lower_filled})
    dice, colours = (5,) * 5, (PURPLE,) * 5
    options = {o.box.value: o for o in score_options(PAINTED, card, dice, colours)}
    assert options["flush"].legal and (options["flush"].points, options["flush"].bonus) == (50, 100)
    assert options["purple"].legal and options["purple"].points == 25
    assert not options["flush"].joker and not options["purple"].joker
    # Every colour box is legal (level 2 of the joker), scored by its colours; upper boxes are not.
    assert {b for b, o in options.items() if o.legal} == set(COLOUR_IDS)
    assert options["red"].points == 0 and options["palette"].points == 25 and options["rainbow"].points == 0
    assert options["ones"].reason.startswith("joker rule")
    # With Purple filled as well it is still Flush 50.
    card[0][Box.PURPLE] = 0
    options = {o.box.value: o for o in score_options(PAINTED, card, dice, colours)}
    assert "purple" not in options and options["flush"].points == 50


def test_five_of_a_colour_is_no_joker_and_earns_no_bonus() -> None:
    card = _card({"yahtzee": 50})
    dice, colours = (1, 2, 3, 4, 6), (RED,) * 5
    options = {o.box.value: o for o in score_options(PAINTED, card, dice, colours)}
    assert all(o.legal and o.bonus == 0 and not o.joker for o in options.values())
    assert (options["flush"].points, options["red"].points, options["large_straight"].points) == (50, 16, 0)


def test_forced_joker_puts_five_of_a_kind_in_its_open_upper_box_only() -> None:
    card = _card({"yahtzee": 50})
    options = score_options(PAINTED, card, (4,) * 5, (RED, RED, BLUE, GREEN, GREEN))
    legal = [o for o in options if o.legal]
    assert [(o.box.value, o.points, o.bonus) for o in legal] == [("fours", 20, 100)]
    assert {o.reason for o in options if not o.legal} == {"joker rule: five 4s must go in the open Fours box"}


def test_forced_joker_scores_lower_boxes_as_jokers_and_colour_boxes_by_colour() -> None:
    card = _card({"yahtzee": 0, "fours": 16})
    options = {o.box.value: o for o in score_options(PAINTED, card, (4,) * 5, (RED, RED, RED, BLUE, BLUE))}
    assert {b for b, o in options.items() if o.legal} == {*(b for b in LOWER if b != "yahtzee"), *COLOUR_IDS}
    assert (options["full_house"].points, options["large_straight"].points, options["chance"].points) == (25, 40, 20)
    assert options["full_house"].joker and not options["painted_house"].joker
    assert (options["painted_house"].points, options["red"].points, options["blue"].points) == (25, 12, 8)
    assert (options["flush"].points, options["rainbow"].points, options["four_colour"].points) == (0, 0, 0)
    assert all(o.bonus == 0 for o in options.values())  # the Yahtzee box holds 0
    assert options["ones"].reason == "joker rule: a five of a kind must go in an open lower box or colour box"


def test_forced_joker_falls_to_zero_in_an_upper_box_when_lower_and_colour_boxes_are_full() -> None:
    filled = {b: 0 for b in (*LOWER, *COLOUR_IDS)}
    filled["yahtzee"] = 50
    card = _card({**filled, "fours": 12})
    options = score_options(PAINTED, card, (4,) * 5, (RED,) * 5)
    assert all(o.legal for o in options)
    assert {(o.box.value, o.points, o.bonus) for o in options} == {(b, 0, 100) for b in UPPER if b != "fours"}


# --- every roll, every box, against an independent reading ------------------------------------

FACES = [(v, c) for c in range(5) for v in range(1, 7)]


@functools.cache
def value_scores(values: tuple[int, ...]) -> dict[str, int]:
    """The upper and lower boxes: they read only the dice's values (``values`` sorted).

    There are 252 such multisets among the 278,256 coloured rolls, so each is worked out once.
    """
    total = sum(values)
    distinct = sorted(set(values))
    out = {name: face * values.count(face) for face, name in enumerate(UPPER, start=1)}
    kinds = sorted((values.count(v) for v in distinct), reverse=True)
    out["three_of_a_kind"] = total if kinds[0] >= 3 else 0
    out["four_of_a_kind"] = total if kinds[0] >= 4 else 0
    out["full_house"] = 25 if kinds == [3, 2] else 0
    small = any(all(x in distinct for x in range(lo, lo + 4)) for lo in (1, 2, 3))
    out["small_straight"] = 30 if small else 0
    out["large_straight"] = 40 if distinct in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else 0
    out["yahtzee"] = 50 if kinds == [5] else 0
    out["chance"] = total
    return out


def expected_scores(pairs: Sequence[tuple[int, int]]) -> dict[str, int]:
    out = dict(value_scores(tuple(sorted(v for v, _ in pairs))))
    total = out["chance"]
    by_colour: dict[int, list[int]] = {c: [] for c in range(5)}
    for v, c in pairs:
        by_colour[c].append(v)
    sizes = sorted((len(vs) for vs in by_colour.values() if vs), reverse=True)
    for c, name in enumerate(COLOUR_IDS[:5]):
        out[name] = sum(by_colour[c])
    out["four_colour"] = total if sizes[0] >= 4 else 0
    out["painted_house"] = 25 if sizes == [3, 2] else 0
    out["rainbow"] = 40 if sizes == [1, 1, 1, 1, 1] else 0
    out["flush"] = 50 if sizes == [5] else 0
    out["palette"] = total
    return out


@pytest.mark.parametrize("first", range(len(FACES)), ids=lambda i: f"{FACES[i][0]}{COLOURS[FACES[i][1]]}")
def test_every_box_over_every_distinct_coloured_roll(first: int) -> None:
    """The rolls whose lowest face (in value-then-colour order) is FACES[first]: all 30 slices cover all rolls."""
    checked = 0
    shuffle = random.Random(first).shuffle
    for rest in itertools.combinations_with_replacement(range(first, len(FACES)), 4):
        pairs = [FACES[first], *(FACES[i] for i in rest)]
        # Shuffle die order deterministically: scores never depend on it.
        shuffle(pairs)
        dice = tuple(v for v, _ in pairs)
        colours = tuple(c for _, c in pairs)
        assert scores(dice, colours) == expected_scores(pairs), pairs
        checked += 1
    assert checked == len(list(itertools.combinations_with_replacement(range(len(FACES) - first), 4)))


def test_the_slices_cover_all_278256_rolls() -> None:
    assert sum(len(list(itertools.combinations_with_replacement(range(30 - f), 4))) for f in range(30)) == 278256


def test_colour_boxes_refuse_dice_without_colours() -> None:
    with pytest.raises(ValueError, match="one colour per die"):
        plain_score(PAINTED, Box.RED, (1, 2, 3, 4, 5))
    assert plain_score(PAINTED, Box.CHANCE, (1, 2, 3, 4, 5)) == 15


# --- the joker over every five of a kind and card shape, against an independent oracle ---------

COLOUR_PATTERNS = {
    "flush": (PURPLE,) * 5,
    "house": (RED, RED, RED, BLUE, BLUE),
    "rainbow": (RED, YELLOW, GREEN, BLUE, PURPLE),
    "four": (GREEN, GREEN, GREEN, GREEN, YELLOW),
}


def joker_oracle(
    filled: set[str], yahtzee: int | None, face: int, colours: Sequence[int]
) -> dict[str, tuple[int, int]]:
    """(points, bonus) of every legal box, straight from the painted section of the rules."""
    pairs = [(face, c) for c in colours]
    plain = expected_scores(pairs)
    open_boxes = [b for b in (*UPPER, *LOWER, *COLOUR_IDS) if b not in filled]
    if yahtzee is None:  # Yahtzee box open: anything, by the plain table
        return {b: (plain[b], 0) for b in open_boxes}
    bonus = 100 if yahtzee == 50 else 0
    upper = UPPER[face - 1]
    if upper in open_boxes:
        return {upper: (5 * face, bonus)}
    joker = {"three_of_a_kind": 5 * face, "four_of_a_kind": 5 * face, "full_house": 25}
    joker |= {"small_straight": 30, "large_straight": 40, "chance": 5 * face}
    side = {b: (joker[b], bonus) for b in open_boxes if b in joker}
    side |= {b: (plain[b], bonus) for b in open_boxes if b in COLOUR_IDS}
    if side:
        return side
    return {b: (0, bonus) for b in open_boxes}


CARD_SHAPES = {
    "all_open": set(),
    "lower_full": {b for b in LOWER if b != "yahtzee"},
    "colour_full": set(COLOUR_IDS),
    "lower_and_colour_full": {b for b in LOWER if b != "yahtzee"} | set(COLOUR_IDS),
    "some_of_each": {"full_house", "chance", "flush", "red", "purple"},
}


@pytest.mark.parametrize("shape", list(CARD_SHAPES))
@pytest.mark.parametrize("yahtzee", [None, 0, 50], ids=["yahtzee_open", "yahtzee0", "yahtzee50"])
@pytest.mark.parametrize("upper_filled", [False, True], ids=["upper_open", "upper_filled"])
@pytest.mark.parametrize("pattern", list(COLOUR_PATTERNS))
@pytest.mark.parametrize("face", range(1, 7))
def test_joker_over_card_shapes(shape: str, yahtzee: int | None, upper_filled: bool, pattern: str, face: int) -> None:
    filled = set(CARD_SHAPES[shape])
    if upper_filled:
        filled.add(UPPER[face - 1])
    card = {Box(b): 0 for b in filled}
    if yahtzee is not None:
        filled.add("yahtzee")
        card[Box.YAHTZEE] = yahtzee
    colours = COLOUR_PATTERNS[pattern]
    got = {o.box.value: (o.points, o.bonus) for o in score_options(PAINTED, [card], (face,) * 5, colours) if o.legal}
    assert got == joker_oracle(filled, yahtzee, face, colours)


# --- the dice: faces 1-30, holds keep value and colour ---------------------------------------


def test_faces_map_to_value_and_colour() -> None:
    assert [(face_value(f), face_colour(f)) for f in range(1, 31)] == FACES
    state = apply_start(new_game(PAINTED, 1))
    state = apply_rolled(state, player=0, faces=[1, 8, 15, 22, 30])
    assert state.turn.dice == (1, 2, 3, 4, 6) and state.turn.colours == (RED, YELLOW, GREEN, BLUE, PURPLE)
    state = apply_hold(state, player=0, held=[0, 4])
    state = apply_rolled(state, player=0, faces=[12, 13, 24])
    assert state.turn.dice == (1, 6, 1, 6, 6) and state.turn.colours == (RED, YELLOW, GREEN, BLUE, PURPLE)


BAD_FACES = [[0, 1, 2, 3, 4], [1, 2, 3, 4, 31], [1, 2, 3, 4], [1, 2, 3, 4, True], [1, 2, 3, 4, "5"]]


@pytest.mark.parametrize("faces", BAD_FACES)
def test_bad_painted_faces_are_refused_and_change_nothing(faces: list[object]) -> None:
    state = apply_start(new_game(PAINTED, 1))
    with pytest.raises(RuleViolation) as err:
        apply_rolled(state, player=0, faces=faces)  # type: ignore[arg-type]
    assert err.value.code == "bad_dice" and "1 to 30" in err.value.message
    assert state.turn.dice == () and state.turn.colours == ()


def test_other_rule_sets_still_take_faces_1_to_6_and_have_no_colours() -> None:
    state = apply_start(new_game(OFFICIAL, 1))
    with pytest.raises(RuleViolation):
        apply_rolled(state, player=0, faces=[1, 2, 3, 4, 7])
    state = apply_rolled(state, player=0, faces=[1, 2, 3, 4, 6])
    assert state.turn.colours == ()
    assert "colours" not in state_to_dict(state)["turn"]


def test_every_outcome_is_rolled_uniformly_enough() -> None:
    rng = random.Random(7)
    seen = set()
    state = apply_start(new_game(PAINTED, 1))
    for _ in range(200):
        rolled = apply_roll(state, player=0, rng=rng)
        seen |= set(zip(rolled.turn.dice, rolled.turn.colours, strict=True))
    assert seen == set(FACES)


# --- whole random games: invariants, replay, the stored form ---------------------------------

GAME_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play(seed: int, players: int) -> tuple[GameState, list[tuple[str, object]]]:
    """A random complete game; returns the final state and the log of (action, argument)."""
    rng = random.Random(seed)
    state = apply_start(new_game(PAINTED, players))
    log: list[tuple[str, object]] = []
    while not state.is_over:
        seat = state.current
        before = state.cards[seat]
        rolls = rng.randint(1, 3)
        for r in range(rolls):
            if r:
                held = [i for i in range(5) if rng.random() < 0.4][:4]
                state = apply_hold(state, player=seat, held=held)
                log.append(("hold", held))
            kept = {i: (state.turn.dice[i], state.turn.colours[i]) for i in state.turn.held} if r else {}
            faces = [rng.randint(1, 30) for _ in range(5 - len(kept))]
            state = apply_rolled(state, player=seat, faces=faces)
            log.append(("roll", faces))
            assert len(state.turn.colours) == 5 and all(0 <= c < 5 for c in state.turn.colours)
            assert all((state.turn.dice[i], state.turn.colours[i]) == kept[i] for i in kept)
            assert state_from_dict(state_to_dict(state)) == state
        options = state.options()
        legal = [o for o in options if o.legal]
        assert legal and len(options) == 23 - before.filled
        choice = rng.choice(legal)
        state = apply_score(state, player=seat, box=choice.box.value)
        log.append(("score", choice.box.value))
        after = state.cards[seat]
        assert after.filled == before.filled + 1
        assert dict(after.columns[0])[choice.box] == choice.points
        assert after.yahtzee_bonus[0] == before.yahtzee_bonus[0] + choice.bonus
    for seat in range(players):
        card = state.cards[seat]
        assert card.filled == 23 and {b for b, _ in card.columns[0]} == set(PAINTED.boxes)
        totals = state.totals(seat)
        column = dict(card.columns[0])
        assert totals.colour == sum(column[b] for b in COLOUR_BOXES)
        upper = sum(column[Box(b)] for b in UPPER)
        assert totals.upper_bonus == (35 if upper >= 63 else 0)
        assert totals.grand_total == sum(column.values()) + totals.upper_bonus + card.yahtzee_bonus[0]
    assert state.turns_played == 23 * players
    return state, log


@GAME_SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), players=st.integers(min_value=1, max_value=4))
def test_random_painted_games_keep_every_invariant(seed: int, players: int) -> None:
    play(seed, players)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_replaying_the_log_of_a_random_game_reproduces_its_stored_state(seed: int) -> None:
    final, log = play(seed, 2)
    stored = state_to_dict(final)
    state = apply_start(new_game(PAINTED, 2))
    for action, arg in log:
        seat = state.current
        if action == "roll":
            state = apply_rolled(state, player=seat, faces=arg)  # type: ignore[arg-type]
        elif action == "hold":
            state = apply_hold(state, player=seat, held=arg)  # type: ignore[arg-type]
        else:
            state = apply_score(state, player=seat, box=arg)  # type: ignore[arg-type]
    assert state_to_dict(state) == stored
    assert state_from_dict(stored) == final


def test_a_state_stored_without_colours_loads_with_none() -> None:
    data = state_to_dict(apply_start(new_game(OFFICIAL, 1)))
    assert state_from_dict(data).turn.colours == ()
    assert Scorecard.empty(1).filled == 0
