"""The rule sets of docs/rules.md as plain values."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Box(StrEnum):
    """A scorecard category. The value is the stable name used in the database and frames."""

    ONES = "ones"
    TWOS = "twos"
    THREES = "threes"
    FOURS = "fours"
    FIVES = "fives"
    SIXES = "sixes"
    ONE_PAIR = "one_pair"
    TWO_PAIRS = "two_pairs"
    THREE_OF_A_KIND = "three_of_a_kind"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    SMALL_STRAIGHT = "small_straight"
    LARGE_STRAIGHT = "large_straight"
    CHANCE = "chance"
    YAHTZEE = "yahtzee"
    # Painted Yahtzee's colour boxes.
    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    PURPLE = "purple"
    FOUR_COLOUR = "four_colour"
    PAINTED_HOUSE = "painted_house"
    RAINBOW = "rainbow"
    FLUSH = "flush"
    PALETTE = "palette"


# The dice colours of Painted Yahtzee, by index: a die's colour is stored as 0-4.
COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "purple")
# The box counting the values of one colour: Red ... Purple, by colour index.
COLOUR_SUM_BOXES: tuple[Box, ...] = (Box.RED, Box.YELLOW, Box.GREEN, Box.BLUE, Box.PURPLE)
COLOUR_OF: dict[Box, int] = {box: i for i, box in enumerate(COLOUR_SUM_BOXES)}
COLOUR_BOXES: tuple[Box, ...] = (
    *COLOUR_SUM_BOXES,
    Box.FOUR_COLOUR,
    Box.PAINTED_HOUSE,
    Box.RAINBOW,
    Box.FLUSH,
    Box.PALETTE,
)

UPPER_BOXES: tuple[Box, ...] = (Box.ONES, Box.TWOS, Box.THREES, Box.FOURS, Box.FIVES, Box.SIXES)
# The face value an upper box counts: Ones -> 1 ... Sixes -> 6.
UPPER_VALUE: dict[Box, int] = {box: i + 1 for i, box in enumerate(UPPER_BOXES)}
UPPER_BOX_FOR: dict[int, Box] = {i + 1: box for i, box in enumerate(UPPER_BOXES)}

BOX_LABELS: dict[Box, str] = {
    Box.ONES: "Ones",
    Box.TWOS: "Twos",
    Box.THREES: "Threes",
    Box.FOURS: "Fours",
    Box.FIVES: "Fives",
    Box.SIXES: "Sixes",
    Box.ONE_PAIR: "One Pair",
    Box.TWO_PAIRS: "Two Pairs",
    Box.THREE_OF_A_KIND: "Three of a Kind",
    Box.FOUR_OF_A_KIND: "Four of a Kind",
    Box.FULL_HOUSE: "Full House",
    Box.SMALL_STRAIGHT: "Small Straight",
    Box.LARGE_STRAIGHT: "Large Straight",
    Box.CHANCE: "Chance",
    Box.YAHTZEE: "Yahtzee",
    Box.RED: "Red",
    Box.YELLOW: "Yellow",
    Box.GREEN: "Green",
    Box.BLUE: "Blue",
    Box.PURPLE: "Purple",
    Box.FOUR_COLOUR: "Four of a Colour",
    Box.PAINTED_HOUSE: "Painted House",
    Box.RAINBOW: "Rainbow",
    Box.FLUSH: "Flush",
    Box.PALETTE: "Palette",
}


# The boxes of a card's colour part (Painted): a set, for the scoring's per-box look-ups.
COLOUR_SECTION: frozenset[Box] = frozenset(COLOUR_OF) | frozenset(COLOUR_BOXES)


def box_section(box: Box) -> str:
    """Which part of a card ``box`` sits in: ``"upper"``, ``"lower"`` or ``"colour"`` (Painted)."""
    if box in UPPER_VALUE:
        return "upper"
    if box in COLOUR_SECTION:
        return "colour"
    return "lower"


class Scoring(StrEnum):
    """Which score table the lower boxes use."""

    YAHTZEE = "yahtzee"  # the 13-box American table
    YATZY = "yatzy"  # the Scandinavian 15-box table


class JokerMode(StrEnum):
    """What a five of a kind may do once a Yahtzee box is filled."""

    NONE = "none"  # no joker: plain table in any open box
    FORCED = "forced"  # Hasbro precedence: Yahtzee box, matching upper box, lower joker, zero
    FREE = "free"  # any open box; lower joker values only once the matching upper box is filled


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything that differs between rule sets; the engine reads nothing else."""

    name: str
    label: str
    summary: str
    boxes: tuple[Box, ...]
    scoring: Scoring
    columns: int = 1
    # Column k (0-based) multiplies every plain score in it by multipliers[k].
    multipliers: tuple[int, ...] = (1,)
    upper_bonus_threshold: int = 63
    upper_bonus: int = 35
    # The bonus for a later five of a kind; 0 means no Yahtzee bonus at all.
    yahtzee_bonus: int = 100
    joker: JokerMode = JokerMode.FORCED
    five_of_a_kind_is_full_house: bool = False
    # How many colours a die shows (0: plain dice). Painted Yahtzee has 5.
    colours: int = 0

    @property
    def outcomes(self) -> int:
        """How many equally likely outcomes one die has: 6, or 30 (value x colour) for Painted."""
        return 6 * max(1, self.colours)

    @property
    def upper_boxes(self) -> tuple[Box, ...]:
        return tuple(b for b in self.boxes if b in UPPER_VALUE)

    @property
    def lower_boxes(self) -> tuple[Box, ...]:
        return tuple(b for b in self.boxes if box_section(b) == "lower")

    @property
    def colour_boxes(self) -> tuple[Box, ...]:
        return tuple(b for b in self.boxes if box_section(b) == "colour")

    @property
    def turns_per_player(self) -> int:
        return len(self.boxes) * self.columns

    def box_label(self, box: Box) -> str:
        if box is Box.YAHTZEE and self.scoring is Scoring.YATZY:
            return "Yatzy"
        return BOX_LABELS[box]


