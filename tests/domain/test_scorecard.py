"""The one scorecard layout (games/domain/scorecard.py) every page draws: each rule set's sections and rows."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from games.domain import scorecard
from games.domain.rules import (
    COLOUR_BOXES,
    FREE_JOKER,
    OFFICIAL,
    PAINTED,
    RULESETS,
    TRIPLE,
    Box,
    GameState,
    RuleSet,
    apply_rolled,
    apply_score,
    apply_start,
    new_game,
    score_options,
)
from games.domain.rules.state import Scorecard


def rows(name: str) -> list[dict[str, Any]]:
    return [row for section in scorecard.layout(RULESETS[name])["sections"] for row in section["rows"]]


def sums(name: str) -> list[str]:
    return [row["key"] for row in rows(name) if row["kind"] != "box"]


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_box_of_the_rule_set_is_a_row_once_in_the_rule_sets_order(name: str) -> None:
    ruleset = RULESETS[name]
    boxes = [row["box"] for row in rows(name) if row["kind"] == "box"]
    assert boxes == [box.value for box in ruleset.boxes]
    labels = {row["box"]: row["label"] for row in rows(name) if row["kind"] == "box"}
    assert labels == {box.value: ruleset.box_label(box) for box in ruleset.boxes}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("official", ["upper", "upper_bonus", "lower", "yahtzee_bonus", "total"]),
        ("free_joker", ["upper", "upper_bonus", "lower", "yahtzee_bonus", "total"]),
        ("yeti", ["upper", "upper_bonus", "lower", "total"]),  # one Yahtzee: no bonus, no row for it
        ("yatzy", ["upper", "upper_bonus", "lower", "total"]),
        ("triple", ["upper", "upper_bonus", "lower", "yahtzee_bonus", "total", "total"]),  # column, grand
        ("painted", ["upper", "upper_bonus", "lower", "yahtzee_bonus", "colour", "total"]),
    ],
)
def test_each_rule_set_has_only_the_sums_it_scores(name: str, expected: list[str]) -> None:
    assert sums(name) == expected
    assert rows(name)[-1] == {"kind": "total", "key": "total", "label": "Total", "short": ""}


def test_the_colour_section_is_painted_only_and_may_sit_beside_the_others() -> None:
    for name in RULESETS:
        sections = scorecard.layout(RULESETS[name])["sections"]
        names = [section["name"] for section in sections]
        if name == "painted":
            assert names == ["upper", "lower", "colour", "totals"]
            colour = sections[2]
            assert colour["beside"] and colour["heading"] and colour["label"] == "Colours"
            assert [row["box"] for row in colour["rows"][:-1]] == [box.value for box in COLOUR_BOXES]
        else:
            assert names == ["upper", "lower", "totals"]
            assert not any(section["beside"] for section in sections)


def test_the_upper_sum_states_each_columns_goal_and_the_bonus_its_prize() -> None:
    (upper,) = [row for row in rows("triple") if row.get("key") == "upper"]
    assert upper["goals"] == [63, 126, 189] and upper["made"] == "upper_bonus"
    (bonus,) = [row for row in rows("triple") if row.get("key") == "upper_bonus"]
    assert bonus["rules"] == ["35 at 63", "70 at 126", "105 at 189"]
    (bonus,) = [row for row in rows("yatzy") if row.get("key") == "upper_bonus"]
    assert bonus["rules"] == ["50 at 63"]
    (yatzy,) = [row for row in rows("painted") if row.get("key") == "yahtzee_bonus"]
    assert yatzy["label"] == "Yahtzee bonus"


@pytest.mark.parametrize("box", ["rainbow", "flush", "palette", "painted_house", "four_colour"])
def test_the_painted_boxes_say_what_they_score_and_keep_a_whole_short_name(box: str) -> None:
    (row,) = [row for row in rows("painted") if row.get("box") == box]
    assert len(row["help"]) > 20 and row["help"].endswith(".")
    assert len(row["short"] or row["label"]) <= 13


def test_help_follows_the_rule_set() -> None:
    def help_of(name: str, box: str) -> str:
        return str(next(row["help"] for row in rows(name) if row.get("box") == box))

    assert help_of("official", "small_straight").endswith("30 points.")
    assert help_of("yatzy", "small_straight") == "Exactly 1-2-3-4-5: 15 points."
    assert "five of a kind" in help_of("yeti", "full_house")
    assert "100-point bonus" in help_of("official", "yahtzee") and "bonus" not in help_of("yeti", "yahtzee")
    # Triple's bonus is 100, 200 or 300 by the Yahtzee box that takes it, 300 elsewhere once all three hold points.
    assert "100-point bonus" not in help_of("triple", "yahtzee")
    assert "100 times the column" in help_of("triple", "yahtzee") and "or 300 once all 3" in help_of(
        "triple", "yahtzee"
    )
    # Only while a Yahtzee box holds points: a scratched one earns no bonus later.
    for name in ("official", "free_joker", "painted"):
        assert help_of(name, "yahtzee").endswith("Each later one earns a 100-point bonus if this box holds 50.")
    assert "while a Yahtzee box already holds points, earns a bonus: 100 times the column" in help_of(
        "triple", "yahtzee"
    )
    assert help_of("official", "ones") == ""  # the upper boxes say it in their name
    assert all(row["help"] for row in rows("painted") if row["kind"] == "box" and row["box"] not in UPPER)


def _scratched_yahtzee_card(columns: int) -> list[dict[Box, int]]:
    """A card whose (first) Yahtzee box was scratched and whose Fours are filled."""
    card: list[dict[Box, int]] = [{} for _ in range(columns)]
    card[0][Box.YAHTZEE] = 0
    for column in card:
        column[Box.FOURS] = 12
    return card


@pytest.mark.parametrize("ruleset", [OFFICIAL, FREE_JOKER, PAINTED], ids=lambda r: r.name)
def test_the_yahtzee_help_gives_the_later_bonus_only_when_the_box_holds_50_as_the_engine_does(
    ruleset: RuleSet,
) -> None:
    colours = (0, 0, 1, 1, 2) if ruleset.colours else ()
    options = score_options(ruleset, _scratched_yahtzee_card(1), (4, 4, 4, 4, 4), colours)
    assert [o.bonus for o in options if o.legal] and all(o.bonus == 0 for o in options)  # scratched: no bonus
    later = scorecard.box_help(ruleset, Box.YAHTZEE).split("50 points.", 1)[1]
    assert later == " Each later one earns a 100-point bonus if this box holds 50."


def test_triples_yahtzee_help_gives_the_bonus_only_while_a_yahtzee_box_holds_points_as_the_engine_does() -> None:
    options = score_options(TRIPLE, _scratched_yahtzee_card(3), (4, 4, 4, 4, 4))
    legal = [o for o in options if o.legal]
    assert {(o.box, o.column) for o in legal} == {(Box.YAHTZEE, 1), (Box.YAHTZEE, 2)}
    assert all(o.bonus == 0 for o in legal)  # 100 and 150 in the box, no bonus
    help_text = scorecard.box_help(TRIPLE, Box.YAHTZEE)
    assert re.search(r"while a Yahtzee box already holds points.*100 times the column", help_text), help_text


UPPER = {"ones", "twos", "threes", "fours", "fives", "sixes"}


def play(name: str, seed: int) -> GameState:
    """A two-seat game played to its end with random dice and the first legal box."""
    rng = random.Random(seed)
    state = apply_start(new_game(RULESETS[name], 2))
    while not state.is_over:
        outcomes = RULESETS[name].outcomes
        state = apply_rolled(state, player=state.current, faces=[rng.randint(1, outcomes) for _ in range(5)])
        option = next(o for o in state.options() if o.legal)
        state = apply_score(state, player=state.current, box=option.box, column=option.column)
    return state


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_each_seats_card_has_every_sum_the_layout_names_and_they_add_up(name: str) -> None:
    state = play(name, seed=3)
    cards = scorecard.cards(state)
    keys = {row["key"] for row in rows(name) if row["kind"] == "sum"}
    for seat, card in enumerate(cards):
        assert card["seat"] == seat and card["total"] == state.totals(seat).grand_total
        for column in card["columns"]:
            assert keys <= column.keys()
            assert column["total"] == sum(
                column[k] for k in ("upper", "upper_bonus", "lower", "yahtzee_bonus", "colour")
            )
        assert sum(column["total"] for column in card["columns"]) == card["total"]


def test_a_painted_card_counts_its_colour_boxes_apart() -> None:
    card = Scorecard(
        columns=(((Box.RED, 9), (Box.RAINBOW, 40), (Box.CHANCE, 20), (Box.SIXES, 18)),), yahtzee_bonus=(0,)
    )
    column = scorecard.seat_card(RULESETS["painted"], 0, card)["columns"][0]
    assert (column["upper"], column["lower"], column["colour"], column["total"]) == (18, 20, 49, 87)


def test_a_card_an_action_did_not_change_is_not_worked_out_again() -> None:
    state = apply_start(new_game(RULESETS["official"], 3))
    for faces in ([1, 1, 1, 2, 3], [2, 2, 2, 4, 5], [4, 4, 4, 1, 1]):  # each seat has a box filled
        state = apply_rolled(state, player=state.current, faces=faces)
        state = apply_score(state, player=state.current, box="chance", column=0)
    before = scorecard.cards(state)
    rolled = apply_rolled(state, player=state.current, faces=[6, 6, 6, 2, 3])
    after_roll = scorecard.cards(rolled)
    assert all(a is b for a, b in zip(before, after_roll, strict=True))  # the same cards: the same dicts
    scorer = rolled.current
    option = next(o for o in rolled.options() if o.legal)
    scored = apply_score(rolled, player=scorer, box=option.box, column=option.column)
    after_score = scorecard.cards(scored)
    for seat, (old, new) in enumerate(zip(after_roll, after_score, strict=True)):
        assert (old is new) == (seat != scorer)
    # What is kept is what working the card out again gives, seat number included.
    fresh = [scorecard._seat_card(scored.ruleset, seat, card) for seat, card in enumerate(scored.cards)]
    assert after_score == fresh
    same_card = scored.cards[0]
    assert scorecard.seat_card(scored.ruleset, 1, same_card)["seat"] == 1  # another seat, its own dict


def test_the_kept_cards_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scorecard._seat_cards, "size", 3)
    cards = [Scorecard(columns=(((Box.ONES, n),),), yahtzee_bonus=(0,)) for n in range(1, 6)]
    for card in cards:
        scorecard.seat_card(RULESETS["official"], 0, card)
    assert len(scorecard._seat_cards) <= 3
    assert scorecard.seat_card(RULESETS["official"], 0, cards[0])["columns"][0]["upper"] == 1  # made again
