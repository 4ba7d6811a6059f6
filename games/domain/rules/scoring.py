"""Plain scores, bonuses and jokers: which boxes are legal for a roll and what each scores."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .rulesets import COLOUR_OF, COLOUR_SECTION, UPPER_BOX_FOR, UPPER_VALUE, Box, JokerMode, RuleSet, Scoring

Dice = tuple[int, ...]
# One column of a scorecard: box -> points, only for filled boxes.
Column = dict[Box, int]

_SMALL_RUNS = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
_LARGE_RUNS = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})


def is_five_of_a_kind(dice: Sequence[int]) -> bool:
    return len(dice) == 5 and len(set(dice)) == 1


def plain_score(ruleset: RuleSet, box: Box, dice: Sequence[int], colours: Sequence[int] = ()) -> int:
    """What ``box`` scores for ``dice`` by the rule set's table, before multipliers and jokers.

    ``colours`` (Painted only) are the dice's colour indices 0-4, in die order; only the colour
    boxes read them.
    """
    return _RollScores(ruleset, dice, colours).plain(box)


class _RollScores:
    """The plain scores of one roll, box by box, with the roll's counts taken once (not per box).

    ``score_options`` asks for every open box of a roll (23 for Painted), so the counts, the
    colour counts and the colour sums are taken once per roll, and a box's kind is found with one
    set look-up: the scores are those of ``colour_score`` and the tables below, nothing else.
    """

    __slots__ = (
        "ruleset",
        "dice",
        "colours",
        "_counts",
        "_colour_counts",
        "_colour_sums",
        "_lower",
        "_total",
        "_scores",
    )

    def __init__(self, ruleset: RuleSet, dice: Sequence[int], colours: Sequence[int]) -> None:
        self.ruleset, self.dice, self.colours = ruleset, dice, colours
        self._counts: Counter[int] | None = None
        self._colour_counts: list[int] | None = None
        self._colour_sums: dict[int, int] | None = None
        self._lower: dict[Box, int] | None = None
        self._total = sum(dice)
        self._scores: dict[Box, int] = {}

    def plain(self, box: Box) -> int:
        points = self._scores.get(box)
        if points is None:
            points = self._scores[box] = self._score(box)
        return points

    def _score(self, box: Box) -> int:
        counts = self._counts
        if counts is None:
            counts = self._counts = Counter(self.dice)
        value = UPPER_VALUE.get(box)
        if value is not None:
            return value * counts.get(value, 0)
        if box in COLOUR_SECTION:
            return self._colour(box)
        if self.ruleset.scoring is Scoring.YATZY:
            return _yatzy_lower(box, counts, self._total)
        lower = self._lower
        if lower is None:
            lower = self._lower = _yahtzee_lower(self.ruleset, counts, self._total)
        points = lower.get(box)
        if points is None:
            raise ValueError(f"{box} is not a box of {self.ruleset.name}")
        return points

    def _colour(self, box: Box) -> int:
        if self._colour_sums is None:
            _check_colours(box, self.dice, self.colours)
            sums: dict[int, int] = {}
            for d, c in zip(self.dice, self.colours, strict=True):
                sums[c] = sums.get(c, 0) + d
            self._colour_sums = sums
        colour = COLOUR_OF.get(box)
        if colour is not None:
            return self._colour_sums.get(colour, 0)
        if self._colour_counts is None:
            self._colour_counts = sorted(Counter(self.colours).values())
        return _colour_pattern(box, self._colour_counts, self._total)


def _yahtzee_lower(ruleset: RuleSet, counts: Counter[int], total: int) -> dict[Box, int]:
    """The American table's seven lower boxes for one roll, all at once (they share its counts)."""
    most = max(counts.values())
    faces = set(counts)
    full_house = sorted(counts.values()) == [2, 3] or (most == 5 and ruleset.five_of_a_kind_is_full_house)
    return {
        Box.THREE_OF_A_KIND: total if most >= 3 else 0,
        Box.FOUR_OF_A_KIND: total if most >= 4 else 0,
        Box.FULL_HOUSE: 25 if full_house else 0,
        Box.SMALL_STRAIGHT: 30 if any(run <= faces for run in _SMALL_RUNS) else 0,
        Box.LARGE_STRAIGHT: 40 if faces in _LARGE_RUNS else 0,
        Box.YAHTZEE: 50 if most == 5 else 0,
        Box.CHANCE: total,
    }


