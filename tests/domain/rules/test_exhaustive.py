"""Every roll, every box, every rule set: the engine against an independent reading of docs/rules.md.

Nothing here reuses the engine's scoring code. The score tables below are written straight
from docs/rules.md in a different style (patterns of the sorted dice instead of counters),
and the joker/bonus oracle spells out each rule set's precedence on its own. If the two
readings ever disagree, one of them misreads the rules.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Sequence

import pytest

from games.domain.rules import (
    FREE_JOKER,
    OFFICIAL,
    RULESETS,
    TRIPLE,
    YATZY,
    YETI,
    Box,
    RuleSet,
    plain_score,
    score_options,
)

Dice = tuple[int, ...]
Card = list[dict[Box, int]]
# (column, box) -> (points, bonus) for every LEGAL option.
Legal = dict[tuple[int, Box], tuple[int, int]]

ALL_ROLLS: list[Dice] = list(itertools.combinations_with_replacement(range(1, 7), 5))
FACES = range(1, 7)

# ---------------------------------------------------------------------------------------------
# The boxes, by their stable names (the only thing taken from the engine is the Box enum).
# ---------------------------------------------------------------------------------------------

UPPER: tuple[Box, ...] = tuple(Box(name) for name in ("ones", "twos", "threes", "fours", "fives", "sixes"))
FACE_OF: dict[Box, int] = {box: face for face, box in enumerate(UPPER, start=1)}
YAHTZEE = Box("yahtzee")
LOWER_13: tuple[Box, ...] = tuple(
    Box(name)
    for name in (
        "three_of_a_kind",
        "four_of_a_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "yahtzee",
        "chance",
    )
)
LOWER_YATZY: tuple[Box, ...] = tuple(
    Box(name)
    for name in (
        "one_pair",
        "two_pairs",
        "three_of_a_kind",
        "four_of_a_kind",
        "small_straight",
        "large_straight",
        "full_house",
        "chance",
        "yahtzee",
    )
)
BOXES_13: frozenset[Box] = frozenset(UPPER + LOWER_13)
BOXES_YATZY: frozenset[Box] = frozenset(UPPER + LOWER_YATZY)
# The lower boxes a joker can go in (all lower boxes except Yahtzee itself).
JOKER_LOWER: tuple[Box, ...] = tuple(b for b in LOWER_13 if b is not YAHTZEE)
# Fixed joker values of docs/rules.md; the other lower boxes score the sum of the dice.
JOKER_FIXED: dict[Box, int] = {Box("full_house"): 25, Box("small_straight"): 30, Box("large_straight"): 40}

# Per rule set, read from docs/rules.md (not from the RuleSet objects).
COLUMNS: dict[str, int] = {"official": 1, "free_joker": 1, "yeti": 1, "triple": 3, "yatzy": 1}
ALL_RULESETS: tuple[RuleSet, ...] = (OFFICIAL, FREE_JOKER, YETI, TRIPLE, YATZY)


def boxes_of(ruleset: RuleSet) -> frozenset[Box]:
    return BOXES_YATZY if ruleset.name == "yatzy" else BOXES_13


def multiplier(ruleset: RuleSet, column: int) -> int:
    """Column k (1, 2, 3 in docs/rules.md; 0-based here) of Triple Yahtzee multiplies by k."""
    return column + 1 if ruleset.name == "triple" else 1


# ---------------------------------------------------------------------------------------------
# The score tables, written as patterns of the sorted dice.
# ---------------------------------------------------------------------------------------------


def shape(dice: Sequence[int]) -> tuple[int, ...]:
    """Lengths of the groups of equal values, biggest first: (3, 2) is a full house, (5,) five of a kind."""
    s = sorted(dice)
    groups: list[int] = [1]
    for left, right in itertools.pairwise(s):
        if left == right:
            groups[-1] += 1
        else:
            groups.append(1)
    return tuple(sorted(groups, reverse=True))


def distinct_run(dice: Sequence[int]) -> str:
    """The distinct faces, ascending, as a string: 1 2 3 4 6 -> '12346'."""
    return "".join(str(face) for face in sorted(set(dice)))


def paired_faces(dice: Sequence[int]) -> set[int]:
    """Faces appearing at least twice, found as equal neighbours in the sorted dice."""
    s = sorted(dice)
    return {left for left, right in itertools.pairwise(s) if left == right}


def yahtzee_table(dice: Sequence[int], *, five_is_full_house: bool = False) -> dict[Box, int]:
    """The 13-box table of official / free_joker / yeti / triple, before multipliers and jokers."""
    sh = shape(dice)
    run = distinct_run(dice)
    total = sum(dice)
    full_house = sh == (3, 2) or (five_is_full_house and sh == (5,))
    table = {box: FACE_OF[box] * sum(1 for d in dice if d == FACE_OF[box]) for box in UPPER}
    table[Box("three_of_a_kind")] = total if sh[0] >= 3 else 0
    table[Box("four_of_a_kind")] = total if sh[0] >= 4 else 0
    table[Box("full_house")] = 25 if full_house else 0
    table[Box("small_straight")] = 30 if any(r in run for r in ("1234", "2345", "3456")) else 0
    table[Box("large_straight")] = 40 if run in ("12345", "23456") else 0
    table[YAHTZEE] = 50 if sh == (5,) else 0
    table[Box("chance")] = total
    return table


def yatzy_table(dice: Sequence[int]) -> dict[Box, int]:
    """The 15-box Scandinavian table."""
    s = sorted(dice)
    sh = shape(dice)
    pairs = paired_faces(dice)
    table = {box: FACE_OF[box] * s.count(FACE_OF[box]) for box in UPPER}
    table[Box("one_pair")] = 2 * max(pairs) if pairs else 0
    table[Box("two_pairs")] = 2 * sum(pairs) if len(pairs) == 2 else 0
    # The middle die of the sorted dice always belongs to a group of three or more.
    table[Box("three_of_a_kind")] = 3 * s[2] if sh[0] >= 3 else 0
    table[Box("four_of_a_kind")] = 4 * s[2] if sh[0] >= 4 else 0
    table[Box("small_straight")] = 15 if s == [1, 2, 3, 4, 5] else 0
    table[Box("large_straight")] = 20 if s == [2, 3, 4, 5, 6] else 0
    table[Box("full_house")] = sum(s) if sh == (3, 2) else 0
    table[Box("chance")] = sum(s)
    table[YAHTZEE] = 50 if sh == (5,) else 0
    return table


TABLES: dict[str, Callable[[Sequence[int]], dict[Box, int]]] = {
    "official": yahtzee_table,
    "free_joker": yahtzee_table,
    "triple": yahtzee_table,
    "yeti": lambda dice: yahtzee_table(dice, five_is_full_house=True),
    "yatzy": yatzy_table,
}


@functools.cache
def table_and_shape(name: str, dice: Dice) -> tuple[dict[Box, int], tuple[int, ...]]:
    """TABLES[name](dice) and shape(dice), worked out once per rule set and roll: the joker
    tests below ask for the same few rolls over thousands of cards (read only, never changed)."""
    return TABLES[name](dice), shape(dice)


def direct_plain(ruleset: RuleSet, box: Box, dice: Sequence[int]) -> int:
    return TABLES[ruleset.name](dice)[box]


# ---------------------------------------------------------------------------------------------
# The joker and bonus oracle, one branch per rule set.
# ---------------------------------------------------------------------------------------------


def open_boxes(ruleset: RuleSet, card: Card) -> list[tuple[int, Box]]:
    return [(k, box) for k in range(COLUMNS[ruleset.name]) for box in boxes_of(ruleset) if box not in card[k]]


def expected_legal(ruleset: RuleSet, card: Card, dice: Dice) -> Legal:
    """Which (column, box) may be scored for ``dice`` and for what (points with multiplier, bonus)."""
    table, dice_shape = table_and_shape(ruleset.name, dice)
    still_open = open_boxes(ruleset, card)
    plain: Legal = {(k, b): (table[b] * multiplier(ruleset, k), 0) for k, b in still_open}
    five = dice_shape == (5,)
    yahtzee_boxes = [card[k][YAHTZEE] for k in range(COLUMNS[ruleset.name]) if YAHTZEE in card[k]]
    if ruleset.name in ("yeti", "yatzy") or not five or not yahtzee_boxes:
        return plain
    face = dice[0]
    matching = UPPER[face - 1]
    if ruleset.name == "official":
        return official_joker(card, still_open, face, matching)
    if ruleset.name == "free_joker":
        return free_joker(card, still_open, face, matching, table)
    assert ruleset.name == "triple"
    return triple_joker(card, still_open, face, matching)


def joker_points(box: Box, face: int) -> int:
    """A lower box scored as a joker with five ``face``s (before the multiplier)."""
    return JOKER_FIXED.get(box, 5 * face)


def official_joker(card: Card, still_open: list[tuple[int, Box]], face: int, matching: Box) -> Legal:
    bonus = 100 if card[0][YAHTZEE] == 50 else 0
    if matching not in card[0]:
        return {(0, matching): (5 * face, bonus)}
    lower = [b for _, b in still_open if b in JOKER_LOWER]
    if lower:
        return {(0, b): (joker_points(b, face), bonus) for b in lower}
    return {(0, b): (0, bonus) for _, b in still_open}


def free_joker(card: Card, still_open: list[tuple[int, Box]], face: int, matching: Box, table: dict[Box, int]) -> Legal:
    bonus = 100 if card[0][YAHTZEE] == 50 else 0
    upper_done = matching in card[0]
    result: Legal = {}
    for _, b in still_open:
        if b in JOKER_FIXED:
            result[(0, b)] = (JOKER_FIXED[b] if upper_done else 0, bonus)
        else:
            result[(0, b)] = (table[b], bonus)
    return result


def triple_joker(card: Card, still_open: list[tuple[int, Box]], face: int, matching: Box) -> Legal:
    held = [card[k][YAHTZEE] for k in range(3) if YAHTZEE in card[k]]
    some_scored = any(points != 0 for points in held)
    all_scored = len(held) == 3 and 0 not in held

    def bonus(k: int, box: Box) -> int:
        if not some_scored:
            return 0
        if box is YAHTZEE:
            return 100 * (k + 1)
        return 300 if all_scored else 0

    def value(k: int, box: Box) -> int:
        if box is YAHTZEE:
            plain = 50
        elif box in FACE_OF:
            plain = 5 * face if box is matching else 0
        else:
            plain = joker_points(box, face)
        return plain * (k + 1)

    levels = (
        [(k, b) for k, b in still_open if b is YAHTZEE],
        [(k, b) for k, b in still_open if b is matching],
        [(k, b) for k, b in still_open if b in JOKER_LOWER],
        [(k, b) for k, b in still_open if b in FACE_OF],
    )
    chosen = next((level for level in levels if level), [])
    return {(k, b): (value(k, b), bonus(k, b)) for k, b in chosen}


def actual_legal(ruleset: RuleSet, card: Card, dice: Dice) -> Legal:
    options = score_options(ruleset, card, dice)
    offered = {(o.column, o.box) for o in options}
    assert offered == set(open_boxes(ruleset, card)), "score_options must list exactly the open boxes"
    assert len(offered) == len(options), "an open box is listed twice"
    for o in options:
        if not o.legal:
            assert (o.points, o.bonus) == (0, 0) and o.reason, o
    return {(o.column, o.box): (o.points, o.bonus) for o in options if o.legal}


def describe(card: Card) -> str:
    return " | ".join(",".join(f"{b.value}={p}" for b, p in col.items()) or "-" for col in card)


# ---------------------------------------------------------------------------------------------
# 1. Plain scores: 252 rolls x every box x every rule set.
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=lambda rs: rs.name)
def test_the_ruleset_has_the_boxes_of_rules_md(ruleset: RuleSet) -> None:
    assert set(ruleset.boxes) == boxes_of(ruleset)
    assert len(ruleset.boxes) == len(boxes_of(ruleset))
    assert ruleset.columns == COLUMNS[ruleset.name]
    assert RULESETS[ruleset.name] is ruleset


@pytest.mark.parametrize("dice", ALL_ROLLS, ids=lambda d: "".join(map(str, d)))
@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=lambda rs: rs.name)
def test_plain_score_matches_the_table_for_every_roll(ruleset: RuleSet, dice: Dice) -> None:
    expected = TABLES[ruleset.name](dice)
    # Order never matters: check the sorted roll and a shuffled (reversed, rotated) one.
    for order in (dice, dice[::-1], dice[2:] + dice[:2]):
        got = {box: plain_score(ruleset, box, order) for box in ruleset.boxes}
        assert got == expected, f"{ruleset.name} {order}"


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=lambda rs: rs.name)
def test_every_roll_on_an_empty_card_offers_every_box_at_its_plain_score(ruleset: RuleSet) -> None:
    card: Card = [{} for _ in range(COLUMNS[ruleset.name])]
    for dice in ALL_ROLLS:
        assert actual_legal(ruleset, card, dice) == expected_legal(ruleset, card, dice), dice


@pytest.mark.parametrize("yahtzee_points", [0, 50], ids=["yahtzee0", "yahtzee50"])
@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=lambda rs: rs.name)
def test_rolls_other_than_five_of_a_kind_never_trigger_a_joker(ruleset: RuleSet, yahtzee_points: int) -> None:
    columns = COLUMNS[ruleset.name]
    # Yahtzee boxes filled, plus a scattering of other filled boxes, so no joker can hide behind an empty card.
    card: Card = [{YAHTZEE: yahtzee_points * (k + 1), UPPER[k]: 0, Box("chance"): 0} for k in range(columns)]
    for dice in ALL_ROLLS:
        if shape(dice) == (5,):
            continue
        options = score_options(ruleset, card, dice)
        assert all(o.legal and o.bonus == 0 and not o.joker for o in options), dice
        assert actual_legal(ruleset, card, dice) == expected_legal(ruleset, card, dice), dice


# Readings of docs/rules.md that are easy to get wrong, each pinned down by name (the sweeps above
# cover them too): Yatzy's three and four of a kind score three or four dice even with five of a
# kind, five of a kind is no straight, and no full house but in Yeti, and Yatzy's two pairs
# are two different values.


@pytest.mark.parametrize("face", FACES)
def test_yatzy_three_and_four_of_a_kind_count_only_three_or_four_dice_even_with_five(face: int) -> None:
    five = (face,) * 5
    assert plain_score(YATZY, Box("three_of_a_kind"), five) == 3 * face
    assert plain_score(YATZY, Box("four_of_a_kind"), five) == 4 * face
    assert plain_score(YATZY, Box("three_of_a_kind"), (face,) * 4 + (face % 6 + 1,)) == 3 * face


@pytest.mark.parametrize("face", FACES)
def test_five_of_a_kind_is_not_two_pairs_full_house_or_straight(face: int) -> None:
    five = (face,) * 5
    for box in ("two_pairs", "full_house", "small_straight", "large_straight"):
        assert plain_score(YATZY, Box(box), five) == 0
    for ruleset in (OFFICIAL, FREE_JOKER, TRIPLE):
        for box in ("full_house", "small_straight", "large_straight"):
            assert plain_score(ruleset, Box(box), five) == 0
    assert plain_score(YETI, Box("full_house"), five) == 25


def test_yatzy_two_pairs_needs_two_different_values() -> None:
    assert plain_score(YATZY, Box("two_pairs"), (2, 2, 2, 2, 5)) == 0
    assert plain_score(YATZY, Box("two_pairs"), (2, 2, 5, 5, 5)) == 14
    assert plain_score(YATZY, Box("two_pairs"), (1, 1, 6, 6, 3)) == 14
    assert plain_score(YATZY, Box("one_pair"), (1, 1, 6, 6, 3)) == 12


# ---------------------------------------------------------------------------------------------
# 2. Five of a kind against every card situation: official, free_joker, yeti, yatzy.
# ---------------------------------------------------------------------------------------------

# Filler points for filled boxes other than Yahtzee (only Yahtzee's own value can matter).
FILLER: dict[Box, int] = {
    **{box: 2 * FACE_OF[box] for box in UPPER},
    Box("three_of_a_kind"): 17,
    Box("four_of_a_kind"): 0,
    Box("full_house"): 25,
    Box("small_straight"): 0,
    Box("large_straight"): 40,
    Box("chance"): 22,
    Box("one_pair"): 8,
    Box("two_pairs"): 0,
}


def other_upper_patterns(face: int) -> dict[str, tuple[Box, ...]]:
    """Which upper boxes other than the matching one are filled."""
    others = tuple(b for b in UPPER if FACE_OF[b] != face)
    return {"others_open": (), "others_filled": others, "lowest_other_open": others[1:], "top_other_open": others[:-1]}


YAHTZEE_STATES: dict[str, int | None] = {"yahtzee_open": None, "yahtzee50": 50, "yahtzee0": 0}


def single_column_cards(ruleset: RuleSet, face: int, yahtzee: int | None, matching_filled: bool) -> Iterator[Card]:
    """Every subset of the joker lower boxes filled x four patterns of the other upper boxes."""
    lower = [b for b in boxes_of(ruleset) if b not in FACE_OF and b is not YAHTZEE]
    for n in range(len(lower) + 1):
        for filled_lower in itertools.combinations(lower, n):
            for filled_upper in other_upper_patterns(face).values():
                column: dict[Box, int] = {b: FILLER[b] for b in (*filled_lower, *filled_upper)}
                if matching_filled:
                    column[UPPER[face - 1]] = 3 * face
                if yahtzee is not None:
                    column[YAHTZEE] = yahtzee
                yield [column]


@pytest.mark.parametrize("matching_filled", [False, True], ids=["matching_open", "matching_filled"])
@pytest.mark.parametrize("yahtzee", list(YAHTZEE_STATES.values()), ids=list(YAHTZEE_STATES))
@pytest.mark.parametrize("face", FACES, ids=lambda f: f"five_{f}s")
@pytest.mark.parametrize("ruleset", [OFFICIAL, FREE_JOKER, YETI, YATZY], ids=lambda rs: rs.name)
def test_five_of_a_kind_legal_boxes_points_and_bonus_single_column(
    ruleset: RuleSet, face: int, yahtzee: int | None, matching_filled: bool
) -> None:
    dice = (face,) * 5
    checked = 0
    for card in single_column_cards(ruleset, face, yahtzee, matching_filled):
        expected = expected_legal(ruleset, card, dice)
        assert actual_legal(ruleset, card, dice) == expected, f"{ruleset.name} {dice} card: {describe(card)}"
        checked += 1
    assert checked == 2 ** (len(boxes_of(ruleset)) - 7) * 4


# ---------------------------------------------------------------------------------------------
# 3. Five of a kind in Triple Yahtzee: every Yahtzee column state x many card situations.
# ---------------------------------------------------------------------------------------------

TRIPLE_YAHTZEE_STATES: list[tuple[str, ...]] = list(itertools.product(("open", "50k", "0"), repeat=3))
# Lower (non-Yahtzee) boxes filled in a column: none, all, or all but Full House and Large Straight.
TRIPLE_LOWER_PATTERNS: tuple[tuple[Box, ...], ...] = (
    (),
    JOKER_LOWER,
    tuple(b for b in JOKER_LOWER if b not in (Box("full_house"), Box("large_straight"))),
)


def triple_cards(face: int, yahtzee_states: tuple[str, ...]) -> Iterator[Card]:
    matching = UPPER[face - 1]
    others = tuple(b for b in UPPER if b is not matching)
    for matching_filled in itertools.product((False, True), repeat=3):
        for lower in itertools.product(TRIPLE_LOWER_PATTERNS, repeat=3):
            for other_upper in ((), others, others[:-1]):
                card: Card = []
                for k in range(3):
                    column = {b: FILLER[b] * (k + 1) for b in (*lower[k], *other_upper)}
                    if matching_filled[k]:
                        column[matching] = 4 * face * (k + 1)
                    if yahtzee_states[k] == "50k":
                        column[YAHTZEE] = 50 * (k + 1)
                    elif yahtzee_states[k] == "0":
                        column[YAHTZEE] = 0
                    card.append(column)
                yield card


@pytest.mark.parametrize("yahtzee_states", TRIPLE_YAHTZEE_STATES, ids=lambda s: "Y[" + ",".join(s) + "]")
@pytest.mark.parametrize("face", FACES, ids=lambda f: f"five_{f}s")
def test_triple_five_of_a_kind_precedence_points_and_bonus(face: int, yahtzee_states: tuple[str, ...]) -> None:
    dice = (face,) * 5
    for card in triple_cards(face, yahtzee_states):
        expected = expected_legal(TRIPLE, card, dice)
        assert actual_legal(TRIPLE, card, dice) == expected, f"{dice} card: {describe(card)}"


# ---------------------------------------------------------------------------------------------
# 4. Hand-picked joker situations named by behaviour (each also covered exhaustively above).
# ---------------------------------------------------------------------------------------------


def legal(ruleset: RuleSet, card: Card, dice: Dice) -> Legal:
    return actual_legal(ruleset, card, dice)


def full_lower(points: int = 0) -> dict[Box, int]:
    return {b: points for b in JOKER_LOWER}


def test_forced_joker_allows_only_the_matching_upper_box() -> None:
    assert legal(OFFICIAL, [{YAHTZEE: 50}], (4,) * 5) == {(0, Box("fours")): (20, 100)}


def test_forced_joker_with_matching_upper_filled_allows_every_open_lower_box_as_joker() -> None:
    got = legal(OFFICIAL, [{YAHTZEE: 0, Box("fours"): 8}], (4,) * 5)
    assert got == {
        (0, Box("three_of_a_kind")): (20, 0),
        (0, Box("four_of_a_kind")): (20, 0),
        (0, Box("full_house")): (25, 0),
        (0, Box("small_straight")): (30, 0),
        (0, Box("large_straight")): (40, 0),
        (0, Box("chance")): (20, 0),
    }


def test_forced_joker_with_every_lower_box_filled_scratches_any_open_upper_box_with_the_bonus() -> None:
    card: Card = [{YAHTZEE: 50, **full_lower(), Box("fours"): 12, Box("threes"): 9, Box("fives"): 15, Box("sixes"): 6}]
    assert legal(OFFICIAL, card, (4,) * 5) == {(0, Box("ones")): (0, 100), (0, Box("twos")): (0, 100)}


def test_five_of_a_kind_with_the_yahtzee_box_open_scores_the_plain_table_anywhere() -> None:
    got = legal(OFFICIAL, [{Box("fours"): 12}], (4,) * 5)
    assert got[(0, YAHTZEE)] == (50, 0)
    assert got[(0, Box("full_house"))] == (0, 0)
    assert got[(0, Box("large_straight"))] == (0, 0)
    assert got[(0, Box("chance"))] == (20, 0)
    assert len(got) == 12


def test_free_joker_pays_straights_only_once_the_matching_upper_box_is_filled() -> None:
    open_upper = legal(FREE_JOKER, [{YAHTZEE: 50}], (4,) * 5)
    assert open_upper[(0, Box("full_house"))] == (0, 100)
    assert open_upper[(0, Box("small_straight"))] == (0, 100)
    assert open_upper[(0, Box("fours"))] == (20, 100)
    assert open_upper[(0, Box("chance"))] == (20, 100)
    assert len(open_upper) == 12
    filled_upper = legal(FREE_JOKER, [{YAHTZEE: 0, Box("fours"): 4}], (4,) * 5)
    assert filled_upper[(0, Box("full_house"))] == (25, 0)
    assert filled_upper[(0, Box("small_straight"))] == (30, 0)
    assert filled_upper[(0, Box("large_straight"))] == (40, 0)


def test_yeti_has_no_joker_and_no_bonus() -> None:
    got = legal(YETI, [{YAHTZEE: 50}], (6,) * 5)
    assert got[(0, Box("full_house"))] == (25, 0)
    assert got[(0, Box("chance"))] == (30, 0)
    assert got[(0, Box("small_straight"))] == (0, 0)
    assert all(bonus == 0 for _, bonus in got.values())


def test_triple_open_yahtzee_box_takes_precedence_and_pays_100_times_its_column() -> None:
    card: Card = [{YAHTZEE: 50}, {}, {}]
    assert legal(TRIPLE, card, (3,) * 5) == {(1, YAHTZEE): (100, 200), (2, YAHTZEE): (150, 300)}


def test_triple_open_yahtzee_box_after_a_zero_pays_no_bonus() -> None:
    card: Card = [{YAHTZEE: 0}, {}, {}]
    assert legal(TRIPLE, card, (3,) * 5) == {(1, YAHTZEE): (100, 0), (2, YAHTZEE): (150, 0)}


def test_triple_then_the_matching_upper_box_in_any_column() -> None:
    card: Card = [{YAHTZEE: 50}, {YAHTZEE: 100, Box("threes"): 6}, {YAHTZEE: 0}]
    assert legal(TRIPLE, card, (3,) * 5) == {(0, Box("threes")): (15, 0), (2, Box("threes")): (45, 0)}


def test_triple_pays_300_only_when_every_yahtzee_box_holds_a_score() -> None:
    card: Card = [{YAHTZEE: 50}, {YAHTZEE: 100}, {YAHTZEE: 150}]
    assert legal(TRIPLE, card, (2,) * 5) == {(k, Box("twos")): (10 * (k + 1), 300) for k in range(3)}


def test_triple_lower_joker_then_zero_in_an_upper_box() -> None:
    threes = Box("threes")
    lower_only: Card = [
        {YAHTZEE: 50, threes: 9},
        {YAHTZEE: 100, threes: 18},
        {YAHTZEE: 150, threes: 27, **full_lower(0)},
    ]
    got = legal(TRIPLE, lower_only, (3,) * 5)
    assert got[(1, Box("large_straight"))] == (80, 300)
    assert got[(0, Box("full_house"))] == (25, 300)
    assert got[(1, Box("chance"))] == (30, 300)
    assert len(got) == 12
    no_lower: Card = [{**col, **full_lower(0)} for col in lower_only]
    got = legal(TRIPLE, no_lower, (3,) * 5)
    assert set(got) == {(k, b) for k in range(3) for b in UPPER if b is not threes}
    assert set(got.values()) == {(0, 300)}


# ---------------------------------------------------------------------------------------------
# 5. The worked examples of docs/rules.md.
# ---------------------------------------------------------------------------------------------

PLAIN_EXAMPLES: list[tuple[RuleSet, Dice, dict[str, int]]] = [
    (OFFICIAL, (3, 3, 3, 5, 6), {"threes": 9, "fives": 5, "three_of_a_kind": 20, "four_of_a_kind": 0, "chance": 20}),
    (OFFICIAL, (4, 4, 4, 4, 5), {"three_of_a_kind": 21, "four_of_a_kind": 21, "full_house": 0}),
    (OFFICIAL, (1, 2, 3, 4, 6), {"small_straight": 30, "large_straight": 0}),
    (OFFICIAL, (2, 2, 3, 3, 3), {"full_house": 25, "three_of_a_kind": 13}),
    (YATZY, (3, 3, 5, 5, 5), {"one_pair": 10, "two_pairs": 16, "three_of_a_kind": 15, "full_house": 21}),
    (YATZY, (1, 2, 3, 4, 5), {"small_straight": 15, "large_straight": 0, "chance": 15}),
]


@pytest.mark.parametrize(("ruleset", "dice", "scores"), PLAIN_EXAMPLES)
def test_worked_plain_examples(ruleset: RuleSet, dice: Dice, scores: dict[str, int]) -> None:
    for name, points in scores.items():
        assert plain_score(ruleset, Box(name), dice) == points, name
        assert direct_plain(ruleset, Box(name), dice) == points, f"the test's own table: {name}"


def test_worked_example_official_yahtzee_zero_fours_filled() -> None:
    got = legal(OFFICIAL, [{YAHTZEE: 0, Box("fours"): 12}], (4,) * 5)
    assert got[(0, Box("large_straight"))] == (40, 0)
    assert got[(0, Box("full_house"))] == (25, 0)
    assert all(b in JOKER_LOWER for _, b in got)


def test_worked_example_triple_fours_in_column_three() -> None:
    options = score_options(TRIPLE, [{}, {}, {}], (4, 4, 4, 1, 2))
    fours = next(o for o in options if o.box is Box("fours") and o.column == 2)
    assert (fours.legal, fours.points, fours.bonus) == (True, 36, 0)
