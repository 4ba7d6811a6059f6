"""The game's words in the reader's language, for what the server itself writes (pages, the replay,
the coach's review, e-mails): box names per rule set as players of each language say them, the
rule sets' names and summaries, the computer players' levels.

The room's frames carry codes only; the page words them with the same names from
static/js/words.js. Both take their translations from the catalogs in locale/ (the same
contexts: "Yahtzee box", "Yatzy box").
"""

from __future__ import annotations

import re

from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.domain.room import Behind
from games.domain.rules import Box, RuleSet, Scoring
from games.domain.rules.rulesets import RULESETS

_YAHTZEE_BOXES = {
    Box.ONES: pgettext_lazy("Yahtzee box", "Ones"),
    Box.TWOS: pgettext_lazy("Yahtzee box", "Twos"),
    Box.THREES: pgettext_lazy("Yahtzee box", "Threes"),
    Box.FOURS: pgettext_lazy("Yahtzee box", "Fours"),
    Box.FIVES: pgettext_lazy("Yahtzee box", "Fives"),
    Box.SIXES: pgettext_lazy("Yahtzee box", "Sixes"),
    Box.THREE_OF_A_KIND: pgettext_lazy("Yahtzee box", "Three of a Kind"),
    Box.FOUR_OF_A_KIND: pgettext_lazy("Yahtzee box", "Four of a Kind"),
    Box.FULL_HOUSE: pgettext_lazy("Yahtzee box", "Full House"),
    Box.SMALL_STRAIGHT: pgettext_lazy("Yahtzee box", "Small Straight"),
    Box.LARGE_STRAIGHT: pgettext_lazy("Yahtzee box", "Large Straight"),
    Box.YAHTZEE: pgettext_lazy("Yahtzee box", "Yahtzee"),
    Box.CHANCE: pgettext_lazy("Yahtzee box", "Chance"),
    Box.RED: pgettext_lazy("Yahtzee box", "Red"),
    Box.YELLOW: pgettext_lazy("Yahtzee box", "Yellow"),
    Box.GREEN: pgettext_lazy("Yahtzee box", "Green"),
    Box.BLUE: pgettext_lazy("Yahtzee box", "Blue"),
    Box.PURPLE: pgettext_lazy("Yahtzee box", "Purple"),
    Box.FOUR_COLOUR: pgettext_lazy("Yahtzee box", "Four of a Colour"),
    Box.PAINTED_HOUSE: pgettext_lazy("Yahtzee box", "Painted House"),
    Box.RAINBOW: pgettext_lazy("Yahtzee box", "Rainbow"),
    Box.FLUSH: pgettext_lazy("Yahtzee box", "Flush"),
    Box.PALETTE: pgettext_lazy("Yahtzee box", "Palette"),
}
_YATZY_BOXES = {
    Box.ONES: pgettext_lazy("Yatzy box", "Ones"),
    Box.TWOS: pgettext_lazy("Yatzy box", "Twos"),
    Box.THREES: pgettext_lazy("Yatzy box", "Threes"),
    Box.FOURS: pgettext_lazy("Yatzy box", "Fours"),
    Box.FIVES: pgettext_lazy("Yatzy box", "Fives"),
    Box.SIXES: pgettext_lazy("Yatzy box", "Sixes"),
    Box.ONE_PAIR: pgettext_lazy("Yatzy box", "One Pair"),
    Box.TWO_PAIRS: pgettext_lazy("Yatzy box", "Two Pairs"),
    Box.THREE_OF_A_KIND: pgettext_lazy("Yatzy box", "Three of a Kind"),
    Box.FOUR_OF_A_KIND: pgettext_lazy("Yatzy box", "Four of a Kind"),
    Box.SMALL_STRAIGHT: pgettext_lazy("Yatzy box", "Small Straight"),
    Box.LARGE_STRAIGHT: pgettext_lazy("Yatzy box", "Large Straight"),
    Box.FULL_HOUSE: pgettext_lazy("Yatzy box", "Full House"),
    Box.CHANCE: pgettext_lazy("Yatzy box", "Chance"),
    Box.YAHTZEE: pgettext_lazy("Yatzy box", "Yatzy"),
}