def colour_score(box: Box, dice: Sequence[int], colours: Sequence[int]) -> int:
    """A Painted colour box: by the dice's colours (and the values of the dice of a colour)."""
    _check_colours(box, dice, colours)
    if box in COLOUR_OF:
        colour = COLOUR_OF[box]
        return sum(d for d, c in zip(dice, colours, strict=True) if c == colour)
    return _colour_pattern(box, sorted(Counter(colours).values()), sum(dice))


def _check_colours(box: Box, dice: Sequence[int], colours: Sequence[int]) -> None:
    if len(colours) != len(dice):
        raise ValueError(f"{box} needs one colour per die, got {len(colours)} for {len(dice)} dice")


def _colour_pattern(box: Box, counts: list[int], total: int) -> int:
    """The colour boxes scored by how many dice share a colour (``counts``: ascending)."""
    if box is Box.FOUR_COLOUR:
        return total if counts[-1] >= 4 else 0
    if box is Box.PAINTED_HOUSE:
        return 25 if counts == [2, 3] else 0
    if box is Box.RAINBOW:
        return 40 if len(counts) == 5 else 0
    if box is Box.FLUSH:
        return 50 if counts == [5] else 0
    if box is Box.PALETTE:
        return total
    raise ValueError(f"{box} is not a colour box")


def _yatzy_lower(box: Box, counts: Counter[int], total: int) -> int:
    faces = set(counts)
    if box is Box.ONE_PAIR:
        pairs = [v for v, n in counts.items() if n >= 2]
        return 2 * max(pairs) if pairs else 0
    if box is Box.TWO_PAIRS:
        pairs = [v for v, n in counts.items() if n >= 2]
        return 2 * sum(pairs) if len(pairs) == 2 else 0
    if box is Box.THREE_OF_A_KIND:
        return next((3 * v for v, n in counts.items() if n >= 3), 0)
    if box is Box.FOUR_OF_A_KIND:
        return next((4 * v for v, n in counts.items() if n >= 4), 0)
    if box is Box.SMALL_STRAIGHT:
        return 15 if faces == {1, 2, 3, 4, 5} else 0
    if box is Box.LARGE_STRAIGHT:
        return 20 if faces == {2, 3, 4, 5, 6} else 0
    if box is Box.FULL_HOUSE:
        return total if sorted(counts.values()) == [2, 3] else 0
    if box is Box.CHANCE:
        return total
    if box is Box.YAHTZEE:
        return 50 if len(faces) == 1 else 0
    raise ValueError(f"{box} is not a box of yatzy")


_JOKER_LOWER: dict[Box, int] = {Box.FULL_HOUSE: 25, Box.SMALL_STRAIGHT: 30, Box.LARGE_STRAIGHT: 40}


@dataclass(frozen=True, slots=True)
class ScoreOption:
    """One open box for the current dice: may it be scored now, and for how much."""

    box: Box
    column: int
    legal: bool
    points: int  # what the box itself would hold, multiplier included
    bonus: int  # the Yahtzee bonus this turn would add
    reason: str = ""  # why an open box is not legal now (empty when legal)
    joker: bool = False  # scored as a joker (a value the plain table would not give)


