"""The scorecard: its sections, rows and words, and each seat's points in it.

Every page that shows a card takes it from here: the room's state (``selectors.game_state``),
the replay (``replay.replay_steps``) and the admin's review. The browser draws it with
static/js/scorecard.js from these rows alone and knows no box by name, so a rule set's card
(its sections, its sums, a Yahtzee bonus row or none) is decided in this one place.

Pure: the rules and the standard library only.
"""

from __future__ import annotations

from typing import Any

from games.domain.kept import KeptByIdentity
from games.domain.rules import Box, GameState, RuleSet, Scorecard, Scoring, card_totals
from games.domain.rules.rulesets import COLOUR_SUM_BOXES

# Narrow screens show these shorter names; screen readers and wider screens get the full ones.
SHORT_LABELS: dict[str, str] = {
    Box.THREE_OF_A_KIND: "3 of a kind",
    Box.FOUR_OF_A_KIND: "4 of a kind",
    Box.FULL_HOUSE: "Full house",
    Box.SMALL_STRAIGHT: "Small str.",
    Box.LARGE_STRAIGHT: "Large str.",
    Box.ONE_PAIR: "1 pair",
    Box.TWO_PAIRS: "2 pairs",
    Box.FOUR_COLOUR: "4 of a colour",
    Box.PAINTED_HOUSE: "Painted house",
}

# What a box scores, in a player's words, shown where it is scored. The upper boxes ("Fours":
# the fours added up) say it in their name and get none.
_YAHTZEE_HELP: dict[Box, str] = {
    Box.THREE_OF_A_KIND: "At least three dice of one value: the sum of all five dice.",
    Box.FOUR_OF_A_KIND: "At least four dice of one value: the sum of all five dice.",
    Box.FULL_HOUSE: "Three dice of one value and two of another: 25 points.",
    Box.SMALL_STRAIGHT: "Four values in a row (1-2-3-4, 2-3-4-5 or 3-4-5-6): 30 points.",
    Box.LARGE_STRAIGHT: "Five values in a row (1-2-3-4-5 or 2-3-4-5-6): 40 points.",
    Box.YAHTZEE: "Five dice of one value: 50 points.",
    Box.CHANCE: "Any dice: the sum of all five.",
}
_YATZY_HELP: dict[Box, str] = {
    Box.ONE_PAIR: "Two dice of one value: the sum of those two (the highest pair).",
    Box.TWO_PAIRS: "Two pairs of different values: the sum of those four dice.",
    Box.THREE_OF_A_KIND: "Three dice of one value: the sum of those three.",
    Box.FOUR_OF_A_KIND: "Four dice of one value: the sum of those four.",
    Box.FULL_HOUSE: "Three dice of one value and two of another: the sum of all five.",
    Box.SMALL_STRAIGHT: "Exactly 1-2-3-4-5: 15 points.",
    Box.LARGE_STRAIGHT: "Exactly 2-3-4-5-6: 20 points.",
    Box.YAHTZEE: "Five dice of one value: 50 points.",
    Box.CHANCE: "Any dice: the sum of all five.",
}
_COLOUR_HELP: dict[Box, str] = {
    **{box: f"The values of the {box.value} dice, added up." for box in COLOUR_SUM_BOXES},
    Box.FOUR_COLOUR: "At least four dice of one colour: the sum of all five dice.",
    Box.PAINTED_HOUSE: "Three dice of one colour and two of another colour: 25 points.",
    Box.RAINBOW: "Five dice of five different colours: 40 points.",
    Box.FLUSH: "All five dice of one colour: 50 points.",
    Box.PALETTE: "Any dice: the sum of all five (a Chance for the colour section).",
}


def box_help(ruleset: RuleSet, box: Box) -> str:
    """What ``box`` scores in ``ruleset``, in a sentence ("" for the upper boxes)."""
    if ruleset.scoring is Scoring.YATZY:
        return _YATZY_HELP.get(box, "")
    text = _YAHTZEE_HELP.get(box) or _COLOUR_HELP.get(box, "")
    if box is Box.FULL_HOUSE and ruleset.five_of_a_kind_is_full_house:
        text = "Three dice of one value and two of another, or five of a kind: 25 points."
    # A later five of a kind earns the bonus only while a Yahtzee box holds points: a scratched
    # one (a 0) earns none (games/domain/rules/scoring.py, docs/rules.md).
    if box is Box.YAHTZEE and ruleset.yahtzee_bonus and ruleset.columns > 1:
        # Triple: the bonus depends on where the later one is scored.
        text += (
            " A later one, while a Yahtzee box already holds points, earns a bonus:"
            f" {ruleset.yahtzee_bonus} times the column when scored in a Yahtzee box,"
            f" or {ruleset.yahtzee_bonus * ruleset.columns} once all {ruleset.columns} Yahtzee boxes hold points."
        )
    elif box is Box.YAHTZEE and ruleset.yahtzee_bonus:
        text += f" Each later one earns a {ruleset.yahtzee_bonus}-point bonus if this box holds 50."
    return text