_YAHTZEE_BOXES: tuple[Box, ...] = (
    *UPPER_BOXES,
    Box.THREE_OF_A_KIND,
    Box.FOUR_OF_A_KIND,
    Box.FULL_HOUSE,
    Box.SMALL_STRAIGHT,
    Box.LARGE_STRAIGHT,
    Box.YAHTZEE,
    Box.CHANCE,
)

_YATZY_BOXES: tuple[Box, ...] = (
    *UPPER_BOXES,
    Box.ONE_PAIR,
    Box.TWO_PAIRS,
    Box.THREE_OF_A_KIND,
    Box.FOUR_OF_A_KIND,
    Box.SMALL_STRAIGHT,
    Box.LARGE_STRAIGHT,
    Box.FULL_HOUSE,
    Box.CHANCE,
    Box.YAHTZEE,
)

OFFICIAL = RuleSet(
    name="official",
    label="Yahtzee (official)",
    summary="Hasbro rules: 13 boxes, +100 for each extra Yahtzee, and the forced joker.",
    boxes=_YAHTZEE_BOXES,
    scoring=Scoring.YAHTZEE,
)

FREE_JOKER = RuleSet(
    name="free_joker",
    label="Yahtzee (free joker)",
    summary="House rules: an extra Yahtzee may go in any open box; +100 bonus as official.",
    boxes=_YAHTZEE_BOXES,
    scoring=Scoring.YAHTZEE,
    joker=JokerMode.FREE,
)

YETI = RuleSet(
    name="yeti",
    label="Yahtzee (one Yahtzee)",
    summary="No Yahtzee bonus and no joker; five of a kind also counts as a Full House.",
    boxes=_YAHTZEE_BOXES,
    scoring=Scoring.YAHTZEE,
    yahtzee_bonus=0,
    joker=JokerMode.NONE,
    five_of_a_kind_is_full_house=True,
)

TRIPLE = RuleSet(
    name="triple",
    label="Triple Yahtzee",
    summary="Three columns scoring ×1, ×2 and ×3: 39 turns each, bigger bonuses.",
    boxes=_YAHTZEE_BOXES,
    scoring=Scoring.YAHTZEE,
    columns=3,
    multipliers=(1, 2, 3),
)

YATZY = RuleSet(
    name="yatzy",
    label="Yatzy (Scandinavian)",
    summary="15 boxes with pairs, fixed straights and a 50-point upper bonus; no joker.",
    boxes=_YATZY_BOXES,
    scoring=Scoring.YATZY,
    upper_bonus=50,
    yahtzee_bonus=0,
    joker=JokerMode.NONE,
)

PAINTED = RuleSet(
    name="painted",
    label="Painted Yahtzee",
    summary="Coloured dice and ten colour boxes: 23 turns each, with the official joker.",
    boxes=(*_YAHTZEE_BOXES, *COLOUR_BOXES),
    scoring=Scoring.YAHTZEE,
    colours=len(COLOURS),
)

RULESETS: dict[str, RuleSet] = {rs.name: rs for rs in (OFFICIAL, FREE_JOKER, YETI, TRIPLE, YATZY, PAINTED)}
DEFAULT_RULESET = OFFICIAL


def get_ruleset(name: str) -> RuleSet:
    """The preset called ``name``; KeyError for an unknown name."""
    return RULESETS[name]