# Options are frozen values, so equal ones are shared rather than built again: a roll asks for
# up to 39 of them, and building a frozen dataclass (one object.__setattr__ per field) cost more
# than scoring the box. The distinct options are few (box x column x points x bonus x reason);
# typed, so that an option keeps the very types it was asked with (True is not 1, nor 3 np.int64(3)).
_option = lru_cache(maxsize=8192, typed=True)(ScoreOption)


def score_options(
    ruleset: RuleSet, card: Sequence[Column], dice: Sequence[int], colours: Sequence[int] = ()
) -> tuple[ScoreOption, ...]:
    """Every open box of ``card`` in column then box order, each with its legality and exact score.

    Painted: ``colours`` are the dice's colour indices; with the forced joker the colour boxes
    stand beside the lower boxes (legal at the same level) but always score by their colours.
    """
    open_boxes = [(c, box) for c in range(ruleset.columns) for box in ruleset.boxes if box not in card[c]]
    plain = _RollScores(ruleset, dice, colours).plain
    five = is_five_of_a_kind(dice)
    yahtzee_filled = [card[c][Box.YAHTZEE] for c in range(ruleset.columns) if Box.YAHTZEE in card[c]]
    if ruleset.joker is JokerMode.NONE or not five or not yahtzee_filled:
        multipliers = ruleset.multipliers
        return tuple([_option(box, c, True, plain(box) * multipliers[c], 0) for c, box in open_boxes])

    value = dice[0]
    upper_box = UPPER_BOX_FOR[value]
    bonus_earned = ruleset.yahtzee_bonus > 0 and any(points > 0 for points in yahtzee_filled)
    every_yahtzee_box_scored = len(yahtzee_filled) == ruleset.columns and all(p > 0 for p in yahtzee_filled)

    def bonus_for(box: Box, column: int) -> int:
        if not bonus_earned:
            return 0
        if box is Box.YAHTZEE:
            # Triple only: the open Yahtzee box of column k takes the five of a kind.
            return ruleset.yahtzee_bonus * ruleset.multipliers[column]
        if every_yahtzee_box_scored:
            return ruleset.yahtzee_bonus * ruleset.columns
        return 0

    if ruleset.joker is JokerMode.FREE:
        options = []
        for c, box in open_boxes:
            points = plain(box)
            joker = box in _JOKER_LOWER and upper_box in card[c]
            if joker:
                points = _JOKER_LOWER[box]
            options.append(_option(box, c, True, points * ruleset.multipliers[c], bonus_for(box, c), joker=joker))
        return tuple(options)

    # Forced joker: the first non-empty level of this precedence is the legal set.
    levels: list[tuple[list[tuple[int, Box]], str]] = [
        (
            [(c, b) for c, b in open_boxes if b is Box.YAHTZEE],
            "an open Yahtzee box must take a five of a kind",
        ),
        (
            [(c, b) for c, b in open_boxes if b is upper_box],
            f"joker rule: five {value}s must go in the open {upper_box.name.title()} box",
        ),
        (
            [(c, b) for c, b in open_boxes if b not in UPPER_VALUE],
            "joker rule: a five of a kind must go in an open lower box" + (" or colour box" if ruleset.colours else ""),
        ),
        ([(c, b) for c, b in open_boxes], ""),
    ]
    legal: set[tuple[int, Box]] = set()
    reason = ""
    for candidates, why in levels:
        if candidates:
            legal = set(candidates)
            reason = why
            break

    options = []
    for c, box in open_boxes:
        points = plain(box)
        joker = False
        if box not in UPPER_VALUE and box not in COLOUR_SECTION and box is not Box.YAHTZEE:  # lower
            joker = box in _JOKER_LOWER
            points = _JOKER_LOWER.get(box, points)
        is_legal = (c, box) in legal
        options.append(
            _option(
                box,
                c,
                is_legal,
                points * ruleset.multipliers[c] if is_legal else 0,
                bonus_for(box, c) if is_legal else 0,
                reason="" if is_legal else reason,
                joker=joker,
            )
        )
    return tuple(options)
