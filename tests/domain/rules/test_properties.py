"""Random whole games: whatever legal choices players make, the bookkeeping invariants hold.

Each game is driven by a seeded ``random.Random`` (the seed comes from Hypothesis), so a
failing example replays exactly. A "loaded" generator that favours one face makes five of
a kinds common, so the joker and Yahtzee bonus branches are exercised in real games too.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

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
    apply_hold,
    apply_roll,
    apply_score,
    apply_start,
    new_game,
    plain_score,
)

ALL_RULESETS: tuple[RuleSet, ...] = (OFFICIAL, FREE_JOKER, YETI, TRIPLE, YATZY)
UPPER_NAMES = frozenset({"ones", "twos", "threes", "fours", "fives", "sixes"})
# Upper bonus per column, from docs/rules.md (triple: 35·k for column k, 1-based).
UPPER_BONUS: dict[str, int] = {"official": 35, "free_joker": 35, "yeti": 35, "triple": 35, "yatzy": 50}
BOX_COUNT: dict[str, int] = {"official": 13, "free_joker": 13, "yeti": 13, "triple": 13, "yatzy": 15}
COLUMN_COUNT: dict[str, int] = {"official": 1, "free_joker": 1, "yeti": 1, "triple": 3, "yatzy": 1}
HAS_BONUS = frozenset({"official", "free_joker", "triple"})

# A seed does not get "simpler" as it shrinks, so shrinking would only burn time on a failure:
# the failing seed and player count are reported as they are.
GAME_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)


class LoadedRandom(random.Random):
    """Mostly rolls a favourite face (which drifts now and then), so five of a kinds are frequent."""

    def __init__(self, seed: int, bias: float = 0.85, drift: float = 0.05) -> None:
        super().__init__(seed)
        self.bias = bias
        self.drift = drift
        self.favourite = super().randint(1, 6)

    def randint(self, a: int, b: int) -> int:
        if self.random() < self.drift:
            self.favourite = super().randint(a, b)
        if self.random() < self.bias:
            return self.favourite
        return super().randint(a, b)


@dataclass
class Coverage:
    """What the random games actually ran into, so a test can insist the joker branches were hit."""

    five_of_a_kind_turns: int = 0
    bonuses: Counter[int] = field(default_factory=Counter)
    jokers: int = 0
    # Describes the legal set for five of a kinds with some Yahtzee box filled.
    legal_sets: Counter[str] = field(default_factory=Counter)


def expected_column_totals(ruleset: RuleSet, card: Scorecard, k: int) -> tuple[int, int, int, int]:
    """(upper, upper bonus, lower, yahtzee bonus) of column k, from docs/rules.md."""
    mult = k + 1 if ruleset.name == "triple" else 1
    column = card.columns[k]
    # A Box is a StrEnum, equal to (and hashed as) its name: looked up as it is, not by .value
    # (an enum property, a third of this check's time).
    upper = sum(points for box, points in column if box in UPPER_NAMES)
    lower = sum(points for box, points in column if box not in UPPER_NAMES)
    assert upper % mult == 0
    bonus = UPPER_BONUS[ruleset.name] * mult if upper // mult >= 63 else 0
    return upper, bonus, lower, card.yahtzee_bonus[k]


def check_card_invariants(state: GameState) -> None:
    ruleset = state.ruleset
    for seat, card in enumerate(state.cards):
        assert len(card.columns) == COLUMN_COUNT[ruleset.name]
        totals = state.totals(seat)  # worked out once per seat, not once per column
        grand = 0
        for k, column in enumerate(card.columns):
            boxes = [box for box, _ in column]
            assert len(boxes) == len(set(boxes)), f"seat {seat} column {k}: a box filled twice: {boxes}"
            assert set(boxes) <= set(ruleset.boxes)
            assert all(points >= 0 for _, points in column)
            assert card.yahtzee_bonus[k] >= 0
            upper, bonus, lower, yahtzee_bonus = expected_column_totals(ruleset, card, k)
            got = totals.columns[k]
            assert (got.upper, got.upper_bonus, got.lower, got.yahtzee_bonus) == (upper, bonus, lower, yahtzee_bonus)
            assert got.total == upper + bonus + lower + yahtzee_bonus
            grand += upper + bonus + lower + yahtzee_bonus
        assert totals.grand_total == grand
        if ruleset.name not in HAS_BONUS:
            assert sum(card.yahtzee_bonus) == 0


def random_holds(chooser: random.Random) -> list[int]:
    held = [i for i in range(5) if chooser.random() < 0.5]
    return held[:4] if len(held) == 5 else held


def classify_legal_set(state: GameState) -> str | None:
    """For a five of a kind with some Yahtzee box filled, which precedence level is legal."""
    dice = state.turn.dice
    card = state.cards[state.current]
    if len(set(dice)) != 1 or not any(Box.YAHTZEE in card.column(k) for k in range(len(card.columns))):
        return None
    legal = [o for o in state.options() if o.legal]
    kinds = set()
    for o in legal:
        if o.box is Box.YAHTZEE:
            kinds.add("yahtzee_box")
        elif o.box.value in UPPER_NAMES:
            kinds.add("matching_upper" if plain_score(state.ruleset, o.box, dice) else "zero_upper")
        else:
            kinds.add("lower_joker")
    if len(kinds) == 1:
        return kinds.pop()
    assert state.ruleset.name not in ("official", "triple"), f"a forced joker mixes precedence levels: {kinds}"
    return "mixed"


def play_random_game(
    ruleset: RuleSet,
    players: int,
    chooser: random.Random,
    dice: random.Random,
    coverage: Coverage | None = None,
    prefer_lower: bool = False,
) -> GameState:
    """Play a whole game with random legal choices, checking the invariants after every turn.

    ``prefer_lower`` fills lower boxes first (when legal), which is how a game reaches the
    last joker level: five of a kind with every lower box and the matching upper box filled.
    """
    state = apply_start(new_game(ruleset, players))
    turns_total = BOX_COUNT[ruleset.name] * COLUMN_COUNT[ruleset.name] * players
    for turn_number in range(1, turns_total + 1):
        assert not state.is_over
        assert state.winners() == ()
        seat = state.current
        assert seat == (turn_number - 1) % players, "turns go round the seats in order"
        state = apply_roll(state, player=seat, rng=dice)
        for _ in range(chooser.randint(1, 3) - 1):
            state = apply_hold(state, player=seat, held=random_holds(chooser))
            state = apply_roll(state, player=seat, rng=dice)
        options = state.options()
        legal = [o for o in options if o.legal]
        assert legal, "a rolled player always has a legal box"
        if coverage is not None:
            level = classify_legal_set(state)
            if len(set(state.turn.dice)) == 1:
                coverage.five_of_a_kind_turns += 1
            if level is not None:
                coverage.legal_sets[f"{ruleset.name}:{level}"] += 1
        for option in legal:
            assert option.points >= 0 and option.bonus >= 0
            if not option.joker:
                mult = option.column + 1 if ruleset.name == "triple" else 1
                assert option.points == plain_score(ruleset, option.box, state.turn.dice) * mult, option
        lower = [o for o in legal if o.box.value not in UPPER_NAMES]
        choice = chooser.choice(lower if prefer_lower and lower else legal)
        before = state
        state = apply_score(state, player=seat, box=choice.box.value, column=choice.column)
        card_before, card_after = before.cards[seat], state.cards[seat]
        assert card_after.filled == card_before.filled + 1
        assert card_after.column(choice.column)[choice.box] == choice.points
        assert choice.box not in card_before.column(choice.column)
        for k, (was, now) in enumerate(zip(card_before.yahtzee_bonus, card_after.yahtzee_bonus, strict=True)):
            assert now - was == (choice.bonus if k == choice.column else 0)
        for other in range(players):
            if other != seat:
                assert state.cards[other] == before.cards[other]
        if coverage is not None:
            if choice.bonus:
                coverage.bonuses[choice.bonus] += 1
            if choice.joker:
                coverage.jokers += 1
        assert state.turns_played == turn_number
        assert state.turn.dice == () and state.turn.rolls_used == 0 and state.turn.held == frozenset()
        check_card_invariants(state)
    assert state.is_over
    assert state.turns_played == turns_total
    assert all(card.filled == BOX_COUNT[ruleset.name] * COLUMN_COUNT[ruleset.name] for card in state.cards)
    totals = [state.totals(seat).grand_total for seat in range(players)]
    assert state.winners() == tuple(seat for seat in range(players) if totals[seat] == max(totals))
    assert state.options() == ()
    return state


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=lambda rs: rs.name)
@GAME_SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), players=st.integers(min_value=1, max_value=8))
def test_random_games_keep_every_invariant_and_end_on_time(ruleset: RuleSet, seed: int, players: int) -> None:
    rng = random.Random(seed)
    play_random_game(ruleset, players, chooser=rng, dice=rng)


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=lambda rs: rs.name)
@GAME_SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), players=st.integers(min_value=1, max_value=4))
def test_loaded_dice_games_keep_every_invariant_through_jokers(ruleset: RuleSet, seed: int, players: int) -> None:
    play_random_game(ruleset, players, chooser=random.Random(seed), dice=LoadedRandom(seed))


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=lambda rs: rs.name)
@settings(max_examples=15, deadline=None)
@given(rng=st.randoms(use_true_random=False))
def test_hypothesis_driven_choices_keep_every_invariant(ruleset: RuleSet, rng: random.Random) -> None:
    """Same game loop, with Hypothesis owning every choice and die (so it can shrink a failure)."""
    play_random_game(ruleset, 2, chooser=rng, dice=rng)


EXPECTED_LEVELS: dict[str, set[str]] = {
    "official": {"matching_upper", "lower_joker", "zero_upper"},
    "free_joker": {"mixed"},
    "triple": {"yahtzee_box", "matching_upper", "lower_joker", "zero_upper"},
    "yeti": {"mixed"},
    "yatzy": {"mixed"},
}
EXPECTED_BONUSES: dict[str, set[int]] = {
    "official": {100},
    "free_joker": {100},
    "triple": {100, 200, 300},  # 100·k in column k's Yahtzee box, or 300 once all three hold a score
    "yeti": set(),
    "yatzy": set(),
}


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=lambda rs: rs.name)
def test_loaded_dice_reach_every_joker_branch_in_real_games(ruleset: RuleSet) -> None:
    coverage = Coverage()
    for seed in range(40):
        chooser, dice = random.Random(seed), LoadedRandom(seed, drift=0.01)
        play_random_game(ruleset, 1, chooser=chooser, dice=dice, coverage=coverage, prefer_lower=seed % 2 == 1)
    assert coverage.five_of_a_kind_turns > 100
    levels = {key.split(":", 1)[1] for key in coverage.legal_sets}
    assert EXPECTED_LEVELS[ruleset.name] <= levels, coverage.legal_sets
    assert EXPECTED_BONUSES[ruleset.name] <= set(coverage.bonuses), coverage.bonuses
    if ruleset.name in ("official", "free_joker", "triple"):
        assert coverage.jokers > 0
    else:
        assert not coverage.bonuses and coverage.jokers == 0