def _box_row(ruleset: RuleSet, box: Box) -> dict[str, Any]:
    return {
        "kind": "box",
        "box": box.value,
        "label": ruleset.box_label(box),
        "short": SHORT_LABELS.get(box, ""),
        "help": box_help(ruleset, box),
    }


def _sum_row(key: str, label: str, short: str = "", **extra: Any) -> dict[str, Any]:
    return {"kind": "sum", "key": key, "label": label, "short": short, **extra}


def layout(ruleset: RuleSet) -> dict[str, Any]:
    """The card of ``ruleset``: its sections in order, each with its rows (boxes, then its sums).

    A row is a box (``box``, ``label``, ``short`` label, ``help``), a sum of the column's
    totals under ``key`` (``goals``: the upper sum's target per column, ``made`` the key that
    says it was reached; ``rules``: the bonus's "35 at 63" per column), or the grand ``total``
    across a seat's columns. A section with ``beside`` may be drawn beside the ones before it
    (Painted's colour boxes: 23 boxes in one column do not fit a screen); ``heading`` says
    whether its ``label`` is shown over it.
    """
    goals = [ruleset.upper_bonus_threshold * m for m in ruleset.multipliers]
    prizes = [ruleset.upper_bonus * m for m in ruleset.multipliers]
    sections: list[dict[str, Any]] = [
        {
            "name": "upper",
            "label": "Upper section",
            "heading": False,
            "beside": False,
            "rows": [
                *(_box_row(ruleset, box) for box in ruleset.upper_boxes),
                _sum_row("upper", "Upper sum", goals=goals, made="upper_bonus"),
                _sum_row(
                    "upper_bonus",
                    "Upper bonus",
                    "Bonus",
                    rules=[f"{prize} at {goal}" for prize, goal in zip(prizes, goals, strict=True)],
                ),
            ],
        }
    ]
    lower = [_box_row(ruleset, box) for box in ruleset.lower_boxes]
    lower.append(_sum_row("lower", "Lower sum"))
    if ruleset.yahtzee_bonus:
        label = ruleset.box_label(Box.YAHTZEE)
        lower.append(_sum_row("yahtzee_bonus", f"{label} bonus", f"{label} +"))
    sections.append({"name": "lower", "label": "Lower section", "heading": False, "beside": False, "rows": lower})
    if ruleset.colour_boxes:
        colour = [_box_row(ruleset, box) for box in ruleset.colour_boxes]
        colour.append(_sum_row("colour", "Colour sum"))
        sections.append({"name": "colour", "label": "Colours", "heading": True, "beside": True, "rows": colour})
    totals: list[dict[str, Any]] = []
    if ruleset.columns > 1:
        totals.append(_sum_row("total", "Column total", "Col. total"))
    totals.append({"kind": "total", "key": "total", "label": "Total", "short": ""})
    sections.append({"name": "totals", "label": "Totals", "heading": False, "beside": False, "rows": totals})
    return {"sections": sections}


# Each seat's card, by its (immutable) Scorecard, the seat and the rule set: a room's next
# state shares every card the action did not change with the state before, so an action works
# out one seat's card, not every seat's. About 1.3 KB an entry: 2.7 MB when full.
_seat_cards: KeptByIdentity[dict[str, Any]] = KeptByIdentity(2048)


def seat_card(ruleset: RuleSet, seat: int, card: Scorecard) -> dict[str, Any]:
    """One seat's card: per column its filled boxes and every sum the layout's rows name.

    The same dict for the same card, seat and rule set objects: callers read it (and encode
    it), never change it.
    """
    return _seat_cards.get((id(card), id(ruleset), seat), (card, ruleset), lambda: _seat_card(ruleset, seat, card))


def _seat_card(ruleset: RuleSet, seat: int, card: Scorecard) -> dict[str, Any]:
    totals = card_totals(ruleset, card)
    return {
        "seat": seat,
        "columns": [
            {
                "boxes": {box.value: points for box, points in column},
                "upper": t.upper,
                "upper_bonus": t.upper_bonus,
                "lower": t.lower,
                "yahtzee_bonus": t.yahtzee_bonus,
                "colour": t.colour,  # Painted: the colour boxes' sum; 0 elsewhere
                "total": t.total,
            }
            for column, t in zip(card.columns, totals.columns, strict=True)
        ],
        "total": totals.grand_total,
    }


def cards(state: GameState) -> list[dict[str, Any]]:
    """Every seat's card, in seat order."""
    return [seat_card(state.ruleset, seat, card) for seat, card in enumerate(state.cards)]