_RULESETS = {
    "official": (
        _("Yahtzee (official)"),
        _("Hasbro rules: 13 boxes, +100 for each extra Yahtzee, and the forced joker."),
    ),
    "free_joker": (
        _("Yahtzee (free joker)"),
        _("House rules: an extra Yahtzee may go in any open box; +100 bonus as official."),
    ),
    "yeti": (
        _("Yahtzee (one Yahtzee)"),
        _("No Yahtzee bonus and no joker; five of a kind also counts as a Full House."),
    ),
    "triple": (_("Triple Yahtzee"), _("Three columns scoring ×1, ×2 and ×3: 39 turns each, bigger bonuses.")),
    "yatzy": (
        _("Yatzy (Scandinavian)"),
        _("15 boxes with pairs, fixed straights and a 50-point upper bonus; no joker."),
    ),
    "painted": (_("Painted Yahtzee"), _("Coloured dice and ten colour boxes: 23 turns each, with the official joker.")),
}

LEVELS = {"optimal": _("Expert"), "casual": _("Casual"), "beginner": _("Beginner")}

COLOUR_NAMES = {
    "red": pgettext_lazy("dice colour", "red"),
    "yellow": pgettext_lazy("dice colour", "yellow"),
    "green": pgettext_lazy("dice colour", "green"),
    "blue": pgettext_lazy("dice colour", "blue"),
    "purple": pgettext_lazy("dice colour", "purple"),
}


def box_name(ruleset: RuleSet, box: Box | str) -> str:
    """``box`` as players of ``ruleset`` call it in the active language ("Et par", "Kniffel")."""
    names = _YATZY_BOXES if ruleset.scoring is Scoring.YATZY else _YAHTZEE_BOXES
    try:
        return str(names[Box(box)])
    except (KeyError, ValueError):
        return str(box)


def ruleset_label(name: str) -> str:
    found = _RULESETS.get(name)
    return str(found[0]) if found else (RULESETS[name].label if name in RULESETS else name)


def ruleset_summary(name: str) -> str:
    found = _RULESETS.get(name)
    return str(found[1]) if found else (RULESETS[name].summary if name in RULESETS else "")


def level_name(level: str) -> str:
    return str(LEVELS.get(level, level))


def colour_name(colour: str) -> str:
    return str(COLOUR_NAMES.get(colour, colour))


def score_text(ruleset: RuleSet, box: Box | str, column: int, points: int, bonus: int) -> str:
    """The choice to score ``box`` in the reader's words ("Score 25 in Full House (×2) plus 100
    Yahtzee bonus"), as static/js/room/render.js ``optionText`` says it: one sentence for each
    case, as a language puts the column and the bonus where its own order says them."""
    if ruleset.columns > 1:
        text = (
            gettext("Score %(points)s in %(box)s (×%(m)s) plus %(bonus)s Yahtzee bonus")
            if bonus
            else gettext("Score %(points)s in %(box)s (×%(m)s)")
        )
    else:
        text = (
            gettext("Score %(points)s in %(box)s plus %(bonus)s Yahtzee bonus")
            if bonus
            else gettext("Score %(points)s in %(box)s")
        )
    return text % {"points": points, "box": box_name(ruleset, box), "m": ruleset.multipliers[column], "bonus": bonus}


_UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


def reason_text(ruleset: RuleSet, reason: str) -> str:
    """Why the joker forbids a box (an option's ``reason``, games/domain/rules/scoring.py) in the
    reader's words, as static/js/words.js ``reasonText`` says it: the rules' three sentences,
    recognised by their start."""
    if not reason:
        return ""
    if reason.startswith("an open Yahtzee box"):
        return gettext("An open Yahtzee box must take a five of a kind.")
    five = re.match(r"joker rule: five (\d)s", reason)
    if five and 1 <= int(five.group(1)) <= 6:
        value = int(five.group(1))
        return gettext("Joker rule: five %(value)ss must go in the open %(box)s box.") % {
            "value": value,
            "box": box_name(ruleset, _UPPER[value - 1]),
        }
    if reason.startswith("joker rule: a five of a kind"):
        if ruleset.colours:
            return gettext("Joker rule: a five of a kind must go in an open lower box or colour box.")
        return gettext("Joker rule: a five of a kind must go in an open lower box.")
    return reason


def behind(why: Behind) -> str:
    """The word for why a seat ranks after those who stayed (``Room.ranked_behind``), as the
    game-over list says it, in the active language: "" for a seat that stayed."""
    if why == "taken_out":
        return gettext("taken out")
    if why == "left":
        return gettext("left")
    return gettext("away") if why == "away" else ""
